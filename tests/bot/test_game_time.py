"""Game time never waits on channel time (issue 29): with the channel's messages held (its
bucket spent, as after five quick edits), AI seats move, a timer steps and takes a seat over,
and open hands show each turn at once; released, the channel catches up with the latest
state, every round's table and the standings, in order."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from bot.policies.timers import DEFAULT_TURN_TIMEOUT
from bot.sessions.outbox import Pacer
from bot.sessions.sessions import Session
from tests.bot.conftest import World
from tests.bot.helpers import WAIT, answered, current, first_button, offers, settled
from tests.bot.test_traffic_games import table_round_of
from tests.bot.traffic import standings, table_round


class Held:
    """The bot's pacer, held shut: the channel's owed messages wait for their slot (a spent
    edit bucket) until the test opens it."""

    def __init__(self, inner: Pacer | None, wake: Callable[[], None] | None = None) -> None:
        self.inner = inner
        self.open = asyncio.Event()
        self.waiting = 0
        self.wake = wake  # (e.g. the fake's notifier: a test waiting on ``waiting`` re-checks)

    async def slot(self, channel_id: int) -> None:
        self.waiting += 1
        if self.wake is not None:
            self.wake()
        await self.open.wait()
        if self.inner is not None:
            await self.inner.slot(channel_id)

    def settle(self) -> None:
        if self.inner is not None:
            self.inner.settle()


def channel_requests(world: World, since: int) -> list[dict[str, object]]:
    """Requests to the channel's messages (not interactions, not the hands' webhooks)."""
    return [e for e in world.fake.entries[since:] if e["kind"] == "rest"
            and str(e.get("path", "")).startswith(f"/channels/{world.table.id}/")]


async def test_ai_seats_timers_and_takeover_never_wait_on_the_channel(world: World) -> None:
    ana = world.ana
    lobby = await answered(await ana.slash(world.table, "lama start", variant="classic"))
    assert lobby is not None
    await ana.click(lobby, "Add AI")
    await ana.click(lobby, "Add AI")
    await ana.click(lobby, "Start")
    turn = await world.fake.notifier.wait_for(
        lambda: t if (t := current(world.table)) is not None and t.table is not None else None,
        WAIT, "the first table")
    session = world.bot.sessions.get(world.table.id)
    assert isinstance(session, Session) and session.game is not None
    game = session.game
    hand = (await ana.click(turn.table, "My hand")).message
    assert hand is not None
    await world.fake.notifier.wait_for(offers(hand), WAIT, "ana's turn")
    await world.bot.sessions.outbox.deliver(world.table.id)  # the channel is up to date
    session.timers.table_answer = None  # (round 1's edits through the Start click's token
    # are never paced: the table's edits through the channel are what this holds)
    outbox = world.bot.sessions.outbox
    held = Held(outbox.pacer)
    outbox.pacer = held
    since = len(world.fake.entries)

    def ais_moved() -> int:
        return sum(1 for seat, _ in game.history[moves:] if seat != 0)

    try:
        # ana plays; both AI seats move after her while the channel is held
        moves = len(game.history)
        custom_id, value = first_button(ana, hand)
        result = await (ana.click(hand, custom_id) if value is None
                        else ana.select(hand, value, custom_id=custom_id))
        hand = await settled(result)
        await world.fake.notifier.wait_for(
            lambda: True if ais_moved() >= 2 or game.finished else None, WAIT,
            "the AI seats to move while the channel is held")
        assert held.waiting and not channel_requests(world, since), "the channel was held"

        # a timer step (ana's turn times out: her default action), then the take-over (twice in
        # a row: an AI plays her seat) and the game to its end, all with the channel held
        for timeouts in (1, 2):
            await world.fake.notifier.wait_for(
                lambda: True if (game.to_act == 0 and session.timers.turn_seat == 0)
                or game.finished else None, WAIT, "ana's turn")
            if game.finished:
                break
            key = session.timers.turn_key
            world.clock.advance(DEFAULT_TURN_TIMEOUT)
            await world.fake.notifier.wait_for(
                lambda key=key: True if session.timers.turn_key != key or game.finished else None,
                WAIT, f"ana's timeout {timeouts}")
        await world.fake.notifier.wait_for(
            lambda: True if game.finished else None, WAIT * 3,
            "the AIs (ana's seat too) to finish the game while the channel is held")
        assert session.seats[0].away, "an AI took ana's seat over"
        assert not channel_requests(world, since), "nothing was shown in the channel meanwhile"
    finally:
        held.open.set()  # (on failure too: the bot's shutdown delivers what is owed)

    # released: the channel catches up, in order, with every round's table and the standings
    await world.fake.notifier.wait_for(
        lambda: True if any(standings(e.get("body")) for e in channel_requests(world, since))
        else None, WAIT * 3, "the standings")
    await outbox.deliver(world.table.id)  # (after the channel's own task: its lock)
    shown = channel_requests(world, since)
    rounds = {r for e in shown if (r := table_round(e.get("body"))) is not None}
    dealt = game.state.round_no
    assert dealt >= 2, "the game had rounds"
    first = 1
    assert set(range(first + 1, dealt + 1)) <= rounds, (sorted(rounds), dealt)
    last = next(m for m in reversed(world.table.messages) if table_round_of(m) is not None)
    assert "The game is over." in last.text and not last.buttons
    assert not outbox.pending(world.table.id)
