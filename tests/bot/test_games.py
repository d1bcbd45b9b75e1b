"""Whole games of every rule set through the fake Discord: humans click, AIs act, all stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests import forkserver
from tests.bot.conftest import World
from tests.bot.helpers import answered, card, is_table, lobby_closed, play_out
from tests.bot.leaks import check_no_leaks

ROOT = Path(__file__).resolve().parents[2]
PACE = 20.0
"""Discord's rate limits on, one real second = 20 Discord seconds (see fakediscord.ratelimit)."""
pytestmark = pytest.mark.pacing(PACE)

GAMES = [
    ("classic", {"target": 12}),
    ("kadabra", {"target": 12}),
    ("dice", {"target": 12}),
    ("tutorial", {"rounds": 2}),
]


def replay(record: dict, tmp_path: Path) -> dict:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    done = forkserver.run("-m", "game", "replay", str(path), text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr + done.stdout
    return json.loads(done.stdout)


@pytest.mark.slow  # a whole game of each rule set
@pytest.mark.parametrize(("variant", "options"), GAMES)
async def test_whole_game(world: World, tmp_path: Path, variant: str, options: dict) -> None:
    world.fake.keep_files = True  # the record attached to the standings
    lobby = await answered(await world.ana.slash(world.table, "lama start", variant=variant,
                                                 **options))
    assert not lobby.ephemeral
    await world.ben.click(lobby, "Join")
    await world.ana.click(lobby, "Add AI")
    assert "AI 1" in lobby.text and "ben" in lobby.text
    started = await world.ana.click(lobby, "Start")
    assert started.message is not None and is_table(started.message), "answered: the table"
    await lobby_closed(world.fake, lobby)  # (through /lama start's token, just after)

    final = await play_out(world.fake, world.table, world.members)
    rematch = next(b for b in final.buttons if b.custom_id.startswith("lama:v2:rematch:"))
    game_id = rematch.custom_id.rsplit(":", 1)[1]
    stored = await world.bot.store.game(world.guild.id, game_id)
    assert stored is not None and stored["status"] == "finished"
    assert [s["name"] for s in stored["seats"]] == ["ana", "ben", "AI 1"]

    pacing = world.fake.pacing
    assert pacing is not None and pacing.stats.requests > 0
    assert not world.fake.lint, "what Discord would silently ignore"

    attached = [a for a in final.attachments if a["filename"] == f"lama-{game_id}.json"]
    assert len(attached) == 1, final.attachments
    record = json.loads(world.fake.files[int(attached[0]["id"])])
    assert record == stored["record"], "the attached record is the game's"
    summary = replay(record, tmp_path)
    assert summary["finished"] and summary["error"] is None
    for player in summary["players"]:
        assert f"**{player['name']}**" in final.text
        assert f"{player['score']} point" in final.text.split(f"**{player['name']}**")[1]
    crowned = [line.split("**")[1] for line in (card(final).description or "").splitlines()
               if line.endswith("🏆")]
    assert sorted(crowned) == sorted(summary["winners"]), "the winners' lines carry the 🏆"
    assert "Winners" not in final.text, "and no field repeats them"
    (legend,) = card(final).fields  # the chart's: its colours, then what its axes show
    assert "Across: the rounds; up: each player's total points." in legend.value
    if "target" in options:
        assert legend.value.endswith(
            f"The dashed line is the total that ends the game ({options['target']}).")
    humans = {"ana": world.ana.id, "ben": world.ben.id}
    pinged = [humans[w] for w in summary["winners"] if w in humans]
    for user in (world.ana.id, world.ben.id):  # the human winners are mentioned once
        assert final.text.count(f"<@{user}>") == (user in pinged)

    users = [world.ana.id, world.ben.id, None]
    shown = check_no_leaks(world.fake, stored["record"], users, public_tiles=variant == "dice")
    assert shown > 0

    board = await world.ben.slash(world.table, "lama leaderboard")
    assert board.message is not None and not board.ephemeral
    text = board.message.text
    assert "ana" in text and "ben" in text and "AI 1" not in text
    winners = [p["name"] for p in summary["players"] if p["name"] in summary["winners"]]
    human_winners = [w for w in winners if w in ("ana", "ben")]
    if len(human_winners) == 1:
        assert text.index(human_winners[0]) < text.index(
            "ben" if human_winners[0] == "ana" else "ana"
        ), "the human winner ranks first"
