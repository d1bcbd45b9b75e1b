"""The ladder through the fake Discord: one board per rule set, its pages, forged page
buttons, and ``/lama stats`` (rule set lines, recent and best games, the rating chart)."""

from __future__ import annotations

import io
import re
import threading

from PIL import Image

from bot.ladder.results import SeatResult
from cogs.charts import CHARTS
from fakediscord import ATTACH_FILES, MANAGE_GUILD, Member, Message
from tests.bot.conftest import World
from tests.bot.forge import forged_buttons
from tests.bot.helpers import answered, card
from tests.bot.test_faults import deferring_at_once

PNG = b"\x89PNG\r\n\x1a\n"
TUTORIAL = "L.A.M.A. tutorial (house rules)"
ROW = re.compile(r"^(\d+)\. \*\*(.+?)\*\*: skill (-?[\d.]+) \(", re.M)
JARGON = ("μ", "σ", "OpenSkill", "rating", "Rating")


async def finish(world: World, number: int, variant: str,
                 seats: list[tuple[Member | None, int, bool]]) -> None:
    """Store a finished game as the bot does at a game's end (seats: member or AI)."""
    doc = {"game_id": f"{number:032x}", "variant": variant, "seed": "1", "record": None,
           "started_at": 0.0,
           "seats": [{"user_id": m.id, "name": m.name} if m else
                     {"user_id": None, "name": f"AI {i}", "difficulty": "hard"}
                     for i, (m, _, _) in enumerate(seats)]}
    results = [SeatResult(i, m.id if m else None, m.name if m else f"AI {i}", points, won)
               for i, (m, points, won) in enumerate(seats)]
    await world.bot.store.finish_game(world.guild.id, world.table.id, doc, results)


def rows(message: Message) -> list[tuple[int, str, float]]:
    text = card(message).description or ""
    return [(int(p), name, float(r)) for p, name, r in ROW.findall(text)]


async def two_rule_sets(world: World) -> None:
    """classic: ana beats ben twice; tutorial (the most points win): ben beats ana three
    times, an AI seat at the table each time."""
    for n in range(2):
        await finish(world, n, "classic", [(world.ana, 3, True), (world.ben, 20, False)])
    for n in range(3):
        await finish(world, 10 + n, "tutorial", [(world.ana, 5, False), (world.ben, 30, True),
                                                 (None, 10, False)])


async def test_each_rule_set_has_its_board_and_the_default_is_the_most_played(
    world: World,
) -> None:
    await two_rule_sets(world)
    board = await world.cleo.slash(world.table, "lama leaderboard")  # cleo reads French
    assert board.message is not None and not board.ephemeral
    default = await world.ana.slash(world.table, "lama leaderboard")
    assert default.message is not None
    assert card(default.message).title == f"Leaderboard: {TUTORIAL}", "played most here"
    assert [r[1] for r in rows(default.message)] == ["ben", "ana"], "the most points won"
    assert "AI" not in (card(default.message).description or ""), "AI seats not shown"
    footer = card(default.message).footer
    assert footer.startswith("Skill: how well a player finishes against the others"), footer
    assert "Page" not in footer and not default.message.buttons, "one page: no buttons"
    classic = await world.ana.slash(world.table, "lama leaderboard", variant="classic")
    assert classic.message is not None
    assert card(classic.message).title == "Leaderboard: L.L.A.M.A."
    (first, ana, up), (second, ben, down) = rows(classic.message)
    assert (first, ana, second, ben) == (1, "ana", 2, "ben") and up > 0 > down
    assert "2 of 2 games won" in classic.message.text
    assert "skill -0.00" not in classic.message.text
    assert "Classement" in board.message.text, "in the reader's language"


