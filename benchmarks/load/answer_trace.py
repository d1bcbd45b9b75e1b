"""Where an answer's time goes (``bot_load.py --trace``): timestamps on both sides of the wire.

The bot runs as ``python -m benchmarks.load.answer_trace`` instead of ``python -m bot``: the same
``bot.__main__.main()``, with wrappers that stamp each interaction on the way through (gateway
frame read, interaction parsed, handler start, session lock taken, store write, action done,
type-7 answer posted and its HTTP answer back), plus the event loop's lag (a probe task) and
every garbage collection (``gc.callbacks``); on ``SIGUSR1`` (the harness sends it at the end
of the run) it writes them to ``LAMA_TRACE_FILE``. The
harness stamps the same interactions on its side (click, gateway frame written, the fake's
callback route reached, the player resumed) and its own loop lag and collections;
benchmarks/load/answer_report.py joins the two.
Both sides read ``time.perf_counter()`` (CLOCK_MONOTONIC on Linux: one clock for every process
of the machine), so the segments join by interaction id. Nothing here runs unless asked for:
``python -m bot`` is never patched.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import gc
import json
import os
import signal
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PROBE_EVERY = 0.005  # seconds between the loop-lag probe's wake-ups
now = time.perf_counter
current: contextvars.ContextVar[int | None] = contextvars.ContextVar("traced", default=None)


class GcTimer:
    """Every collection's generation and duration (``gc.callbacks``)."""

    def __init__(self) -> None:
        # (start, generation, seconds, of which on a core)
        self.pauses: list[tuple[float, int, float, float]] = []
        self._start = self._cpu = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start, self._cpu = now(), time.thread_time()
        else:
            self.pauses.append((self._start, info["generation"], now() - self._start,
                                time.thread_time() - self._cpu))

    def install(self) -> GcTimer:
        gc.callbacks.append(self)
        return self


def _schedstat() -> tuple[float, float]:
    """This thread's time on a core and waiting for one, so far (seconds; Linux)."""
    try:
        with open("/proc/thread-self/schedstat") as f:
            ran, waited, _ = f.read().split()
        return int(ran) / 1e9, int(waited) / 1e9
    except (OSError, ValueError):
        return 0.0, 0.0


async def probe_loop(lags: list[tuple[float, float]],
                     sched: list[tuple[float, float, float]] | None = None) -> None:
    """How late the loop wakes a task that asked to sleep :data:`PROBE_EVERY` (kept > 1 ms),
    and (``sched``) the loop thread's time waiting for a core at each wake-up: the share of
    a lag that is the machine's, not the process's."""
    while True:
        start = now()
        if sched is not None:
            sched.append((start, *_schedstat()))
        await asyncio.sleep(PROBE_EVERY)
        late = now() - start - PROBE_EVERY
        if late > 0.001:
            lags.append((start, late))


def _stamp(stamps: dict[int, dict[str, float]], iid: int | None, key: str) -> None:
    if iid is not None:
        stamps.setdefault(iid, {}).setdefault(key, now())


