"""The bot's heap, asked for (``benchmarks/memory.py --detail``): what grows between probes.

The bot runs as ``python -m benchmarks.load.memory_probe`` instead of ``python -m bot``: the
same ``bot.__main__.main()``, plus a ``SIGUSR2`` handler that writes to ``MEMORY_PROBE_FILE``
what the heap holds: the interpreter's allocated blocks, the objects the collector tracks by
type (the most numerous), the largest module-level containers and caches of bot/, cogs/ and
game/ (dicts, lists, sets, ``functools`` caches: a cache that only grows shows here), the
garbage a full collection would find (counted, then collected: from the first probe on, the
run is no longer the bot's own), and with ``MEMORY_PROBE_TRACEMALLOC=1`` the source lines
whose allocations grew since the previous probe (tracemalloc slows the bot down several
times). Nothing here runs unless asked for: ``python -m bot`` is never patched.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import ctypes
import ctypes.util
import gc
import json
import os
import signal
import sys
import tempfile
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TOP = 25


def rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]


def native_heap() -> dict[str, int]:
    """KB by who holds it: the process's kinds of resident pages (/proc), glibc's heaps
    (every arena: in use, free inside them, mmapped blocks), CPython's small-object arenas,
    SQLite's own allocations (each connection's page cache among them)."""
    figures: dict[str, int] = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(("RssAnon:", "RssFile:", "RssShmem:")):
            figures[line.split(":")[0]] = int(line.split()[1])
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL("libc.so.6")
        libc.mallinfo2.restype = _MallInfo2
        info = libc.mallinfo2()
        figures.update(malloc_used=info.uordblks // 1024, malloc_free=info.fordblks // 1024,
                       malloc_mmapped=info.hblkhd // 1024, malloc_heaps=info.arena // 1024)
    with contextlib.suppress(OSError, AttributeError):
        sqlite = ctypes.CDLL(ctypes.util.find_library("sqlite3") or "libsqlite3.so.0")
        sqlite.sqlite3_memory_used.restype = ctypes.c_int64
        figures["sqlite"] = sqlite.sqlite3_memory_used() // 1024
    with tempfile.TemporaryFile("w+") as out:  # _debugmallocstats writes to fd 2 (C stderr)
        saved = os.dup(2)
        try:
            sys.stderr.flush()
            os.dup2(out.fileno(), 2)
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        out.seek(0)
        for line in out.read().splitlines():
            if line.startswith("# arenas allocated current"):
                figures["pymalloc_arenas"] = int(line.split("=")[1].replace(",", ""))
            elif line.startswith("# bytes in allocated blocks"):
                figures["pymalloc_used"] = int(line.split("=")[1].replace(",", "")) // 1024
            elif line.startswith("Total ") and "pymalloc_total" not in figures:
                figures["pymalloc_total"] = int(line.split("=")[1].replace(",", "")) // 1024
    if tracemalloc.is_tracing():
        figures["traced"] = tracemalloc.get_traced_memory()[0] // 1024
    return figures


def module_containers() -> list[tuple[str, int]]:
    """``(module.name, entries)`` of every module-level container and ``functools`` cache in
    bot/, cogs/ and game/, largest first."""
    found: dict[str, int] = {}
    for name, module in list(sys.modules.items()):
        if name.split(".")[0] not in ("bot", "cogs", "game"):
            continue
        for attr, value in list(vars(module).items()):
            if isinstance(value, dict | list | set | collections.deque):
                found[f"{name}.{attr}"] = len(value)
            elif isinstance(getattr(value, "cache_info", None), Callable):
                size = getattr(value.cache_info(), "currsize", None)
                if isinstance(size, int):
                    found[f"{name}.{attr}()"] = size
    return sorted(found.items(), key=lambda kv: -kv[1])


def holders(garbage: list[Any], samples: int = 5) -> dict[str, list[str]]:
    """For the most common kinds of garbage: what else in the garbage refers to a few of
    them (by type), to find the cycles that keep it for a full collection."""
    inside = {id(o) for o in garbage}
    kinds = collections.Counter(type(o).__qualname__ for o in garbage)
    found: dict[str, list[str]] = {}
    for kind in ["Interaction", "InteractionResponse", "Message", "Task", "Future"] + [
            k for k, _ in kinds.most_common(6)]:
        if kind in found or kind not in kinds:
            continue
        sample = [o for o in garbage if type(o).__qualname__ == kind][:samples]
        refs: collections.Counter[str] = collections.Counter()
        for obj in sample:
            for ref in gc.get_referrers(obj):
                if id(ref) in inside:
                    refs[type(ref).__qualname__] += 1
        found[kind] = [f"{k} {n}" for k, n in refs.most_common(6)]
    return found


class Probe:
    """Each probe's figures, and what grew since the previous one."""

    def __init__(self) -> None:
        self.types: collections.Counter[str] = collections.Counter()
        self.snapshot: tracemalloc.Snapshot | None = None

    def __call__(self) -> dict[str, Any]:
        figures: dict[str, Any] = {"rss_kb": rss_kb(), "blocks": sys.getallocatedblocks(),
                                   "collections": [g["collections"] for g in gc.get_stats()],
                                   "containers": module_containers()[:TOP]}
        objects = gc.get_objects()
        types = collections.Counter(type(o).__qualname__ for o in objects)
        del objects
        figures["tracked_objects"] = sum(types.values())
        figures["top_types"] = types.most_common(TOP)
        figures["grown_types"] = sorted(
            ((k, n - self.types.get(k, 0)) for k, n in types.items()),
            key=lambda kv: -kv[1])[:TOP]
        self.types = types
        gc.set_debug(gc.DEBUG_SAVEALL)  # what a full collection would have freed, by type
        try:
            figures["unreachable"] = gc.collect()
            figures["garbage_types"] = collections.Counter(
                type(o).__qualname__ for o in gc.garbage).most_common(12)
            figures["garbage_holders"] = holders(gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
        gc.collect()
        figures["blocks_after_collect"] = sys.getallocatedblocks()
        figures["native"] = native_heap()
        if tracemalloc.is_tracing():
            snapshot = tracemalloc.take_snapshot().filter_traces(
                [tracemalloc.Filter(False, tracemalloc.__file__)])
            if self.snapshot is not None:
                figures["grown_lines"] = [
                    f"{s.size_diff / 1024:+.0f} KB {s.count_diff:+d} "
                    f"{s.traceback[0].filename}:{s.traceback[0].lineno}"
                    for s in snapshot.compare_to(self.snapshot, "lineno")[:TOP]]
            self.snapshot = snapshot
        return figures


def bot_main() -> int:
    sys.path.insert(0, str(ROOT))
    if os.environ.get("MEMORY_PROBE_TRACEMALLOC") == "1":
        tracemalloc.start(1)
    import bot.__main__ as entry

    run_loop = entry.run_loop
    probe = Probe()

    def dump() -> None:
        target = Path(os.environ["MEMORY_PROBE_FILE"])
        partial = target.with_suffix(".part")
        partial.write_text(json.dumps(probe()))
        partial.replace(target)

    def probed(main_coro: Any) -> Any:
        async def with_handler() -> Any:
            asyncio.get_running_loop().add_signal_handler(signal.SIGUSR2, dump)
            return await main_coro

        return run_loop(with_handler())

    entry.run_loop = probed  # type: ignore[assignment]
    return entry.main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(bot_main())
