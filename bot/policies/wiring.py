"""The sessions with the policies that act on them: AI turns and timers.

:mod:`bot.sessions.sessions` knows its policies only by the protocols it declares
(:class:`~bot.sessions.AiTurns`, :class:`~bot.sessions.Timers`); the policies
(bot/policies/ai_runner.py, bot/policies/timers.py, bot/policies/takeover.py) import the sessions.
This wires
them together, for the bot (bot/process/client.py), the tests and the benchmarks.
"""

from __future__ import annotations

from bot.common.clock import Clock
from bot.policies.ai_runner import AiRunner
from bot.policies.timers import DEFAULT_PING_DELAY, DEFAULT_PING_PART, Watchdog
from bot.sessions.sessions import Sessions
from bot.store.sqlite import Store


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