def install_bot(stamps: dict[int, dict[str, float]], waits: list[tuple[int, str, float]],
                holds: list[tuple[float, str, float, int]],
                hops: list[tuple[float, float, float, float]]) -> None:
    """Wrap the bot's path from gateway frame to type-7 answer (before the bot is built)."""
    import discord.gateway
    import discord.state
    import discord.webhook.async_ as webhook

    import bot.process.budget
    import bot.sessions.sessions
    import bot.store.sqlite
    import cogs.buttons
    import cogs.timely

    frame = {"t": 0.0}
    received = discord.gateway.DiscordWebSocket.received_message

    async def received_message(self: Any, msg: Any, /) -> None:
        frame["t"] = now()
        await received(self, msg)

    discord.gateway.DiscordWebSocket.received_message = received_message  # type: ignore

    parse = discord.state.ConnectionState.parse_interaction_create

    def parse_interaction_create(self: Any, data: Any) -> None:
        iid = int(data["id"])
        stamps.setdefault(iid, {}).update(frame=frame["t"], parse=now())
        parse(self, data)

    discord.state.ConnectionState.parse_interaction_create = parse_interaction_create  # type: ignore

    route = cogs.buttons.route

    async def traced_route(interaction: Any, cog: str, method: str, *args: Any) -> None:
        current.set(interaction.id)
        _stamp(stamps, interaction.id, "handler")
        await route(interaction, cog, method, *args)

    cogs.buttons.route = traced_route

    in_time = cogs.timely.in_time  # (patched at its source: discord.py loads each extension
    # as a fresh module, which imports it from there)

    async def traced_in_time(interaction: Any, work: Any) -> Any:
        try:
            return await in_time(interaction, work)
        finally:
            _stamp(stamps, interaction.id, "acted")

    cogs.timely.in_time = traced_in_time

    def before(cls: Any, name: str, key: str) -> None:
        original = getattr(cls, name)

        @functools.wraps(original)
        async def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
            _stamp(stamps, current.get(), key)
            return await original(self, *args, **kwargs)

        setattr(cls, name, wrapped)

    before(bot.sessions.sessions.Session, "act", "act")
    before(bot.sessions.sessions.Session, "_apply", "locked")
    write = bot.store.sqlite.SqliteStore.write

    async def traced_write(self: Any, change: Any) -> None:
        _stamp(stamps, current.get(), "write")
        await write(self, change)
        _stamp(stamps, current.get(), "stored")

    bot.store.sqlite.SqliteStore.write = traced_write  # type: ignore[method-assign]

    transact = bot.store.sqlite.SqliteStore._transact
    transacting: contextvars.ContextVar[bool] = contextvars.ContextVar("transacting",
                                                                        default=False)

    async def traced_transact(self: Any, work: Any) -> Any:  # its job's times: timed_submit
        token = transacting.set(True)
        try:
            return await transact(self, work)
        finally:
            transacting.reset(token)

    label: contextvars.ContextVar[str] = contextvars.ContextVar("label", default="other")

    def labelled(name: str, what: Callable[..., str]) -> None:
        original = getattr(bot.store.sqlite.SqliteStore, name)

        @functools.wraps(original)
        async def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
            token = label.set(what(*args))
            try:
                return await original(self, *args, **kwargs)
            finally:
                label.reset(token)

        setattr(bot.store.sqlite.SqliteStore, name, wrapped)

    labelled("write", lambda w: "finish" if w.finish else "end" if w.end else
             "snapshot" if w.snapshot else "move" if w.move else "write")
    labelled("flush_notes", lambda: "marks")
    import bot.store.sqlite_writer

    submit = bot.store.sqlite_writer.ThreadWriter._submit

    def timed_submit(self: Any, job: Any) -> Any:  # a job on the store's thread
        times = [now(), 0.0, 0.0]
        whole, iid, what = transacting.get(), current.get(), label.get()

        def timed() -> Any:
            times[1] = now()
            try:
                return job()
            finally:
                times[2] = now()

        def back(_: object) -> None:  # (on the loop, as the caller is woken)
            hops.append((times[0], times[1] - times[0], times[2] - times[1], now() - times[2]))
            if whole:  # a whole transaction: queued, run (statements + commit), back
                if iid is not None:
                    stamps.setdefault(iid, {}).setdefault("db_start", times[1])
                    stamps[iid].setdefault("db_end", times[2])
                holds.append((times[0], what, times[2] - times[1], 1))

        future = submit(self, timed)
        future.add_done_callback(back)
        return future

    bot.store.sqlite_writer.ThreadWriter._submit = timed_submit  # type: ignore[method-assign]

    bot.store.sqlite.SqliteStore._transact = traced_transact  # type: ignore[method-assign]
    on_loop = bot.store.sqlite_writer.LoopWriter.transact

    def traced_on_loop(self: Any, work: Any, sql: Any) -> Any:  # a write on the loop itself
        start = now()
        result = on_loop(self, work, sql)  # (Busy: its times are its job's on the thread)
        end, iid = now(), current.get()
        if iid is not None:
            stamps.setdefault(iid, {}).setdefault("db_start", start)
            stamps[iid].setdefault("db_end", end)
        holds.append((start, label.get(), end - start, 0))
        return result

    bot.store.sqlite_writer.LoopWriter.transact = traced_on_loop  # type: ignore[method-assign]
    respond = webhook.AsyncWebhookAdapter.create_interaction_response

    async def create_interaction_response(self: Any, interaction_id: int, token: str,
                                          **kwargs: Any) -> Any:
        _stamp(stamps, interaction_id, "post")
        try:
            return await respond(self, interaction_id, token, **kwargs)
        finally:
            _stamp(stamps, interaction_id, "posted")

    webhook.AsyncWebhookAdapter.create_interaction_response = create_interaction_response  # type: ignore

    take = bot.process.budget.Budget.take

    async def traced_take(self: Any) -> None:
        start = now()
        await take(self)
        iid = current.get()
        if iid is not None and "posted" not in stamps.get(iid, {}):
            waits.append((iid, "budget", now() - start))

    bot.process.budget.Budget.take = traced_take  # type: ignore[method-assign]


