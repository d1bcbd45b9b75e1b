"""The sessions with the policies that act on them: AI turns and timers.

:mod:`bot.sessions` knows its policies only by the protocols it declares
(:class:`~bot.sessions.AiTurns`, :class:`~bot.sessions.Timers`); the policies
(bot/ai_runner.py, bot/timers.py, bot/takeover.py) import the sessions. This wires
them together, for the bot (bot/client.py), the tests and the benchmarks.
"""

from __future__ import annotations

from bot.ai_runner import AiRunner
from bot.clock import Clock
from bot.sessions import Sessions
from bot.store import Store
from bot.timers import DEFAULT_PING_DELAY, DEFAULT_PING_PART, Watchdog


def make_sessions(
    store: Store,
    *,
    ai_delay: float,
    seed: str | None,
    clock: Clock | None = None,
    ai_workers: int = 1,
    ping_delay: float = DEFAULT_PING_DELAY,
    ping_part: float = DEFAULT_PING_PART,
) -> Sessions:
    """Sessions whose AIs play by themselves (after ``ai_delay`` seconds) and whose timers run."""
    sessions = Sessions(store, seed=seed, clock=clock)
    sessions.ai = AiRunner(sessions, ai_delay, ai_workers)
    sessions.timers = Watchdog(sessions, sessions.clock, ping_delay, ping_part)
    return sessions
