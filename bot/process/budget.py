"""One budget for the bot's requests outside interactions, so Discord never has to refuse them.

Discord allows a bot 50 requests per second in all, interaction answers and interaction-token
(webhook) requests apart; past that it answers 429, and 10,000 refusals in 10 minutes get the
bot banned for a while. 200 games moving about once a second each would ask for about 200
table edits a second. So every request that counts takes a slot of one budget
(:data:`PER_SECOND` a second, :data:`BURST` at once after a quiet spell), first come first
served, and a channel's owed messages wait for their slot *before* they are drawn
(:meth:`Budget.slot`, used by bot/sessions/outbox.py): the edit then shows the latest state, and the
moves made while it waited are merged into it (the outbox keeps only the newest table).

Slots are the plan; what counts is when requests leave. A loop that stalls (a busy core, a
long collection) wakes every request whose slot came meanwhile at once: sent together, they
would be a burst far past Discord's limit (up to 63 in one second were measured at 40 a second;
its 429s hold every request back for up to a second, then their retries go together again).
So each counted request also leaves no faster than the budget allows on the clock of its
actual sending (:meth:`Budget._leave`): late slots are spread out again, not bunched.

Discord's limit is per bot token, across every process that uses it: a bot run as several
processes (bot/cluster.py) gives each its share (:meth:`Budget.share`), so that together they
keep to what one process would.

A channel's message edits also share a bucket whose size Discord gives only in each
answer's headers; :meth:`Budget.slot` waits while discord.py has learnt that the channel's
bucket is spent, so an owed table is drawn after that wait rather than before it.

discord.py retries a request itself inside ``HTTPClient.request`` (after a 429, a 500-like
answer or a reset connection): every attempt counts against Discord's limit, so each retry
takes a slot and a place to leave like any other request (:meth:`Budget.sending`, asked by
the connector given to discord.py, public options both: aiohttp asks its connector for a
connection once per attempt), rather than leaving with the other retries the same 429 held
back, into the next 429.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import discord
from yarl import URL

PER_SECOND = 40.0  # of Discord's 50: room for what this process cannot see coming
BURST = 5
LATE = 0.002  # seconds a request may leave ahead of its place (a timer's rounding), not more
EXEMPT = ("/interactions/", "/webhooks/")  # not counted by Discord's global limit

_prepaid: contextvars.ContextVar[bool] = contextvars.ContextVar("lama_prepaid", default=False)


class _Attempts:
    """The counted request this task is making through discord.py: its attempts so far.

    A coroutine may go on in another task than the one it started in (cogs/timely.py runs an
    action's first steps in the caller's task): the caller's context then still holds this
    after the request, and its own requests (an interaction's deferral) reach the connector while
    it runs. So only the request's own sends are counted (its method and URL), and none once
    it is ``over``."""

    __slots__ = ("count", "method", "over", "url")

    def __init__(self, method: str, url: str) -> None:
        self.method, self.url = method.upper(), URL(url).with_query(None)
        self.count = 0
        self.over = False

    def sends(self, method: str, url: URL) -> bool:
        """Whether aiohttp is sending this request (again)."""
        return not self.over and method == self.method and url.with_query(None) == self.url


_attempts: contextvars.ContextVar[_Attempts | None] = contextvars.ContextVar(
    "lama_attempts", default=None)


class Budget:
    """Slots for the bot's global rate limit, handed out in order."""

    def __init__(self, per_second: float = PER_SECOND, burst: int = BURST,
                 clock: Callable[[], float] = time.monotonic,
                 http: discord.http.HTTPClient | None = None) -> None:
        self.interval = 1.0 / per_second
        self.burst = burst
        self.clock = clock
        self.http = http
        self._next = -float("inf")
        self._leaves = -float("inf")  # the same, for requests actually leaving
        self.waited = 0.0  # seconds requests spent waiting for a slot (the benchmark prints it)
        self.retries = 0  # attempts after a request's first (each took a slot of its own)

    @classmethod
    def share(cls, processes: int, per_second: float = PER_SECOND, burst: int = BURST,
              **kwargs: Any) -> Budget:
        """One of ``processes`` processes' budget: its part of the rate and of the burst
        (at least one request at once), so that all of them together stay within one's."""
        processes = max(1, processes)
        return cls(per_second / processes, max(1, burst // processes), **kwargs)

    def _reserve(self) -> float:
        """Take the next slot; how long until it comes."""
        now = self.clock()
        start = max(self._next, self._leaves, now - (self.burst - 1) * self.interval)
        self._next = start + self.interval  # (not before the requests still to leave: a
        return max(0.0, start - now)  # slot that came while they wait would draw too early)

    def _leave_wait(self) -> float:
        """The next place for a counted request to leave, taken: how long until it comes.
        The budget's rate and burst applied to the times requests actually leave, not to
        the slots planned (their holders may wake late, and together). Each takes its own
        place, in order, and sleeps once (no herd of waiters waking at every place)."""
        now = self.clock()
        start = max(self._leaves, now - (self.burst - 1) * self.interval)
        self._leaves = start + self.interval
        return start - now if start > now + LATE else 0.0

    async def _leave(self) -> None:
        await self._global_lock()
        wait = self._leave_wait()
        if wait > 0:
            self.waited += wait
            await asyncio.sleep(wait)

    async def _global_lock(self) -> None:
        """After a global 429 discord.py holds every new request until its retry time, then
        lets them all go at once (into the next 429). They wait here instead, and then take
        their places to leave, in order, spaced. (discord.py's HTTP client keeps the lock;
        read, never changed.)"""
        over = getattr(self.http, "_global_over", None)
        if isinstance(over, asyncio.Event) and not over.is_set():
            await over.wait()

    async def take(self) -> None:
        wait = self._reserve()
        if wait > 0:
            self.waited += wait
            await asyncio.sleep(wait)

    async def slot(self, channel_id: int) -> None:
        """Wait for this channel's next request (its bucket, then the global budget); the next
        request of this task then goes at once (it is paid for)."""
        wait = self._channel_wait(channel_id)
        if wait > 0:
            self.waited += wait
            await asyncio.sleep(wait)
        await self.take()
        _prepaid.set(True)

    def _channel_wait(self, channel_id: int) -> float:
        """How long discord.py would hold an edit in this channel: its bucket for the route,
        as the last answers' headers described it (0 when spent buckets are not known).
        (discord.py keeps these in its HTTP client; read, never changed.)"""
        if self.http is None:
            return 0.0
        route = discord.http.Route("PATCH", "/channels/{channel_id}/messages/{message_id}",
                                   channel_id=channel_id, message_id=0)
        try:
            known = self.http._bucket_hashes.get(route.key) or route.key
            bucket = self.http._buckets.get(f"{known}:{route.major_parameters}")
            if bucket is None or bucket.remaining > 0 or bucket.expires is None:
                return 0.0
            return max(0.0, bucket.expires - asyncio.get_running_loop().time())
        except AttributeError:  # another discord.py: rely on its own waiting
            return 0.0

    def settle(self) -> None:
        """The owed message was delivered (or needed no request): nothing is paid for any more."""
        _prepaid.set(False)

    def wrap(self, request: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        """discord.py's ``HTTPClient.request``, each counted request taking a slot first (its
        retries inside discord.py take theirs in :meth:`sending`)."""

        async def paced(route: Any, *args: Any, **kwargs: Any) -> Any:
            if route.path.startswith(EXEMPT):
                return await request(route, *args, **kwargs)
            if _prepaid.get():
                _prepaid.set(False)
            else:
                await self.take()
            await self._leave()
            attempts = _Attempts(route.method, route.url)
            _attempts.set(attempts)
            try:
                return await request(route, *args, **kwargs)
            finally:  # (not a reset of the variable: this may be another task's context)
                attempts.over = True
                _attempts.set(None)

        return paced

    def install(self, http: discord.http.HTTPClient) -> None:
        """Pace ``http``'s requests (its ``request`` wrapped); their retries are paced by the
        connector :meth:`connector` makes, given to ``http`` before it logs in."""
        http.request = self.wrap(http.request)  # type: ignore[method-assign]

    def connector(self) -> aiohttp.BaseConnector:
        """The connector discord.py would make (``TCPConnector(limit=0)``; in the running
        loop), which asks :meth:`sending` before each attempt's connection."""
        return _PacedConnector(self)

    async def sending(self, method: str, url: URL) -> None:
        """aiohttp is about to send a request (its connector is asked for a connection,
        once per attempt). The first attempt of a counted one has its slot and its place
        (:meth:`wrap`); a retry, discord.py's, takes both again, after a global 429 behind
        discord.py's lock like any new request. Requests that are not counted (interaction
        answers, webhooks, the gateway) pass."""
        attempts = _attempts.get()
        if attempts is None or not attempts.sends(method, url):
            return
        attempts.count += 1
        if attempts.count == 1:
            return
        self.retries += 1
        await self.take()
        await self._leave()


class _PacedConnector(aiohttp.TCPConnector):
    """discord.py's own connector, asking the budget before each attempt's connection: aiohttp
    asks its connector once per attempt, and discord.py retries inside its ``request``.
    (A trace config's request-start hook would do it too, but a session with one dispatches
    aiohttp's every trace signal on every request: about 20 µs each, 2% of a move.)"""

    def __init__(self, budget: Budget) -> None:
        super().__init__(limit=0)
        self.budget = budget

    async def connect(self, req: aiohttp.ClientRequest, traces: list[Any],
                      timeout: aiohttp.ClientTimeout) -> Any:
        await self.budget.sending(req.method, req.url)
        return await super().connect(req, traces, timeout)
