"""A short game at Discord's own pace (issue 29): the fake's rate limits at real speed (1×),
3 humans and an AI seat, one round, the humans acting at once on the hand they opened at the
start (tests/bot/humans.py). The play loop's counts hold here as in the 20× games of
tests/bot/test_traffic_games.py: one My hand per human, at most three creates and one delete
in the round, no 429, the round has its table. Whole games at 1× (and their timings) are
benchmarks/play_loop.py's."""

from __future__ import annotations

import pytest

from tests.bot.conftest import World
from tests.bot.helpers import answered, first_button, is_final
from tests.bot.humans import Habits, Humans
from tests.bot.test_traffic_games import check_goals
from tests.bot.traffic import table_round, traffic

pytestmark = [pytest.mark.pacing(1.0), pytest.mark.slow]


async def test_one_round_at_discords_own_pace(world: World) -> None:
    humans = [world.ana, world.ben, world.cleo]
    start = len(world.fake.entries)
    host = humans[0]
    lobby = await answered(await host.slash(world.table, "lama start", variant="classic", target=1))
    assert lobby is not None
    for member in humans[1:]:
        await member.click(lobby, "Join")
    await host.click(lobby, "Add AI")
    await host.click(lobby, "Start")
    table = Humans(world.fake, world.table, humans, Habits(), choose=first_button)
    await table.start()
    final = await table.play()
    assert is_final(final)
    assert table.presses == {m.name: 1 for m in humans}, "each pressed My hand once"
    counts = traffic(world.fake, start, world.table)
    print(f"\ntraffic of a one-round classic game at 1×: {counts}")
    assert list(counts["per_round"]) == [1], "one round"
    shown = {r for e in world.fake.entries[start:] if e["kind"] == "rest"
             and (r := table_round(e.get("body"))) is not None}
    assert shown == {1}, "the round has its table"
    check_goals(world, counts, humans, start)
