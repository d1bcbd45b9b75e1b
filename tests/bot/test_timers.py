"""Turn timers without Discord: the manual clock, each rule set's default, AI take-over.

The sessions run on a real SQLite store and a :class:`ManualClock`; the watchdog's
messages go to a recorder the tests await (no sleeping, no real time passes).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.common.clock import ManualClock
from bot.policies import takeover
from bot.policies.defaults import default_action
from bot.policies.timers import DEFAULT_PING_PART, IDLE_TTL, LOBBY_TTL, valid_turn_timeout
from bot.policies.wiring import make_sessions
from bot.sessions.outbox import Owed
from bot.sessions.sessions import Session, Sessions, Status
from bot.store.sqlite import SqliteStore
from game import Action, Card, EventKind, Game, player_view
from game.actions import DRAW, PASS, QUIT, ROLL, STOP, discard, play, take

PING_AFTER = DEFAULT_PING_PART * 120  # a 120 s turn's ping (no hands known: half-way)

GUILD, CHANNEL = 1, 2
ANA, BEN = 11, 12
NOTE_WAIT = 5.0  # an upper bound for a note that is due now, never a pause


class Recorder:
    """The watchdog's announcer and the outbox's courier, as awaitable notes."""

    def __init__(self) -> None:
        self.notes: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        self.published = asyncio.Event()

    async def next(self) -> tuple[Any, ...]:
        return await asyncio.wait_for(self.notes.get(), NOTE_WAIT)

    async def remind(self, session: Session, seat: int, seconds_left: int | None) -> None:
        await self.notes.put(("remind", seat, seconds_left))

    async def timed_out(self, session: Session, seat: int, events: list[Any],
                        handed_over: bool) -> None:
        await self.notes.put(("timed out", seat, [e.kind for e in events], handed_over))

    async def lobby_expired(self, session: Session) -> None:
        await self.notes.put(("lobby expired",))

    async def abandoned_idle(self, session: Session) -> None:
        await self.notes.put(("idle",))

    async def deliver(self, item: Owed, session: Session | None) -> None:
        self.published.set()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
async def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
async def sessions(tmp_path: Path, clock: ManualClock, recorder: Recorder
                   ) -> AsyncIterator[Sessions]:
    store = SqliteStore(str(tmp_path / "lama.db"))
    await store.open()
    manager = make_sessions(store, ai_delay=0, seed="7", clock=clock)
    manager.timers.announcer = recorder
    manager.outbox.courier = recorder.deliver
    yield manager
    await manager.close()
    await store.close()


async def started(sessions: Sessions, variant: str = "classic", **options: int) -> Session:
    session = await sessions.open(GUILD, CHANNEL, (ANA, "ana"), variant,
                                  options or {"target": 300}, None)
    await session.join(BEN, "ben")
    await session.start(ANA)
    return session


def game_of(session: Session) -> Game:
    assert session.game is not None
    return session.game


def user_of(session: Session, seat: int) -> int:
    user = session.seats[seat].user_id
    assert user is not None
    return user


# ---- the clock -------------------------------------------------------------------------


async def test_manual_clock_wakes_sleepers_at_their_deadlines_in_order(clock: ManualClock) -> None:
    woken: list[float] = []
    ready = [asyncio.Event(), asyncio.Event()]

    async def sleeper(offset: float, index: int) -> None:
        ready[index].set()
        await clock.sleep_until(clock.now() + offset)
        woken.append(offset)

    late, early = (asyncio.create_task(sleeper(10, 0)), asyncio.create_task(sleeper(5, 1)))
    for event in ready:
        await event.wait()
    assert clock.waiting == 2
    clock.advance(7)
    await early
    assert woken == [5] and not late.done()
    clock.advance(3)
    await late
    assert woken == [5, 10] and clock.waiting == 0
    await clock.sleep_until(clock.now() - 1)  # a past deadline returns at once
    with pytest.raises(ValueError):
        clock.advance(-1)


def test_turn_timeout_range() -> None:
    assert valid_turn_timeout(0) and valid_turn_timeout(30) and valid_turn_timeout(3600)
    assert not valid_turn_timeout(29) and not valid_turn_timeout(3601)
    assert not valid_turn_timeout(-5)


# ---- the default actions ---------------------------------------------------------------


def view_with(variant: str, legal: list[Action]) -> Any:
    game = Game(variant, ["ana", "ben"], None, seed="7")
    seat = game.to_act
    return dataclasses.replace(player_view(game, seat), legal=tuple(legal))


def test_each_rule_sets_default_action() -> None:
    three, four, llama = Card.parse("3"), Card.parse("4"), Card.parse("L")
    for variant in ("classic", "kadabra"):
        assert default_action(view_with(variant, [play(three), DRAW, QUIT])) == QUIT
    assert default_action(view_with("dice", [ROLL, QUIT])) == QUIT
    resolve = [discard([three]), discard([three, three]), discard([llama])]
    assert default_action(view_with("dice", resolve)) == discard([three, three]), "most tiles"
    assert default_action(view_with("dice", [discard([three]), discard([llama])])) == \
        discard([llama]), "the same count: the highest value"
    assert default_action(view_with("dice", [take(four), take(three)])) == take(three)
    assert default_action(view_with("tutorial", [play(four), DRAW, STOP])) == DRAW
    assert default_action(view_with("tutorial", [play(four), PASS])) == PASS
    assert default_action(view_with("tutorial", [play(four), STOP])) == STOP, "empty pile"
    assert default_action(view_with("classic", [])) is None


# ---- timers on sessions ------------------------------------------------------------------


async def test_one_ping_after_the_ping_delay_then_classic_default_quit(
    sessions: Sessions, clock: ManualClock, recorder: Recorder
) -> None:
    session = await started(sessions)
    game = game_of(session)
    seat = game.to_act
    assert seat is not None and session.timers.turn_seat == seat
    clock.advance(PING_AFTER - 1)
    await asyncio.sleep(0)
    assert recorder.notes.empty()
    clock.advance(1)
    assert await recorder.next() == ("remind", seat, 120 - PING_AFTER)
    clock.advance(120 - PING_AFTER)
    assert await recorder.next() == ("timed out", seat, [EventKind.QUIT], False)
    assert game.history[-1] == (seat, QUIT)
    assert session.timers.timeouts[seat] == 1
    assert session.timers.turn_seat == game.to_act != seat, "the next player's timer runs"
    assert session.timers.turn_started == clock.now()


async def test_a_move_pushes_the_ping_back_without_restarting_the_timer(
    sessions: Sessions, clock: ManualClock, recorder: Recorder
) -> None:
    """Each move moves the deadlines later: the sleeping task is kept (no cancellation per
    move), wakes at the old time without firing, and fires at the new one."""
    session = await started(sessions)
    seat = game_of(session).to_act
    assert seat is not None
    task = sessions.timers._watches[CHANNEL].task  # type: ignore[attr-defined]
    clock.advance(PING_AFTER / 2)
    await session.act(user_of(session, seat), None, "draw")
    other = game_of(session).to_act
    assert other is not None and other != seat
    assert sessions.timers._watches[CHANNEL].task is task  # type: ignore[attr-defined]
    assert not task.cancelled() and not task.done()
    clock.advance(PING_AFTER / 2)  # the first turn's ping time: nothing due now
    for _ in range(20):  # loop steps, not time: the woken task goes back to sleep
        await asyncio.sleep(0)
    assert recorder.notes.empty() and not session.timers.reminded
    assert sessions.timers._watches[CHANNEL].task is task  # type: ignore[attr-defined]
    clock.advance(PING_AFTER / 2)
    assert await recorder.next() == ("remind", other, 120 - PING_AFTER)


async def test_tutorial_default_draws_then_keeps_the_card(
    sessions: Sessions, clock: ManualClock, recorder: Recorder
) -> None:
    session = await started(sessions, "tutorial", rounds=2)  # seed 7: the drawn card fits
    game = game_of(session)
    seat = game.to_act
    clock.advance(120)
    note = await recorder.next()
    assert note[:2] == ("timed out", seat) and EventKind.PASSED in note[2]
    assert [a for s, a in game.history] == [DRAW, PASS]
    assert game.to_act != seat


async def test_tutorial_default_only_draws_when_the_card_does_not_fit(
    tmp_path: Path, clock: ManualClock, recorder: Recorder
) -> None:
    store = SqliteStore(str(tmp_path / "other.db"))
    await store.open()
    manager = make_sessions(store, ai_delay=0, seed="0", clock=clock)
    manager.timers.announcer = recorder
    try:
        session = await started(manager, "tutorial", rounds=2)
        game = game_of(session)
        seat = game.to_act
        clock.advance(120)
        assert (await recorder.next())[:2] == ("timed out", seat)
        assert [a for s, a in game.history] == [DRAW]
        assert game.to_act != seat
    finally:
        await manager.close()
        await store.close()


async def pass_turn_to(session: Session, seat: int) -> None:
    """The other (human) player quits until ``seat`` is to act."""
    game = game_of(session)
    while game.to_act != seat:
        other = game.to_act
        assert other is not None
        await session.act(user_of(session, other), None, "quit")
        await session.sessions.publish(session)  # as the table cog does: wakes the AIs


async def test_a_human_action_resets_the_count_two_timeouts_hand_over_hand_takes_back(
    sessions: Sessions, clock: ManualClock, recorder: Recorder
) -> None:
    session = await started(sessions)
    game = game_of(session)
    ana = 0
    await pass_turn_to(session, ana)
    clock.advance(120)  # past both: the late reminder is not sent
    assert (await recorder.next())[:2] == ("timed out", ana)
    await pass_turn_to(session, ana)
    mine = player_view(game, ana).legal[0]
    await session.act(ANA, None, str(mine))  # ana is back: the count starts again
    assert session.timers.timeouts[ana] == 0
    await pass_turn_to(session, ana)
    clock.advance(120)
    note = await recorder.next()
    assert note[:2] == ("timed out", ana) and note[2][0] is EventKind.QUIT and not note[3]
    assert session.timers.timeouts[ana] == 1 and not session.seats[ana].away
    await pass_turn_to(session, ana)
    clock.advance(120)
    note = await recorder.next()
    assert note[:2] == ("timed out", ana) and note[3] is True, "twice in a row: an AI plays"
    assert session.seats[ana].away and session.seats[ana].is_ai
    assert session.seats[ana].user_id == ANA, "the seat stays hers (results, /lama hand)"
    played = len(game.history)
    await pass_turn_to(session, ana)  # ben quits: the AI plays ana's seat by itself
    recorder.published.clear()
    while game.to_act == ana:
        await asyncio.wait_for(recorder.published.wait(), NOTE_WAIT)
        recorder.published.clear()
    assert any(s == ana for s, _ in game.history[played:]), "the AI played"
    assert session.timers.turn_seat != ana, "no timer for an AI seat"
    assert await takeover.take_back(session, ANA)
    assert not session.seats[ana].away and session.timers.timeouts[ana] == 0
    assert not await takeover.take_back(session, ANA), "already in control"
    await pass_turn_to(session, ana)
    assert session.timers.turn_seat == ana, "her turns are timed again"


async def test_timer_state_is_in_the_snapshot_and_runs_on_after_restore(
    sessions: Sessions, clock: ManualClock, recorder: Recorder
) -> None:
    session = await started(sessions)
    seat = game_of(session).to_act
    clock.advance(60)
    assert (await recorder.next())[0] == "remind"
    saved = json.loads(json.dumps((await sessions.store.sessions(GUILD))[0]))
    state = Session.restore(sessions, saved).timers  # the snapshot and the rows after it
    assert state.turn_seat == seat and state.reminded
    assert state.deadline == clock.now() + 60
    # a new process: the session rebuilt from the store, the same clock
    manager = make_sessions(sessions.store, ai_delay=0, seed="7", clock=clock)
    manager.timers.announcer = recorder
    sessions.forget(session)
    try:
        restored = Session.restore(manager, saved)
        manager.adopt(restored)
        clock.advance(60)
        assert await recorder.next() == ("timed out", seat, [EventKind.QUIT], False), \
            "no second reminder; the default at the saved deadline"
        assert game_of(restored).history[-1] == (seat, QUIT)
    finally:
        await manager.close()


async def test_old_snapshots_without_timers_get_fresh_ones(sessions: Sessions) -> None:
    session = await started(sessions)
    data = session.snapshot()
    del data["timers"], data["away"]
    restored = Session.restore(sessions, data)
    assert restored.timers.turn_seat is None and restored.timers.seen is None
    assert not any(s.away for s in restored.seats)


async def test_lobby_expires_after_ten_minutes(
    sessions: Sessions, clock: ManualClock, recorder: Recorder
) -> None:
    session = await sessions.open(GUILD, CHANNEL, (ANA, "ana"), "classic", {}, None)
    await session.join(BEN, "ben")
    clock.advance(LOBBY_TTL - 1)
    assert recorder.notes.empty()
    clock.advance(1)
    assert await recorder.next() == ("lobby expired",)
    assert session.status is Status.ABANDONED and sessions.get(CHANNEL) is None
    assert await sessions.store.sessions(GUILD) == []


async def test_no_human_action_for_thirty_minutes_abandons_the_game(
    sessions: Sessions, clock: ManualClock, recorder: Recorder
) -> None:
    session = await sessions.open(GUILD, CHANNEL, (ANA, "ana"), "classic", {"target": 300}, None)
    await session.join(BEN, "ben")
    session.timers.turn_timeout = 0  # no turn timer: only the idle rule can end it
    await session.start(ANA)
    seat = game_of(session).to_act
    assert seat is not None
    clock.advance(IDLE_TTL - 60)
    assert await recorder.next() == ("remind", seat, None), "no turn timer: pinged once"
    await session.act(user_of(session, seat), None, "draw")  # a human action: idle again from now
    clock.advance(IDLE_TTL - 1)
    assert await recorder.next() == ("remind", game_of(session).to_act, None)
    assert recorder.notes.empty()
    clock.advance(1)
    assert await recorder.next() == ("idle",)
    assert session.status is Status.ABANDONED and sessions.get(CHANNEL) is None
    stored = await sessions.store.game(GUILD, session.game_id)
    assert stored is not None and stored["status"] == "abandoned"
    assert await sessions.store.standings(GUILD, "classic") == [], \
        "an abandoned game counts for nobody"


async def test_a_timer_firing_at_shutdown_finishes_its_step(
    sessions: Sessions, clock: ManualClock, tmp_path: Path
) -> None:
    """Shutdown cancels timers that wait, but one already firing commits its change first
    (cut in half, its commit would roll back while the session in memory had changed)."""
    session = await started(sessions)
    watch = sessions.timers._watches[CHANNEL]  # type: ignore[attr-defined]
    async with session.lock:  # the ping fires and waits for the session
        clock.advance(PING_AFTER)
        for _ in range(100):  # loop steps, not time: until the timer task is firing
            if not watch.waiting:
                break
            await asyncio.sleep(0)
        assert not watch.waiting
        closing = asyncio.ensure_future(sessions.timers.close())
        await asyncio.sleep(0)
        assert not closing.done(), "close waits for the step under way"
    await closing
    assert session.timers.reminded and watch.task.done()
    with sqlite3.connect(tmp_path / "lama.db") as conn:
        meta = conn.execute("SELECT meta FROM moves ORDER BY id DESC LIMIT 1").fetchone()
    assert meta is not None and json.loads(meta[0])["timers"]["reminded"], "committed too"
