"""AI seats: build a player for a seat, and let AIs act by themselves after a delay."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Protocol

from game import Action, PlayerView, rng

if TYPE_CHECKING:
    from bot.sessions import Session, Sessions

log = logging.getLogger(__name__)

AI_NAME = "heuristic"


class Player(Protocol):
    """What game.ai's players offer."""

    def choose(self, view: PlayerView) -> Action: ...


class RandomLegal:
    """Fallback player: a seeded random legal action (used if game.ai is missing)."""

    def __init__(self, seed: int | str) -> None:
        self._random = rng.chooser(seed, "bot-fallback")

    def choose(self, view: PlayerView) -> Action:
        return self._random.choice(view.legal)


def make_player(seed: int | str) -> Player:
    """The engine's heuristic AI, or the random fallback if game.ai is not available."""
    try:
        from game import ai
    except ImportError:
        return RandomLegal(seed)
    find = getattr(ai, "find", None)
    if find is None:
        return RandomLegal(seed)
    try:
        player: Player = find(AI_NAME)(seed)
    except (KeyError, ValueError, LookupError):
        log.warning("game.ai has no %r player; using random legal moves", AI_NAME)
        return RandomLegal(seed)
    return player


class AiRunner:
    """One task per session while an AI is to act; each step waits ``delay`` seconds."""

    def __init__(self, sessions: Sessions, delay: float) -> None:
        self.sessions = sessions
        self.delay = delay
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self.closing = False

    def wake(self, session: Session) -> None:
        """Start the session's AI loop if an AI is to act and no loop runs."""
        task = self._tasks.get(session.channel_id)
        if self.closing:
            return
        if (task is None or task.done()) and session.ai_to_act() is not None:
            self._tasks[session.channel_id] = asyncio.create_task(
                self._run(session), name=f"lama-ai-{session.channel_id}"
            )

    def cancel(self, channel_id: int) -> None:
        task = self._tasks.pop(channel_id, None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    async def close(self) -> None:
        """Stop: each loop ends after the step it is taking (a step is never cut in half)."""
        self.closing = True
        tasks = list(self._tasks.values())
        self._tasks.clear()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _run(self, session: Session) -> None:
        try:
            while session.ai_to_act() is not None and not self.closing:
                await asyncio.sleep(self.delay)
                if self.closing or not await session.ai_step():
                    break
                await self.sessions.publish(session)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("AI loop of channel %s failed", session.channel_id)
