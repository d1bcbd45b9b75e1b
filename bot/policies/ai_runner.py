"""AI turns: the AIs of a session act by themselves, one step after a delay.

A policy over sessions (it imports :mod:`bot.sessions.sessions`, never the reverse): the
sessions wake it after each publish (:class:`bot.sessions.sessions.AiTurns`). Easy and
normal players (bot/sessions/ai_players.py) decide in microseconds to a few milliseconds,
in the bot's process. A player that searches (``thinks``) decides in a process
pool (``LAMA_AI_WORKERS`` processes), so its tenth of a second of CPU never holds
up the event loop: other channels' clicks are answered meanwhile. Its decision is
a pure function of its seed and the view, so where it runs does not change what it
plays.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import os
from concurrent.futures.process import BrokenProcessPool

from bot.sessions.ai_players import Player, make_player, thinks
from bot.sessions.ai_players import (
    RandomLegal as RandomLegal,  # (re-exported, as it was defined here)
)
from bot.sessions.sessions import Session, Sessions
from game import Action, PlayerView

log = logging.getLogger(__name__)


class AiRunner:
    """One task per session while an AI is to act; each step waits ``delay`` seconds."""

    def __init__(self, sessions: Sessions, delay: float, workers: int = 1) -> None:
        self.sessions = sessions
        self.delay = delay
        self.workers = workers
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self._starting = asyncio.Lock()
        self._pausing: set[asyncio.Task[None]] = set()  # loops in their delay, between steps
        self.closing = False

    async def choose(self, player: Player, view: PlayerView) -> Action:
        """``player``'s choice: in the pool if it thinks (and there is a pool), else here."""
        if not thinks(player) or self.workers <= 0:
            return player.choose(view)
        loop = asyncio.get_running_loop()
        try:
            pool = self._pool
            if pool is None:
                async with self._starting:  # one pool, started off the event loop's thread
                    if self._pool is None:
                        self._pool = await asyncio.to_thread(self._new_pool)
                    pool = self._pool
            return await loop.run_in_executor(pool, player.choose, view)
        except BrokenProcessPool:
            log.exception("the AI pool broke; a new one starts, this move is the heuristic's")
            self._pool = None
            return make_player("fallback").choose(view)

    def _new_pool(self) -> concurrent.futures.ProcessPoolExecutor:
        """A pool with its workers running (in a thread: starting the forkserver and the
        workers takes most of a second, which the event loop must not wait through)."""
        # forkserver: workers start from a clean process, not a fork of the event
        # loop's threads (aiosqlite's, discord.py's); the engine is imported once.
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["game.ai"])
        pool = concurrent.futures.ProcessPoolExecutor(
            self.workers, context, initializer=_set_up_worker)
        pool.submit(_ready).result()  # the workers exist before the first decision
        return pool

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
        for task in tasks:
            if task in self._pausing:  # between steps: nothing is cut in half
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        pool, self._pool = self._pool, None
        if pool is not None:  # waits for a decision under way, without blocking the loop
            await asyncio.to_thread(pool.shutdown, True, cancel_futures=True)

    async def _pause(self) -> None:
        """The AI's thinking delay; a shutdown does not wait it out."""
        task = asyncio.current_task()
        assert task is not None
        self._pausing.add(task)  # type: ignore[arg-type]
        try:
            await asyncio.sleep(self.delay)
        finally:
            self._pausing.discard(task)  # type: ignore[arg-type]

    async def _run(self, session: Session) -> None:
        try:
            while session.ai_to_act() is not None and not self.closing:
                await self._pause()
                if self.closing or not await session.ai_step():
                    break
                await self.sessions.publish(session, wait=False)  # never on the channel
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("AI loop of channel %s failed", session.channel_id)


def _set_up_worker() -> None:
    """A pool worker yields the CPU to the bot's process: a click is answered first,
    an AI's thinking waits (it has a deadline, not a hurry). Its start-up heap is frozen
    (``game.ai.settle_heap``): a full collection in a decision's middle no longer walks
    the modules' objects."""
    try:
        os.nice(10)
    except OSError:  # not allowed here: thinking at the same priority still works
        log.debug("could not lower the AI worker's priority")
    from game.ai import settle_heap

    settle_heap()


def _ready() -> bool:
    return True
