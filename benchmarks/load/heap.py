"""The traced bot's heap (``bot_load.py --trace``): which garbage-collector settings it runs
with (``BOT_LOAD_GC``) and what its heap holds at the end of the run, live and garbage."""

from __future__ import annotations

import collections
import gc
import sys
import types
from pathlib import Path
from typing import Any


def collector(how: str) -> None:
    """``BOT_LOAD_GC`` (to measure what the bot's collector settings cost and save): unset,
    the bot's own (bot/process/loop.py); ``default``, CPython's (nothing frozen, a full collection
    every 10 second-generation ones); ``freeze``, start-up frozen but CPython's thresholds;
    ``off``, start-up frozen and no automatic collection at all; ``A,B,C``, the bot's own
    with these thresholds (``gc.set_threshold``)."""
    import bot.__main__ as entry

    if not how:
        return
    if "," in how:
        thresholds = tuple(int(n) for n in how.split(","))
        settle_heap = entry.freeze_startup_heap

        def settled() -> int:
            frozen = settle_heap()
            gc.set_threshold(*thresholds)
            return frozen

        entry.freeze_startup_heap = settled  # type: ignore[attr-defined]
        return
    if how not in ("default", "freeze", "off"):
        raise SystemExit(f"BOT_LOAD_GC={how!r}: default, freeze, off or thresholds A,B,C")

    def settle() -> int:
        if how != "default":
            gc.collect()
            gc.freeze()
        if how == "off":
            gc.disable()
        return gc.get_freeze_count()

    entry.freeze_startup_heap = settle  # type: ignore[attr-defined]


def _rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def heap_at_end() -> dict[str, Any]:
    """What the heap holds at the end of the run, then what a full collection finds
    unreachable in it: live memory against garbage the collector had not reached yet
    (``sys.getallocatedblocks``: the interpreter's small blocks in use; RSS rarely shrinks)."""
    before = {"rss_kb": _rss_kb(), "blocks": sys.getallocatedblocks(),
              "tracked_objects": len(gc.get_objects())}
    gc.set_debug(gc.DEBUG_SAVEALL)  # to say what the garbage was
    try:
        unreachable = gc.collect()
        kinds = collections.Counter(type(o).__qualname__ for o in gc.garbage)
        errors = collections.Counter(type(o).__qualname__ for o in gc.garbage
                                     if isinstance(o, BaseException))
        frames = collections.Counter(f"{o.f_code.co_qualname} ({Path(o.f_code.co_filename).name})"
                                     for o in gc.garbage if isinstance(o, types.FrameType))
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    gc.collect()
    return {**before, "unreachable_found": unreachable,
            "unreachable_kinds": ", ".join(f"{k} {n}" for k, n in kinds.most_common(12)),
            "unreachable_exceptions": ", ".join(f"{k} {n}" for k, n in errors.most_common(5)),
            "unreachable_frames": ", ".join(f"{k} {n}" for k, n in frames.most_common(5)),
            "blocks_after_collect": sys.getallocatedblocks(),
            "tracked_objects_after_collect": len(gc.get_objects()),
            "rss_kb_after_collect": _rss_kb()}
