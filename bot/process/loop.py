"""The event loop ``python -m bot`` runs on (uvloop's when installed, else asyncio's), and the
interpreter settings of a long-running server.

uvloop (libuv under asyncio's interface) makes the loop itself and its sockets cheaper; the
load benchmark measures what it saves per move (README, "Dependencies, and why"). Nothing
else depends on it: tests and the sandbox run on asyncio's own loop.

A full garbage collection walks every object alive, the start-up's (modules, discord.py,
the catalogs, the restored games) included: the load benchmark saw one take 188 ms of CPU
at 100 games. Once ready, ``python -m bot`` freezes what start-up built (``gc.freeze()``: out
of the collector's reach, as CPython's documentation advises for servers), so a full
collection walks only what the games hold, and what is garbage by then.

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
whatever cycles remain (a refused command's exception and its traceback).
``benchmarks/bot_load.py --trace`` prints the collections.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

from game.heap import settle_heap

__all__ = ["FULL_COLLECTION_EVERY", "freeze_startup_heap", "run_loop"]
FULL_COLLECTION_EVERY = 10
"""Second-generation collections per full one in ``python -m bot`` (CPython's own)."""


def freeze_startup_heap() -> int:
    """Once ready: start-up's heap frozen, full collections at :data:`FULL_COLLECTION_EVERY`;
    how many objects are frozen."""
    return settle_heap(FULL_COLLECTION_EVERY)

T = TypeVar("T")


def run_loop(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``, on uvloop's loop where available (Ctrl-C works the same)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)
