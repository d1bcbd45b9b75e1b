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
import gc
import json
import os
import signal
import sys
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
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
        gc.collect()
        figures["blocks_after_collect"] = sys.getallocatedblocks()
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
