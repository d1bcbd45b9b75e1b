"""The collector settings of a long-running process that keeps a large heap alive.

A full garbage collection walks every object alive, the modules' included. A process that
is set up (``python -m bot`` once ready, ``python -m game simulate`` and the bot's AI
workers once their players are loaded) freezes what it built (``gc.freeze()``: out of the
collector's reach, as CPython's documentation advises for servers) and makes full
collections ten times rarer; the price is memory, as cyclic garbage that reached the oldest
generation waits longer. Standard library only, like the rest of ``game/``.
"""

from __future__ import annotations

import gc

FULL_COLLECTION_EVERY = 100
"""Second-generation collections per full one (CPython: 10)."""


def settle_heap(full_every: int = FULL_COLLECTION_EVERY, young: int | None = None) -> int:
    """Collect once, freeze every object alive, make a full collection come every
    ``full_every`` second-generation ones (and, given ``young``, a young collection every
    ``young`` allocations, else CPython's); returns how many objects are frozen."""
    gc.collect()
    gc.freeze()
    first, middle, _ = gc.get_threshold()
    gc.set_threshold(first if young is None else young, middle, full_every)
    return gc.get_freeze_count()
