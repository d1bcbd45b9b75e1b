"""The event loop ``python -m bot`` runs on (uvloop's when installed, else asyncio's), and the
interpreter settings of a long-running server.

uvloop (libuv under asyncio's interface) makes the loop itself and its sockets cheaper; the
load benchmark measures what it saves per move (README, "Dependencies, and why"). Nothing
else depends on it: tests and the sandbox run on asyncio's own loop.

A full garbage collection walks every object alive, the start-up's (modules, discord.py,
the catalogs, the restored games) included: the load benchmark saw one take 188 ms of CPU
at 100 games. Once ready, ``python -m bot`` freezes what start-up built (``gc.freeze()``: out
of the collector's reach, as CPython's documentation advises for servers), and makes full
collections ten times rarer: each still walks every game's objects (about 150 ms of CPU at
200 games, while every answer waits), and at CPython's default they came every 10 s or so
under load, setting the answers' p99. The price is memory: cyclic garbage that reached the
oldest generation waits longer (the load benchmark's memory per game, 148 -> 329 KB at 200
games). ``benchmarks/bot_load.py --trace`` prints the collections.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from game.heap import FULL_COLLECTION_EVERY, settle_heap

__all__ = ["FULL_COLLECTION_EVERY", "freeze_startup_heap", "run_loop"]
freeze_startup_heap = settle_heap  # once ready (game/heap.py: the same settings as AI workers')

T = TypeVar("T")


def run_loop(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``, on uvloop's loop where available (Ctrl-C works the same)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)