async def test_past_ten_players_the_board_has_pages(world: World) -> None:
    people = [world.guild.add_member(f"p{k:02}") for k in range(12)]
    for number, table in enumerate((people[:6], people[6:])):
        await finish(world, number, "classic",
                     [(m, 4 * k, k == 0) for k, m in enumerate(table)])
    reply = await world.ana.slash(world.table, "lama leaderboard", variant="classic")
    board = reply.message
    assert board is not None
    first = rows(board)
    assert len(first) == 10 and first[0][0] == 1
    assert (card(board).footer or "").endswith("Page 1 of 2")
    previous, following = board.buttons
    assert previous.disabled and not following.disabled
    assert following.custom_id == f"lama:v2:board:{world.guild.id}:classic:1:next"
    turned = await world.ben.click(board, following.custom_id)
    assert turned.type == 7 and not turned.ephemeral, "the board is edited in place"
    second = rows(board)
    assert len(second) == 2 and second[-1][1] in ("p05", "p11")
    assert {r[1] for r in first + second} == {m.name for m in people}, "everyone, once"
    places = [r[0] for r in first + second]
    assert places == sorted(places) and places[-1] > 10, "places count over the whole board"
    assert (card(board).footer or "").endswith("Page 2 of 2")
    assert board.buttons[1].disabled and not board.buttons[0].disabled
    await world.ana.click(board, board.buttons[0].custom_id)
    assert rows(board) == first


async def test_forged_page_buttons_are_refused_and_change_nothing(world: World) -> None:
    await two_rule_sets(world)
    other = world.fake.add_guild("Elsewhere")
    here = world.guild.id
    forged = [f"lama:v2:board:{other.id}:classic:0:next",  # another server's board
              f"lama:v2:board:{here}:bogus:0:next", f"lama:v2:board:{here}:classic:x:next",
              f"lama:v2:board:{here}:classic:123456:next", f"lama:v2:board:{here}:classic:0",
              f"lama:v2:board:{here}:classic:0:next:more", "lama:v2:board:<@0>**",
              "lama:v2:board:"]
    for custom_id in forged:
        message = forged_buttons(world.fake, world.table, [custom_id])
        reply = await world.ana.click(message, custom_id)
        assert reply.ephemeral and reply.message is not None, custom_id
        assert "does not belong to a leaderboard of this server" in reply.message.text
        assert message.text == "forged" and not card(message).title, "nothing was drawn"
    real = forged_buttons(world.fake, world.table, [f"lama:v2:board:{here}:classic:7:next"])
    shown = await world.ana.click(real, real.buttons[0].custom_id)
    assert shown.type == 7 and [r[1] for r in rows(real)] == ["ana", "ben"], \
        "a page past the end shows the last page"


async def test_stats_show_each_rule_set_recent_games_best_game_and_a_chart(
    world: World,
) -> None:
    world.fake.keep_files = True
    await two_rule_sets(world)
    stats = await answered(await world.ben.slash(world.table, "lama stats", user=world.ana))
    assert stats.ephemeral
    text = stats.text
    assert "**L.L.A.M.A.**: rank 1 of 2 on the leaderboard, skill " in text
    assert f"**{TUTORIAL}**: rank 2 of 2 on the leaderboard, skill " in text
    assert "2 of 2 games won (100%)" in text and "0 of 3 games won (0%)" in text
    recent = next(f for f in card(stats).fields if f.name == "Recent games").value
    lines = recent.splitlines()
    assert len(lines) == 5 and all(re.match(r"<t:\d+:d> ", line) for line in lines)
    assert f"{TUTORIAL}: place 3 of 3, 5 points" in lines[0], "newest first; the AI placed 2nd"
    best = next(f for f in card(stats).fields if f.name == "Best game").value
    assert "L.L.A.M.A.: place 1 of 2, 3 points 🏆" in best
    assert [a["filename"] for a in stats.attachments] == ["ratings.png"]
    data = world.fake.files[int(stats.attachments[0]["id"])]
    assert data.startswith(PNG) and Image.open(io.BytesIO(data)).size == (512, 256)
    legend = card(stats).fields[-1].value
    assert legend.startswith("🟥 L.L.A.M.A.\n🟨 L.A.M.A. tutorial")

    boss = world.guild.add_member("boss", permissions=MANAGE_GUILD)
    await boss.slash(world.table, "lama config images", images="off")
    off = await answered(await world.ana.slash(world.table, "lama stats"))
    assert off is not None and off.attachments == [] and card(off).image is None
    assert "**L.L.A.M.A.**: rank 1 of 2" in off.text and "Skill after each" not in off.text
    await boss.slash(world.table, "lama config images", images="on")
    await world.table.set_permissions(world.guild.me, deny=ATTACH_FILES)
    bare = await answered(await world.ana.slash(world.table, "lama stats"))
    assert bare is not None and bare.attachments == [] and "Best game" in bare.text
    nobody = await answered(await world.cleo.slash(world.table, "lama stats"))
    assert nobody is not None and "Aucune partie terminée" in nobody.text


