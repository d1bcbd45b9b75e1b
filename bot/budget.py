"""One budget for the bot's requests outside interactions, so Discord never has to refuse them.

Discord allows a bot 50 requests per second in all, interaction answers and interaction-token
(webhook) requests apart; past that it answers 429, and 10,000 refusals in 10 minutes get the
bot banned for a while. 200 games moving about once a second each would ask for about 200
table edits a second. So every request that counts takes a slot of one budget
(:data:`PER_SECOND` a second, :data:`BURST` at once after a quiet spell), first come first
served, and a channel's owed messages wait for their slot *before* they are drawn
(:meth:`Budget.slot`, used by bot/outbox.py): the edit then shows the latest state, and the
moves made while it waited are merged into it (the outbox keeps only the newest table).

A channel's messages also share a bucket Discord does not publish; bot libraries observe
5 per 5 seconds (:data:`CHANNEL_LIMIT`), which :meth:`Budget.slot` keeps to for the owed
messages, so they wait before they are drawn rather than inside discord.py after. Whatever the
real buckets are, discord.py still honours the rate-limit headers of every answer.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

PER_SECOND = 40.0  # of Discord's 50: room for what this process cannot see coming
BURST = 5
CHANNEL_LIMIT = (5, 5.0)  # requests per seconds, per channel (observed, not documented)
EXEMPT = ("/interactions/", "/webhooks/")  # not counted by Discord's global limit

_prepaid: contextvars.ContextVar[bool] = contextvars.ContextVar("lama_prepaid", default=False)


class Budget:
    """Slots for the bot's global rate limit, handed out in order."""

    def __init__(self, per_second: float = PER_SECOND, burst: int = BURST,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = 1.0 / per_second
        self.burst = burst
        self.clock = clock
        self._next = -float("inf")
        self._channels: dict[int, deque[float]] = {}
        self.waited = 0.0  # seconds requests spent waiting for a slot (the benchmark prints it)

    def _reserve(self) -> float:
        """Take the next slot; how long until it comes."""
        now = self.clock()
        start = max(self._next, now - (self.burst - 1) * self.interval)
        self._next = start + self.interval
        return max(0.0, start - now)

    async def take(self) -> None:
        wait = self._reserve()
        if wait > 0:
            self.waited += wait
            await asyncio.sleep(wait)

    async def slot(self, channel_id: int) -> None:
        """Wait for this channel's next request (its bucket, then the global budget); the next
        request of this task then goes at once (it is paid for)."""
        limit, window = CHANNEL_LIMIT
        recent = self._channels.setdefault(channel_id, deque(maxlen=limit))
        now = self.clock()
        if len(recent) == limit and now - recent[0] < window:
            wait = window - (now - recent[0])
            self.waited += wait
            await asyncio.sleep(wait)
        await self.take()
        recent.append(self.clock())
        _prepaid.set(True)

    def settle(self) -> None:
        """The owed message was delivered (or needed no request): nothing is paid for any more."""
        _prepaid.set(False)

    def forget(self, channel_id: int) -> None:
        self._channels.pop(channel_id, None)

    def wrap(self, request: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        """discord.py's ``HTTPClient.request``, each counted request taking a slot first."""

        async def paced(route: Any, *args: Any, **kwargs: Any) -> Any:
            if not route.path.startswith(EXEMPT):
                if _prepaid.get():
                    _prepaid.set(False)
                else:
                    await self.take()
            return await request(route, *args, **kwargs)

        return paced
