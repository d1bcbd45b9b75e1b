"""Time the bot can be told: a real clock for production, a manual one for tests.

Deadlines are wall-clock seconds (``time.time()`` scale) so they survive a
restart in the session snapshot. Tests use :class:`ManualClock`, whose
:meth:`ManualClock.advance` wakes the waiters whose deadline has come, in
deadline order, without anybody really sleeping.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from typing import Protocol

MAX_NAP = 60.0  # the real clock re-checks the wall clock at least this often


class Clock(Protocol):
    """What the bot's timers need from time."""

    def now(self) -> float:
        """Seconds since the epoch."""
        ...

    async def sleep_until(self, deadline: float) -> None:
        """Return once ``now() >= deadline`` (at once if it already is)."""
        ...


class SystemClock:
    """The real clock: wall time, waited for with the event loop's timer."""

    def now(self) -> float:
        return time.time()

    async def sleep_until(self, deadline: float) -> None:
        # Short naps: a wall clock that jumps (NTP, suspend) is noticed within MAX_NAP.
        while (remaining := deadline - self.now()) > 0:
            await asyncio.sleep(min(remaining, MAX_NAP))


class ManualClock:
    """A clock that moves only when told; ``advance`` wakes due waiters in deadline order."""

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self._now = start
        self._order = itertools.count()
        self._waiters: list[tuple[float, int, asyncio.Future[None]]] = []

    def now(self) -> float:
        return self._now

    async def sleep_until(self, deadline: float) -> None:
        if deadline <= self._now:
            await asyncio.sleep(0)  # still a suspension point, like a real timer firing
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiters, (deadline, next(self._order), future))
        await future

    def advance(self, seconds: float) -> None:
        """Move time forward by ``seconds`` and wake every waiter now due, earliest first."""
        if seconds < 0:
            raise ValueError("time does not go backwards")
        self._now += seconds
        while self._waiters and self._waiters[0][0] <= self._now:
            _, _, future = heapq.heappop(self._waiters)
            if not future.done():
                future.set_result(None)

    @property
    def waiting(self) -> int:
        """How many sleepers are still waiting (cancelled ones excluded)."""
        return sum(1 for _, _, f in self._waiters if not f.done())
