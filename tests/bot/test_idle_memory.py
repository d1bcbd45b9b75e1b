"""Idle relaxed games are cheap (issue 31): 1,000 waiting games restored into one process
cost at most 20 KB each, and their deadlines still fire.

The games are in a real SQLite file (one started through the sessions API, the others its
snapshot; no Discord: their messages go to a courier that hands out message ids), then a
fresh set of sessions restores them as a restarted bot does (``restore_sessions``,
``resume``) while tracemalloc counts the bytes allocated and kept: deterministic, unlike the
RSS. The benchmark with 10,000 games, RSS included, is benchmarks/idle_games.py.
"""

from __future__ import annotations

import asyncio
import gc
import itertools
import json
import tracemalloc
import uuid
from pathlib import Path
from typing import Any

from bot.common.clock import ManualClock
from bot.policies.wiring import make_sessions
from bot.sessions.restore import restore_sessions, resume
from bot.sessions.sessions import Session, Sessions
from bot.sessions.state import DEFAULT_RELAXED_TIMEOUT, Pace
from bot.store.sqlite import SqliteStore

GAMES = 1_000
BUDGET = 20 * 1024  # bytes an idle relaxed game may keep (issue 31)
GUILD = 1
FIRST_CHANNEL = 10_000
FIRE_WAIT = 60.0  # an upper bound for every due timer to have fired, never a pause


class Counter:
    """The watchdog's announcer: counts the turns the bot played for a player; and the
    outbox's courier (every message "posted", with an id)."""

    def __init__(self, expected: int) -> None:
        self.played_for: set[int] = set()
        self.expected = expected
        self.all_fired = asyncio.Event()
        self._ids = itertools.count(1)

    async def deliver(self, item: Any, session: Any) -> int:
        return next(self._ids)

    async def remind(self, session: Session, seat: int, seconds_left: int | None) -> None:
        """(A reminder due before the deadline goes unsaid once the turn is over.)"""

    async def timed_out(self, session: Session, seat: int, events: list[Any],
                        handed_over: bool) -> None:
        self.played_for.add(session.channel_id)
        if len(self.played_for) == self.expected:
            self.all_fired.set()

    async def lobby_expired(self, session: Session) -> None:
        raise AssertionError("no lobby is waiting")

    async def abandoned_idle(self, session: Session) -> None:
        raise AssertionError("a waiting relaxed game is not idle for 30 days")


def wired(store: SqliteStore, clock: ManualClock, counter: Counter) -> Sessions:
    sessions = make_sessions(store, ai_delay=0, seed=None, clock=clock)
    sessions.timers.announcer = counter  # type: ignore[attr-defined]
    sessions.outbox.courier = counter.deliver
    return sessions


async def fill(store: SqliteStore, clock: ManualClock, games: int) -> None:
    """``games`` relaxed 3-player games, each waiting for its first player: one started
    through the sessions API, the others its snapshot under other channels, players and ids
    (a store filled directly, as a restarted bot finds it; 1,000 starts would take seconds)."""
    sessions = wired(store, clock, Counter(games))
    users = [3 * FIRST_CHANNEL + k for k in range(3)]
    session = await sessions.open(GUILD, FIRST_CHANNEL, (users[0], "p0"), "classic", {}, None,
                                  pace=Pace.RELAXED)
    for k, user in enumerate(users[1:], 1):
        await session.join(user, f"p{k}")
    await session.start(users[0])
    await sessions.publish(session)
    snapshot = session.snapshot()
    await sessions.close()
    for n in range(1, games):
        copy = json.loads(json.dumps(snapshot))
        channel = FIRST_CHANNEL + n
        copy["channel_id"], copy["game_id"] = channel, uuid.uuid4().hex
        copy["host_id"] = 3 * channel
        for k, seat in enumerate(copy["seats"]):
            seat["user_id"] = 3 * channel + k
        await store.save_session(GUILD, channel, copy)


async def test_a_thousand_waiting_relaxed_games_cost_at_most_20_kb_each_and_still_time_out(
        tmp_path: Path) -> None:
    clock = ManualClock()
    store = SqliteStore(str(tmp_path / "lama.db"))
    await store.open()
    try:
        await fill(store, clock, GAMES)
        counter = Counter(GAMES)
        sessions = wired(store, clock, counter)
        await restore_sessions(sessions, lambda guild_id: False)  # imports, first calls
        gc.collect()
        tracing = tracemalloc.is_tracing()
        if not tracing:
            tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            restored = await restore_sessions(sessions)
            await resume(sessions, restored)
            await store.flush_notes()
            gc.collect()
            kept = tracemalloc.get_traced_memory()[0] - before
        finally:
            if not tracing:
                tracemalloc.stop()
        assert len(restored) == len(sessions) == GAMES
        per_game = kept / GAMES
        assert 0 < per_game <= BUDGET, f"{per_game / 1024:.1f} KB per waiting game"

        # the deadlines still fire: a day later the bot has played every first turn
        turns = {s.channel_id: (s.game.to_act if s.game else None) for s in sessions}
        clock.advance(DEFAULT_RELAXED_TIMEOUT)
        await asyncio.wait_for(counter.all_fired.wait(), FIRE_WAIT)
        assert counter.played_for == set(turns)
        for session in sessions:
            assert session.game is not None and len(session.game.history) == 1
            assert session.game.to_act != turns[session.channel_id], "the next player's turn"
            assert session.timers.deadline == clock.now() + DEFAULT_RELAXED_TIMEOUT
        await sessions.close()
    finally:
        await store.close()


async def test_restored_games_share_their_actions_and_play_on_the_same(tmp_path: Path) -> None:
    """A waiting game keeps its history for days: equal actions are one object across games
    (bot/sessions/persistence.py's ``shared``), and the game restored is the game played."""
    clock = ManualClock()
    store = SqliteStore(str(tmp_path / "lama.db"))
    await store.open()
    try:
        sessions = wired(store, clock, Counter(1))
        users = [31, 32, 33]
        session = await sessions.open(GUILD, FIRST_CHANNEL, (users[0], "p0"), "classic", {},
                                      None, pace=Pace.RELAXED)
        for k, user in enumerate(users[1:], 1):
            await session.join(user, f"p{k}")
        await session.start(users[0])
        game = session.game
        assert game is not None
        for _ in range(6):
            seat = game.to_act
            assert seat is not None
            action = next(a for a in game.legal_actions() if str(a) != "quit")
            await session.act(users[seat], None, str(action))
        await sessions.publish(session)
        data = await store.session(GUILD, FIRST_CHANNEL)
        assert data is not None and len(data["moves"]) == 6, "move rows after the snapshot"
        first, second = (Session.restore(sessions, data) for _ in range(2))
        assert first.game is not None and second.game is not None
        assert first.game.history == second.game.history == game.history
        assert all(a is b for (_, a), (_, b) in zip(first.game.history, second.game.history,
                                                    strict=True))
        assert first.game.legal_actions() == game.legal_actions()
        await sessions.close()
    finally:
        await store.close()
