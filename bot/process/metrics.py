"""Health and metrics over HTTP (``LAMA_METRICS_ADDR``, e.g. ``127.0.0.1:9108``; unset: off).

``/healthz`` answers 200 ``ok``, or 503 with one reason a line: the gateway not ready on one
of this process's shards, the store refusing a write, the outbox holding a message for longer
than :data:`STUCK_AFTER`. ``/metrics`` is Prometheus's text format (``prometheus-client``),
on a registry of the bot's own: with metrics off this module is not even imported, nothing
is registered and no port is opened.

Cost on the hot path is a counter or a histogram observation where something happens (a
transaction, a request, an answer, an AI decision); everything that can be read when
Prometheus asks (games running, the outbox's backlog, time waited on the request budget,
gateway latencies) is read then, by :class:`_Pulled`. Labels are bounded: rule set, route
template (``/channels/{channel_id}/messages``), method, shard, kind; never an id.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import re
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any, TypeVar

import aiohttp
import discord
from aiohttp import web
from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from yarl import URL

from bot.process.logs import command_started
from bot.process.settings import Unusable, parse_addr
from bot.sessions.state import Status

if TYPE_CHECKING:
    from bot.process.client import LamaBot

log = logging.getLogger(__name__)

T = TypeVar("T")
STUCK_AFTER = 120.0  # seconds an owed message may wait (retries back off to 30 s) before 503
STORE_CHECK_TIMEOUT = 5.0
LAG_EVERY = 0.5  # seconds between event-loop lag samples
FAST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
ANSWER = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0)

_SNOWFLAKE = re.compile(r"/\d{5,}(?=/|$)")
_TOKEN = re.compile(r"^(/(?:interactions|webhooks)/\{id\})/[^/]+")


def route_template(path: str) -> str:
    """A request path as a bounded label: the API version, ids and tokens left out
    (``/interactions/{id}/{token}/callback``), never an id or a credential."""
    path = re.sub(r"^/api(/v\d+)?", "", path)
    path = _SNOWFLAKE.sub("/{id}", path)
    return _TOKEN.sub(r"\1/{token}", path)


# the request discord.py's client is making in this task: its route template, method and URL
# (a coroutine may go on in another task, cogs/timely.py: the context it left keeps this, so
# a request is labelled by it only when it is that request)
_route: contextvars.ContextVar[tuple[str, str, URL] | None] = contextvars.ContextVar(
    "lama_route", default=None)

METRIC_NAMES = (
    "lama_games_running", "lama_games_finished_total", "lama_interaction_seconds",
    "lama_rest_requests_total", "lama_rest_429_total", "lama_budget_wait_seconds_total",
    "lama_budget_retries_total",
    "lama_outbox_backlog", "lama_outbox_oldest_seconds", "lama_store_transaction_seconds",
    "lama_ai_think_seconds", "lama_gateway_latency_seconds", "lama_event_loop_lag_seconds",
)


class Metrics:
    """The bot's metrics and health checks (see the module docstring)."""

    def __init__(self, bot: LamaBot) -> None:
        self.bot = bot
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.finished = Counter("lama_games_finished", "Games ended, by rule set and status "
                                "(finished, abandoned)", ["variant", "status"], registry=r)
        self.answers = Histogram("lama_interaction_seconds", "Interactions answered "
                                 "(commands, clicks): seconds from start to answered",
                                 ["kind"], buckets=ANSWER, registry=r)
        self.requests = Counter("lama_rest_requests", "REST requests through discord.py's "
                                "client, by method and route template", ["method", "route"],
                                registry=r)
        self.refused = Counter("lama_rest_429", "REST answers 429 (rate limited), by route "
                               "template", ["route"], registry=r)
        self.transactions = Histogram("lama_store_transaction_seconds", "Store write "
                                      "transactions, seconds each", buckets=FAST, registry=r)
        self.thinking = Histogram("lama_ai_think_seconds", "AI decisions, seconds each",
                                  buckets=FAST, registry=r)
        self.lag = Histogram("lama_event_loop_lag_seconds", "How late the event loop woke "
                             "a sleeper sampled every 0.5 s", buckets=FAST, registry=r)
        r.register(_Pulled(self))
        self._first_seen: dict[int, float] = {}  # id(owed item) -> monotonic time first seen
        self.oldest_owed = 0.0
        self._sampler: asyncio.Task[None] | None = None
        self.port: int | None = None  # bound (LAMA_METRICS_ADDR may ask for port 0)

    # ---- instrumenting (before the bot logs in) ---------------------------
    def install(self) -> None:
        """Count where things happen: wrappers on the bot's instances, no module patched."""
        bot = self.bot
        store: Any = bot.store
        store._transact = self._timed(store._transact, self.transactions)
        store.write = self._counting_finishes(store.write)
        ai: Any = bot.sessions.ai
        if hasattr(ai, "choose"):
            ai.choose = self._timed(ai.choose, self.thinking)
        bot.http.request = self._rest(bot.http.request)  # type: ignore[method-assign]
        trace = bot.http.http_trace or aiohttp.TraceConfig()
        trace.on_request_end.append(self._response)
        bot.http.http_trace = trace  # (discord.py's public hook: its session is made at login)
        bot.remove_listener(bot.clicks.answer, "on_interaction")
        bot.add_listener(self._timed_click(bot.clicks.answer), "on_interaction")
        bot.add_listener(self._command_done, "on_app_command_completion")

    @staticmethod
    def _timed(work: Callable[..., Awaitable[T]], histogram: Histogram
               ) -> Callable[..., Awaitable[T]]:
        async def timed(*args: Any, **kwargs: Any) -> T:
            start = time.perf_counter()
            try:
                return await work(*args, **kwargs)
            finally:
                histogram.observe(time.perf_counter() - start)
        return timed

    def _counting_finishes(self, write: Callable[[Any], Awaitable[None]]
                           ) -> Callable[[Any], Awaitable[None]]:
        async def counted(change: Any) -> None:
            await write(change)
            if change.finish is not None:
                status = "abandoned" if change.finish.get("results") is None else "finished"
                self.finished.labels(str(change.finish["game"]["variant"]), status).inc()
        return counted

    def _rest(self, request: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def counted(route: discord.http.Route, *args: Any, **kwargs: Any) -> Any:
            self.requests.labels(route.method, route.path).inc()
            _route.set((route.path, route.method.upper(), URL(route.url).with_query(None)))
            try:
                return await request(route, *args, **kwargs)
            finally:  # (not a reset of the variable: this may be another task's context)
                _route.set(None)
        return counted

    async def _response(self, _session: object, _context: object,
                        params: aiohttp.TraceRequestEndParams) -> None:
        own = _route.get()
        if own is not None and own[1:] == (params.method, params.url.with_query(None)):
            route = own[0]
        else:  # an interaction's answer or a webhook: discord.py's webhook adapter, not its
            route = route_template(params.url.path)  # HTTP client
            self.requests.labels(params.method, route).inc()
        if params.response.status == 429:
            self.refused.labels(route).inc()

    def _timed_click(self, answer: Callable[[discord.Interaction], Awaitable[None]]
                     ) -> Callable[[discord.Interaction], Awaitable[None]]:
        histogram = self.answers.labels("component")

        async def on_interaction(interaction: discord.Interaction) -> None:
            if interaction.type is not discord.InteractionType.component:
                await answer(interaction)  # (commands: timed by _command_done)
                return
            start = time.perf_counter()
            await answer(interaction)
            if interaction.response.is_done():
                histogram.observe(time.perf_counter() - start)
        return on_interaction

    async def _command_done(self, interaction: discord.Interaction, _command: object) -> None:
        started = command_started()  # (this task's context is a copy of the command's)
        if started is not None:
            self.answers.labels("command").observe(time.perf_counter() - started)

    # ---- sampling ----------------------------------------------------------
    async def _sample(self) -> None:
        """Forever: the event loop's lag, and how long the oldest owed message has waited."""
        loop = asyncio.get_running_loop()
        while True:
            before = loop.time()
            await asyncio.sleep(LAG_EVERY)
            self.lag.observe(max(0.0, loop.time() - before - LAG_EVERY))
            self._watch_outbox(time.monotonic())

    def owed(self) -> list[object]:
        outbox = self.bot.sessions.outbox
        return [item for c in outbox.owed_channels() for item in outbox.pending(c)]

    def _watch_outbox(self, now: float) -> None:
        present = {id(item) for item in self.owed()}
        seen = {key: t for key, t in self._first_seen.items() if key in present}
        for key in present:
            seen.setdefault(key, now)
        self._first_seen = seen
        self.oldest_owed = now - min(seen.values()) if seen else 0.0

    # ---- health ------------------------------------------------------------
    async def problems(self) -> list[str]:
        """Why the bot is not healthy (none: it is)."""
        bot, found = self.bot, []
        if not bot.is_ready():
            found.append("gateway: not ready")
        expected: Iterable[int] = bot.shard_ids or range(bot.shard_count or 1)
        for shard_id in expected:
            shard = bot.get_shard(shard_id)
            if shard is None or shard.is_closed():
                found.append(f"gateway: shard {shard_id} not connected")
        try:
            await asyncio.wait_for(bot.store.set_app_value("health_check", str(time.time())),
                                   STORE_CHECK_TIMEOUT)
        except Exception as error:
            found.append(f"store: not writable ({type(error).__name__}: {error})")
        self._watch_outbox(time.monotonic())
        if self.oldest_owed > STUCK_AFTER:
            found.append(f"outbox: {len(self._first_seen)} messages owed, the oldest for "
                         f"{self.oldest_owed:.0f} s")
        return found

    async def _healthz(self, _request: web.Request) -> web.Response:
        found = await self.problems()
        if found:
            return web.Response(status=503, text="\n".join(found) + "\n")
        return web.Response(text="ok\n")

    async def _metrics(self, _request: web.Request) -> web.Response:
        body = generate_latest(self.registry)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    @contextlib.asynccontextmanager
    async def serving(self, host: str, port: int) -> AsyncIterator[int]:
        """Serve ``/healthz`` and ``/metrics`` on the running loop; yields the bound port."""
        app = web.Application()
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/metrics", self._metrics)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        try:
            try:  # our socket: its port is known (port 0 too)
                sock = socket.create_server((host, port))
            except OSError as error:
                raise Unusable(f"Cannot serve metrics at {host}:{port} ({error}): check "
                               "LAMA_METRICS_ADDR") from error
            await web.SockSite(runner, sock).start()
            bound = int(sock.getsockname()[1])
            self._sampler = asyncio.create_task(self._sample(), name="lama-metrics-sampler")
            log.info("health and metrics on http://%s:%d/ (/healthz, /metrics)", host, bound)
            yield bound
        finally:
            if self._sampler is not None:
                self._sampler.cancel()
            await runner.cleanup()


class _Pulled:
    """What is read when Prometheus asks rather than counted as it happens."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def describe(self) -> list[Metric]:
        return []

    def collect(self) -> Iterable[Metric]:
        bot = self.metrics.bot
        running = GaugeMetricFamily("lama_games_running", "Games being played, by rule set",
                                    labels=["variant"])
        counts: dict[str, int] = {}
        for session in bot.sessions:
            if session.status is Status.PLAYING:
                counts[session.variant] = counts.get(session.variant, 0) + 1
        for variant, count in sorted(counts.items()):
            running.add_metric([variant], count)
        yield running
        yield CounterMetricFamily("lama_budget_wait_seconds", "Seconds requests waited for a "
                                  "slot of the request budget or their channel's bucket",
                                  value=bot.budget.waited)
        yield CounterMetricFamily("lama_budget_retries", "discord.py's own retries of "
                                  "counted requests (after a 429, a 5xx, a reset connection), "
                                  "each of which took a slot of the budget",
                                  value=bot.budget.retries)
        yield GaugeMetricFamily("lama_outbox_backlog", "Messages owed to channels, not yet "
                                "delivered", value=len(self.metrics.owed()))
        yield GaugeMetricFamily("lama_outbox_oldest_seconds", "How long the oldest owed "
                                "message has waited", value=self.metrics.oldest_owed)
        latency = GaugeMetricFamily("lama_gateway_latency_seconds", "Heartbeat round trip, "
                                    "by shard", labels=["shard"])
        for shard_id, seconds in bot.latencies:
            if seconds == seconds and seconds != float("inf"):  # (nan, inf before a heartbeat)
                latency.add_metric([str(shard_id)], seconds)
        yield latency


@contextlib.asynccontextmanager
async def serving_metrics(bot: LamaBot, addr: str) -> AsyncIterator[Metrics]:
    """Instrument ``bot`` and serve its health and metrics at ``addr`` while it runs."""
    metrics = Metrics(bot)
    metrics.install()
    host, port = parse_addr(addr)
    async with metrics.serving(host, port) as bound:
        metrics.port = bound
        yield metrics
