"""Hostile display names in every kind of message: shown literally where Discord renders
markdown (escaped), without a visible backslash where it does not, and isolated so a
right-to-left override ends with the name."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bot import create_bot
from bot.common.clock import ManualClock
from bot.sessions.seating import MAX_NAME
from bot.words.markdown import escape
from fakediscord import FakeDiscord, Member
from tests.bot.conftest import World, make_settings
from tests.bot.helpers import WAIT, Turn, click_and_confirm, current, play_out

RLO, FSI, PDI = "\u202e", "\u2068", "\u2069"
HOSTILE = [
    "[Free Nitro](https://evil.example)", "```", "**", "||", "~~", "# x", "> y", "@everyone",
    f"ab{RLO}live",
]


def payloads(fake: FakeDiscord) -> Iterator[dict[str, Any]]:
    """Every message body the bot sent: posts, edits, interaction answers and followups."""
    for entry in fake.entries:
        body = entry.get("body") if entry.get("kind") == "rest" else None
        if not isinstance(body, dict):
            continue
        if "type" in body and isinstance(body.get("data"), dict):
            body = body["data"]  # an interaction callback
        if any(k in body for k in ("content", "embeds", "components")):
            yield body


def texts(body: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(where Discord renders markdown, where it shows text literally)."""
    markdown = [body.get("content") or ""]
    plain: list[str] = []
    for embed in body.get("embeds") or []:
        markdown += [embed.get("title") or "", embed.get("description") or ""]
        for field in embed.get("fields") or []:
            markdown += [field.get("name", ""), field.get("value", "")]
        plain += [(embed.get("footer") or {}).get("text", ""), (embed.get("author") or {})
                  .get("name", "")]
    stack = list(body.get("components") or [])
    while stack:
        component = stack.pop()
        stack += component.get("components") or []
        if component.get("type") == 10:  # a V2 text display: markdown, as content is
            markdown.append(component.get("content") or "")
        plain += [component.get("label") or "", component.get("placeholder") or ""]
        plain += [o.get("label", "") for o in component.get("options") or []]
    return markdown, plain


def unescaped(text: str) -> str:
    """``text`` without its backslash escapes (what markdown could still act on)."""
    out, skip = [], False
    for char in text:
        if skip:
            skip = False
            out.append(" ")
        elif char == "\\":
            skip = True
        else:
            out.append(char)
    return "".join(out)


def check_isolated(text: str) -> None:
    for line in text.split("\n"):
        index = line.find(RLO)
        while index >= 0:
            assert line.rfind(FSI, 0, index) >= 0 and line.find(PDI, index) > index, repr(line)
            index = line.find(RLO, index + 1)


def check_all(fake: FakeDiscord, names: list[str]) -> None:
    shown: set[str] = set()
    plain_seen: list[str] = []
    for body in payloads(fake):
        markdown, plain = texts(body)
        for text in markdown:
            bare = unescaped(text)
            for token in ("```", "||", "~~", "](", "https://", "@everyone"):
                assert token not in bare, (token, text)
            for line in bare.split("\n"):
                line = line.removeprefix("### ")  # (a V2 title: the bot's own heading)
                start = line.lstrip(f" {FSI}{PDI}0123456789.▶️◀️▫️🏳️🤖")
                assert not start.startswith(("#", ">")), line
            shown.update(name for name in names  # seat names are cut to MAX_NAME
                         if escape(name[:MAX_NAME]) in text)
            check_isolated(text)
        for text in plain:
            assert "\\" not in text, text
            check_isolated(text)
            plain_seen.append(text)
    assert shown == set(names), f"never shown: {set(names) - shown}"


async def test_hostile_names_in_every_kind_of_message(world: World) -> None:
    fake, table = world.fake, world.table
    people = [world.guild.add_member(name) for name in HOSTILE]
    members: dict[int, Member] = {m.id: m for m in people}
    host, *others = [*people[:5], people[8]]
    lobby = (await host.slash(table, "lama start", target=1)).message  # lobby
    assert lobby is not None
    for member in others:
        await member.click(lobby, "Join")
    refused = await others[0].click(lobby, "Start")  # a refusal
    assert refused.ephemeral
    await host.click(lobby, "Start")
    final = await play_out(fake, table, members)  # table, hands, round summary, standings
    await people[6].slash(table, "lama leaderboard")
    for member in people[:7]:
        await people[7].slash(table, "lama stats", user=member)
    # a rematch lobby: joining, leaving by command, cancelling (a footer names the host)
    rematch = await host.click(final, next(b.label for b in final.buttons if b.label))
    second = rematch.message
    assert second is not None
    for member in people[5:8]:
        await member.click(second, "Join")
    await people[6].slash(table, "lama leave")
    await host.click(second, "Cancel")
    # a game where a player leaves (an AI thinks under their name) and is stopped
    third = (await people[7].slash(table, "lama start")).message
    assert third is not None
    await people[5].click(third, "Join")
    await people[7].click(third, "Start")
    await fake.notifier.wait_for(lambda: current(table), WAIT, "the table")
    await people[5].slash(table, "lama leave")
    await people[7].slash(table, "lama stop")
    check_all(fake, HOSTILE)
    # a V2 footer is small markdown text (cogs/layout.py): the name is escaped there
    footers = [line for body in payloads(fake) for t in texts(body)[0]
               for line in t.split("\n") if line.startswith("-# ")]
    assert any(escape(HOSTILE[0]) in line for line in footers), "a footer shows a name"


async def test_hostile_names_in_the_timers_messages(tmp_path: Path) -> None:
    """Reminders, a move played at the deadline, an AI taking over a seat."""
    clock = ManualClock()
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Lama Club")
        table = guild.add_text_channel("lama")
        first, second = guild.add_member(HOSTILE[0]), guild.add_member(HOSTILE[-1])
        async with fake.run(create_bot(make_settings(tmp_path), clock=clock)):
            lobby = (await first.slash(table, "lama start", target=300, turn_timeout=30)).message
            assert lobby is not None
            await second.click(lobby, "Join")
            await first.click(lobby, "Start")

            def turn_of(member: Member) -> Turn | None:
                turn = current(table)
                return turn if turn is not None and turn.user_id == member.id else None

            async def time_out(text: str) -> None:
                note = table.wait_for_message(lambda m: text in m.content)
                clock.advance(30)
                fake.clock.advance(30)
                await note

            await time_out("ran out of time")  # the first player's round is played for them
            for _ in range(2):  # the second quits, alone; starts the next round and quits
                turn = await fake.notifier.wait_for(lambda: turn_of(second), WAIT, "2nd's turn")
                assert turn.table is not None
                hand = (await second.click(turn.table, "My hand")).message
                assert hand is not None
                await click_and_confirm(second, hand, "Quit")
            await fake.notifier.wait_for(lambda: turn_of(first), WAIT, "the first's turn")
            await time_out("twice in a row")  # an AI takes the first player's seat
        assert not fake.failures and not fake.refusals, (fake.failures, fake.refusals)
        check_all(fake, [HOSTILE[0], HOSTILE[-1]])
        notes = [m.content for m in table.messages if "⏰" in m.content]
        assert any("ran out of time" in n for n in notes), notes