def bot_main() -> int:
    """``python -m bot``, traced; the stamps go to ``LAMA_TRACE_FILE`` on ``SIGUSR1`` (the
    harness sends it at the end of the measured run, before stopping the bot)."""
    sys.path.insert(0, str(ROOT))
    stamps: dict[int, dict[str, float]] = {}
    waits: list[tuple[int, str, float]] = []
    lags: list[tuple[float, float]] = []
    sched: list[tuple[float, float, float]] = []
    timer = GcTimer().install()
    holds: list[tuple[float, str, float, int]] = []
    hops: list[tuple[float, float, float, float]] = []
    install_bot(stamps, waits, holds, hops)
    import bot.process.loop
    from benchmarks.load.heap import collector, heap_at_end
    from bot.__main__ import main

    collector(os.environ.get("BOT_LOAD_GC", ""))

    run_loop = bot.process.loop.run_loop

    def dump() -> None:
        target = Path(os.environ["LAMA_TRACE_FILE"])
        partial = target.with_suffix(".part")
        figures = {"stamps": stamps, "waits": waits, "lags": lags, "gc": list(timer.pauses),
                   "holds": holds, "hops": hops, "sched": sched,
                   "gc_frozen": gc.get_freeze_count(), "gc_threshold": gc.get_threshold(),
                   "gc_enabled": gc.isenabled(), "heap_at_end": heap_at_end()}
        partial.write_text(json.dumps(figures))
        partial.replace(target)

    def probed(main_coro: Any) -> Any:
        async def with_probe() -> Any:
            probe = asyncio.create_task(probe_loop(lags, sched))
            asyncio.get_running_loop().add_signal_handler(signal.SIGUSR1, dump)  # the harness
            try:
                return await main_coro
            finally:
                probe.cancel()

        return run_loop(with_probe())

    import bot.__main__ as entry

    entry.run_loop = probed  # type: ignore[assignment]

    return main(sys.argv[1:])


class HarnessTrace:
    """The harness's side: each interaction's click, frame, callback and resume times."""

    def __init__(self) -> None:
        self.stamps: dict[int, dict[str, float]] = {}
        self.play: list[tuple[int, float]] = []  # (interaction id, answer seconds) of play
        self.lags: list[tuple[float, float]] = []
        self.sched: list[tuple[float, float, float]] = []
        self.gc = GcTimer()
        self._undo: list[Callable[[], None]] = []

    def install(self) -> None:
        from fakediscord import driver, gateway, interactions

        stamps = self.stamps
        interact = driver.Driver._interact

        async def traced_interact(self: Any, *args: Any, **kwargs: Any) -> Any:
            start = now()
            result = await interact(self, *args, **kwargs)
            stamps.setdefault(result.interaction.id, {}).update(click=start, resumed=now())
            return result

        send = gateway._Connection.send

        def traced_send(self: Any, frame: dict[str, Any]) -> None:
            if frame.get("t") == "INTERACTION_CREATE":
                stamps.setdefault(int(frame["d"]["id"]), {})["queued"] = now()
            send(self, frame)

        callback = interactions.InteractionRoutes.callback

        async def traced_callback(self: Any, request: Any) -> Any:
            with contextlib.suppress(ValueError):
                stamps.setdefault(int(request.match_info["interaction_id"]), {})[
                    "fake_cb"] = now()
            return await callback(self, request)

        real_json = gateway.json

        def dumps(frame: Any, **kwargs: Any) -> str:  # the gateway writer's: stamped as written
            if isinstance(frame, dict) and frame.get("t") == "INTERACTION_CREATE":
                stamps.setdefault(int(frame["d"]["id"]), {})["written"] = now()
            return real_json.dumps(frame, **kwargs)

        gateway.json = types.SimpleNamespace(**{**vars(real_json), "dumps": dumps})  # type: ignore
        driver.Driver._interact = traced_interact  # type: ignore[method-assign]
        gateway._Connection.send = traced_send  # type: ignore[method-assign]
        interactions.InteractionRoutes.callback = traced_callback  # type: ignore[method-assign]
        self.gc.install()
        self._undo = [
            lambda: setattr(driver.Driver, "_interact", interact),
            lambda: setattr(gateway, "json", real_json),
            lambda: setattr(gateway._Connection, "send", send),
            lambda: setattr(interactions.InteractionRoutes, "callback", callback),
            lambda: gc.callbacks.remove(self.gc),
        ]

    def uninstall(self) -> None:
        for undo in self._undo:
            undo()
        self._undo = []


if __name__ == "__main__":
    sys.exit(bot_main())