async def test_the_board_and_the_stats_say_skill_in_plain_words(world: World) -> None:
    """Issue 29: "skill" with what it means under it, its numbers kept, and no "rating",
    μ, σ or OpenSkill; a board's position is a "rank", a game's a "place" (on main both
    were "place 2 of 2" and "place 3 of 3" in one message)."""
    world.fake.keep_files = True
    await two_rule_sets(world)
    board = await answered(await world.ana.slash(world.table, "lama leaderboard",
                                                 variant="classic"))
    stats = await answered(await world.ana.slash(world.table, "lama stats"))
    assert board is not None and stats is not None
    for message in (board, stats):
        text = message.text
        assert not [word for word in JARGON if word in text], text
        assert re.search(r"skill -?\d+\.\d+ \(\d+\.\d+ ± \d+\.\d+\)", text), text
        footer = card(message).footer or ""
        assert footer.startswith("Skill: how well a player finishes against the others at "
                                 "the table (AI seats too), counted cautiously"), footer
    lines, *fields = [card(stats).description or "", *(f.value for f in
                                                           card(stats).fields)]
    assert "place" not in lines and lines.count(" on the leaderboard") == 2, lines
    assert "rank" not in "".join(fields[:2]) and "place 3 of 3" in fields[0]
    legend = card(stats).fields[-1]
    assert legend.name == "Skill after each recent game"
    assert "Across: the last 5 games, oldest first; up: skill after each." in legend.value
    assert "dashed line is a newcomer's skill (0)" in legend.value
    alt = stats.attachments[0].get("description", "")
    assert alt == ("A line chart of ana's skill (up) after each of their last 5 games "
                   "(across, oldest first)."), alt


async def test_a_one_game_stats_chart_names_its_one_game(world: World) -> None:
    await finish(world, 1, "classic", [(world.ana, 3, True), (world.ben, 20, False)])
    stats = await answered(await world.ben.slash(world.table, "lama stats"))
    assert stats is not None
    legend = card(stats).fields[-1].value
    assert "Across: 1 game; up: skill after it." in legend, legend
    assert "**L.L.A.M.A.**: rank 2 of 2 on the leaderboard" in stats.text
    assert "place 2 of 2, 20 points" in card(stats).fields[0].value


async def test_stats_slower_than_discords_deadline_are_deferred_privately(world: World) -> None:
    """The first chart of a process loads the charts' library (seconds on a busy machine):
    /lama stats then defers its answer, privately, and its record follows privately with its
    chart. (The charts' one thread is held by the test, so the chart cannot come first.)"""
    world.fake.keep_files = True
    await two_rule_sets(world)
    held = threading.Event()
    CHARTS.submit(held.wait, 60)
    try:
        with deferring_at_once():
            reply = await world.ana.slash(world.table, "lama stats")
    finally:
        held.set()
    assert reply.type == 5 and reply.ephemeral, "deferred, and only its user sees it waiting"
    stats = await answered(reply)
    assert stats.ephemeral and "2 of 2 games won (100%)" in stats.text
    assert [a["filename"] for a in stats.attachments] == ["ratings.png"]
    assert stats not in world.table.messages, "nothing of it in the channel"
