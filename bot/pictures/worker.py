"""Charts drawn in a process of their own, at a lower priority than the bot's.

A chart is 40-70 ms of CPU in matplotlib, nearly all of it Python holding the GIL: on a
thread of the bot's process the event loop ran at half speed meanwhile, so every answer due
in that window waited longer (the load benchmark pins the bot to one core, where even a
GIL-free thread would take half of it). In a worker process that yields the CPU
(``nice 10``, as the AI pool's workers, bot/policies/ai_runner.py) the loop keeps its speed and the
chart, which nobody waits for by the millisecond, takes what is left. The worker starts
from the forkserver (a clean process, not a fork of the loop's threads) on a thread of its
own at the first chart, which, like any chart until the worker is up (a second or more:
Python and matplotlib start), is drawn on a thread as before: a chart answering a command
never waits for the start. If the worker cannot start or breaks, charts stay on the thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any

log = logging.getLogger(__name__)

FALLBACK = concurrent.futures.ThreadPoolExecutor(max_workers=1,
                                                 thread_name_prefix="lama-charts")
"""Where a chart is drawn when the worker process cannot be (its styled figures stay warm
on this one thread)."""

_pool: concurrent.futures.ProcessPoolExecutor | None = None
_starting = threading.Lock()
_start: threading.Thread | None = None
_launching = threading.Lock()  # (not _starting: that one is held while the worker starts)


def _set_up() -> None:
    """In the worker: yield the CPU to the bot; matplotlib imported before the first chart."""
    try:
        os.nice(10)
    except OSError:  # not allowed here: drawing at the same priority still works
        log.debug("could not lower the chart worker's priority")
    import bot.pictures.chart  # noqa: F401  (half a second, once)


def _ready() -> bool:
    return True


def _started() -> concurrent.futures.ProcessPoolExecutor:
    """The worker, started once (in a thread: starting it takes most of a second)."""
    global _pool
    with _starting:
        if _pool is None:
            context = multiprocessing.get_context("forkserver")
            pool = concurrent.futures.ProcessPoolExecutor(1, context, initializer=_set_up)
            pool.submit(_ready).result()
            _pool = pool
        return _pool


def _start_once() -> None:
    try:
        _started()
    except Exception:
        log.warning("the chart worker could not start; charts are drawn on a thread",
                    exc_info=True)


def start() -> threading.Thread:
    """Start the worker on a thread of its own (once); that thread."""
    global _start
    with _launching:
        if _start is None:
            _start = threading.Thread(target=_start_once, name="lama-charts-start",
                                      daemon=True)
            _start.start()
        return _start


async def drawn(draw: Callable[..., bytes], *args: Any) -> bytes:
    """``draw(*args)`` (a module-level function: it is pickled) in the chart worker, or on
    the charts' thread while it starts."""
    loop = asyncio.get_running_loop()
    pool = _pool
    if pool is None:
        start()
    else:
        try:
            return await loop.run_in_executor(pool, draw, *args)
        except BrokenProcessPool:
            log.warning("the chart worker broke; this chart is drawn on a thread",
                        exc_info=True)
            _forget()
    return await loop.run_in_executor(FALLBACK, draw, *args)


def _forget() -> None:
    """A broken worker: charts go to the thread, and a later chart starts a new worker."""
    global _pool, _start
    with _launching:
        pool, _pool, _start = _pool, None, None
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)
