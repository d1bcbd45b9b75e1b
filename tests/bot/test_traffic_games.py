"""Whole games through the fake Discord pacing like Discord: what they cost the channel.

Players open their hand when the table appears and keep it open (it follows the game:
cogs/hands.py); they act at once. Per game the tests count clicks, My hand clicks,
channel message creates/edits/deletes per round and 429s (tests/bot/traffic.py), assert
the goals of the play loop (docs/performance.md, "The play loop") and print the time waited
on Discord's buckets and the table's lag behind the moves (never asserted: they depend on the
machine).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from fakediscord import Member, Message
from tests.bot.conftest import World
from tests.bot.helpers import WAIT, answered, card, current, is_final, is_table, play_out
from tests.bot.traffic import message_body, table_round, traffic

PACE = 20.0
"""Discord's rate limits on, one real second = 20 Discord seconds (see fakediscord.ratelimit)."""
pytestmark = [pytest.mark.pacing(PACE), pytest.mark.slow]

TRAFFIC: list[tuple[str, dict[str, Any]]] = []


async def play_whole_game(world: World, humans: list[Member], ais: int, **options: Any
                          ) -> tuple[dict[str, Any], Message]:
    """Open a lobby, seat ``humans`` and ``ais`` AI players, start; every human opens their
    hand as soon as the table is there; play to the end. The traffic and the standings."""
    start = len(world.fake.entries)
    host = humans[0]
    lobby = await answered(await host.slash(world.table, "lama start", **options))
    assert lobby is not None
    for member in humans[1:]:
        await member.click(lobby, "Join")
    for _ in range(ais):
        await host.click(lobby, "Add AI")
    await host.click(lobby, "Start")
    turn = await world.fake.notifier.wait_for(
        lambda: t if (t := current(world.table)) is not None and t.table is not None else None,
        WAIT, "the first table")
    hands: dict[int, Message] = {}
    for member in humans:  # each looks at their cards once; the hand follows the game
        hand = (await member.click(turn.table, "My hand")).message
        assert hand is not None and hand.ephemeral
        hands[member.id] = hand
    final = await play_out(world.fake, world.table, world.members, keep_open=True, hands=hands)
    return traffic(world.fake, start), final


def check_goals(world: World, counts: dict[str, Any], humans: list[Member], start: int = 0
                ) -> None:
    """The issue's goals: no 429, no post sent twice (a replay: Discord answers it with the
    message its nonce made, but it costs a request), one My hand per human, per round
    ≤ 3 creates ≤ 1 delete (besides the game's final standings, one message); only the
    game's first table post notifies (every human: no hand is open yet), later ones and
    every edit ping nobody; the last table is marked finished and has no buttons."""
    assert counts["429s"] == 0, counts
    assert counts["replays"] == 0, counts  # an owed table, once posted, is edited
    assert counts.get("standings") == 1, counts
    for member in humans:
        assert counts["my_hand_by_user"].get(member.name, 0) <= 1, counts
    for n, per in counts["per_round"].items():
        assert per.get("creates", 0) <= 3, (n, counts)
        assert per.get("deletes", 0) <= 1, (n, counts)
    first: str | None = None  # the nonce of the game's first table post
    for entry in world.fake.entries[start:]:
        body = message_body(entry.get("body"))  # (the first: the Start click's answer)
        if entry["kind"] == "rest" and isinstance(body, dict) and table_round(body) is not None:
            users = sorted(int(u) for u in (body.get("allowed_mentions") or {}).get("users")
                           or [])
            if entry["method"] == "POST" and first in (None, body.get("nonce")):
                first = body.get("nonce") or "answer"  # (a post sent again with its nonce:
                # a replay; an answer has none)
                assert users == sorted(m.id for m in humans), "the start notifies the humans"
            else:
                assert not users, "later tables (every hand open) and edits ping nobody"
    tables = [m for m in world.table.messages if table_round_of(m) is not None]
    assert tables and not any(is_table(m) for m in tables), "no live table is left"
    last = tables[-1]
    assert last.text.startswith("🏁") and "The game is over." in last.text
    assert not last.buttons, "the finished table has no buttons"


def table_round_of(message: Message) -> int | None:
    match = re.search(r": round (\d+)$", card(message).title or "")
    return int(match[1]) if match else None


def report(world: World, name: str, counts: dict[str, Any]) -> None:
    pacing = world.fake.pacing
    assert pacing is not None
    counts["wait_discord_s"] = pacing.summary()["wait_discord_s"]
    TRAFFIC.append((name, counts))
    print(f"\ntraffic of {name}: {counts}")


async def test_classic_three_humans_and_an_ai_to_the_target(world: World) -> None:
    """A whole classic game to its target (12: two rounds, the first table post notifying
    everyone and a later one no one; to 40 it was five rounds of the same): the play-loop
    counts of docs/performance.md."""
    humans = [world.ana, world.ben, world.cleo]
    start = len(world.fake.entries)
    counts, final = await play_whole_game(world, humans, 1, variant="classic", target=12)
    assert is_final(final)
    assert len(counts["per_round"]) >= 2, "a whole game has rounds"
    report(world, "classic, 3 humans + 1 AI, to 12", counts)
    check_goals(world, counts, humans, start)


@pytest.mark.parametrize("variant", ["kadabra", "dice"])
async def test_shorter_games_with_an_ai_seat(world: World, variant: str) -> None:
    humans = [world.ana, world.ben]
    start = len(world.fake.entries)
    counts, final = await play_whole_game(world, humans, 1, variant=variant, target=12)
    assert is_final(final)
    report(world, f"{variant}, 2 humans + 1 AI, to 12", counts)
    check_goals(world, counts, humans, start)
