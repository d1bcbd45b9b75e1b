"""The event loop ``python -m bot`` runs on (uvloop's, a dependency except on Windows, where
it does not exist: there asyncio's), and the interpreter settings of a long-running server.

uvloop (libuv under asyncio's interface) makes the loop itself and its sockets cheaper; with
orjson it saved about 5% of the bot's CPU a move (docs/performance.md, "Lama's speed-ups as
dependencies"; docs/development.md, "Dependencies, and why"). Nothing else depends on it:
tests and the sandbox run on asyncio's own loop.

A full garbage collection walks every object alive, the start-up's (modules, discord.py,
the catalogs, the restored games) included: the load benchmark saw one take 188 ms of CPU
at 100 games. Set up and warm, before it connects to the gateway, ``python -m bot`` freezes
what start-up built (``gc.freeze()``: out of the collector's reach, as CPython's documentation
advises for servers), and once ready what connecting added (the guilds' cache), so a full
collection walks only what the games hold, and what is garbage by then. Before connecting,
because the collection that precedes the freeze walks the whole heap (79-110 ms on the load
benchmark's core): done once ready, it landed among the first clicks.

Full collections come at CPython's pace (:data:`FULL_COLLECTION_EVERY`), not the AI
workers' ten times rarer one (game/heap.py): most of what they find is garbage, every
answered interaction's discord.py objects (the interaction and its response refer to each
other, so only a full collection frees them once they reached the oldest generation). Ten
times rarer, that garbage piled up for hundreds of games between collections (a full one
found 124,570 unreachable objects after 100 games, more than the games held alive) and the
process grew by about 5 MB per 100 games for 900 games (``benchmarks/memory.py``); each such
collection also walked all of that garbage at once. Since then the cycle itself is broken once
an interaction is answered (cogs/discord_compat.py's ``let_go``): a full collection after 50
games finds nothing left to free (``benchmarks/memory.py --detail``); the pace is kept for
whatever cycles remain (a refused command's task and a spent View's items no longer make
one: cogs/timely.py, cogs/render.py).
``benchmarks/bot_load.py --trace`` prints the collections.

Young collections come every :data:`YOUNG_COLLECTION_EVERY` allocations, not CPython's 700.
Almost nothing a move leaves is cyclic garbage any more (a collection of the two young
generations every second under load found about 3 objects), so what a young collection walks
is the live objects allocated since the last one: requests in flight, the views and payloads
of the moves under way, the hands' interactions. At 700 it came every few moves and walked
the same in-flight objects again and again, then again in the middle generation: the
benchmark's trace measured 0.6-0.9 ms of CPU per move in collections, up to a tenth of the
bot's CPU. Every 5,000 allocations, most of them are gone before any collection sees them:
0.13-0.18 ms per move. Each collection walks more (27 ms of CPU in one trace at load 5 to 6,
against 2.5 ms), and memory per game came out a little higher (docs/performance.md, "Where a
move's CPU goes").

The count is allocations *less deallocations*, and freeing an old object (a move drops its
game's previous state, from an older generation) counts too: at 200 games a young collection
at 5,000 found 8,000-34,000 live objects (the tasks, coroutines and requests in flight) and
nothing to free, 2-15 ms of CPU each, twice a second, and every tenth a middle one of 50,000-
63,000 objects (20-55 ms). Every 30,000, five collections in 45 s replaced 67-86 (the
collector's CPU per move 0.33 → 0.06-0.08 ms at load 9-12; docs/performance.md, "The tail
and the CPU at 200 games"), each longer (45-58 ms of CPU at that load) but far rarer.

glibc gives each thread that allocates its own malloc arena (up to eight per core), and
memory freed in one arena serves only that arena: the worker threads drawing pictures,
the store's thread and discord.py's each kept their own pages. ``python -m bot`` asks for
:data:`MALLOC_ARENAS` arenas in all before its first thread starts (``mallopt``, the
``MALLOC_ARENA_MAX`` setting): in four runs of ``benchmarks/bot_load.py`` with pictures on
(60 games), 244 and 292 KB per game against 364 and 330 KB (docs/performance.md).
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import gc
import logging
from collections.abc import Coroutine
from typing import Any, TypeVar

from game.heap import settle_heap

__all__ = ["FULL_COLLECTION_EVERY", "MALLOC_ARENAS", "YOUNG_COLLECTION_EVERY",
           "freeze_since", "freeze_startup_heap", "limit_arenas", "run_loop"]
log = logging.getLogger(__name__)
FULL_COLLECTION_EVERY = 10
"""Second-generation collections per full one in ``python -m bot`` (CPython's own)."""
YOUNG_COLLECTION_EVERY = 30000
"""Allocations (less deallocations) per young collection in ``python -m bot`` (CPython: 700)."""


def freeze_startup_heap() -> int:
    """Before connecting: start-up's heap frozen, full collections at :data:`FULL_COLLECTION_EVERY`,
    young ones every :data:`YOUNG_COLLECTION_EVERY` allocations; how many objects are frozen."""
    return settle_heap(FULL_COLLECTION_EVERY, young=YOUNG_COLLECTION_EVERY)


def freeze_since() -> None:
    """A heap frozen once already (before connecting): what came since frozen too, without
    a collection first. A full one walked the guilds' cache (35,000 objects: 29 ms with 200
    lobbies opening at that moment in the load benchmark), for whatever cyclic garbage
    connecting left, once; and counting the frozen objects walks all of them."""
    gc.freeze()


MALLOC_ARENAS = 2
"""glibc malloc arenas for the whole process (its default: eight per core)."""
M_ARENA_MAX = -8  # glibc's malloc.h


def limit_arenas(arenas: int = MALLOC_ARENAS) -> bool:
    """At most ``arenas`` malloc arenas from now on (glibc only; elsewhere nothing changes);
    whether it was set. Threads started before keep the arena they have."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):  # not glibc (musl, macOS)
        return False
    done = bool(mallopt(M_ARENA_MAX, arenas))
    if not done:
        log.info("malloc arenas left as they are")
    return done


T = TypeVar("T")


def run_loop(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``, on uvloop's loop where available (Ctrl-C works the same), the
    malloc arenas limited first (:func:`limit_arenas`)."""
    limit_arenas()
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)
