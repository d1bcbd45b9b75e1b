"""Memory of idle relaxed games: N waiting games served by one process (issue 31's goal:
an idle relaxed game costs at most 20 KB).

Two steps, as a restarted bot meets them:

1. *fill*: ``--games`` relaxed 3-player games (classic, 24 h turns) are opened, joined and
   started through the real sessions API on a real SQLite file; each one's owed messages
   are delivered to a courier that only hands out message ids (no Discord: 10,000 games
   through the fake would take an hour). Every game then waits for its first player.
2. *measure*: a fresh process (so nothing of the fill is counted) opens that store, wires
   the sessions with their policies on the real clock (``make_sessions``), imports
   everything and records its memory; it then restores every stored game
   (``restore_sessions`` and ``resume``, exactly the start-up of a restarted bot: each
   waiting game served again, its timer armed, its table refreshed) and records it again.
   Per game = (after - before) / N, for the RSS (/proc/self/status) and, in a second fresh
   process, for the bytes tracemalloc sees allocated (Python's own allocations, the
   deterministic figure; tracemalloc's bookkeeping inflates the RSS, so the two are never
   taken in one process). The tracemalloc run also splits the bytes by part: where each
   allocation was made (the game engine, the session, the timers and asyncio, the outbox,
   ...), and counts the asyncio tasks and loop timer handles left waiting::

    nice .venv/bin/python benchmarks/idle_games.py                 # 10,000 games
    nice .venv/bin/python benchmarks/idle_games.py --games 1000
    nice .venv/bin/python benchmarks/idle_games.py --games 2000 --moves 30   # mid-round

The figures are in docs/performance.md ("Idle relaxed games").
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import gc
import itertools
import json
import logging
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.policies.wiring import make_sessions  # noqa: E402
from bot.sessions.restore import restore_sessions, resume  # noqa: E402
from bot.sessions.state import Pace  # noqa: E402
from bot.store.sqlite import SqliteStore  # noqa: E402
from game.actions import QUIT  # noqa: E402

GUILD = 1
FIRST_CHANNEL = 10_000
PARTS = (  # where an allocation was made -> the part it is counted in (first match wins)
    ("game/", "game state (the engine's objects)"),
    ("bot/sessions/outbox", "outbox (owed messages, delivery)"),
    ("bot/sessions/", "session (seats, timer state, players, caches)"),
    ("bot/policies/", "timers (the watchdog's bookkeeping)"),
    ("bot/common/clock", "timers (the clock's sleepers)"),
    ("asyncio/", "timers (asyncio tasks, futures, handles)"),
    ("<string>", "session (dataclass fields)"),
    ("dataclasses", "session (dataclass fields)"),
)


def rss_kb(field: str = "VmRSS") -> int:
    """The process's resident memory (``VmHWM``: its peak so far), from /proc."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def trimmed_rss_kb() -> int:
    """The RSS once glibc has handed its free heap pages back (what the process holds at
    most after a while of other work reusing them); the same RSS where it cannot."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    return rss_kb()


def courier() -> Any:
    ids = itertools.count(1)

    async def deliver(item: Any, session: Any) -> int:
        return next(ids)

    return deliver


async def fill(db: str, games: int, moves: int) -> None:
    """``games`` relaxed games in the store at ``db``, each waiting after ``moves`` moves
    (a player's first legal action other than quitting)."""
    store = SqliteStore(db)
    await store.open()
    sessions = make_sessions(store, ai_delay=0, seed=None)
    sessions.outbox.courier = courier()
    started = time.perf_counter()
    for n in range(games):
        channel = FIRST_CHANNEL + n
        users = [3 * channel + k for k in range(3)]
        session = await sessions.open(GUILD, channel, (users[0], f"p{users[0]}"), "classic",
                                      {}, None, pace=Pace.RELAXED)
        for user in users[1:]:
            await session.join(user, f"p{user}")
        await session.start(users[0])
        for _ in range(moves):
            game = session.game
            if game is None or game.finished or game.to_act is None:
                break
            seat = game.to_act
            action = next((a for a in game.legal_actions() if a != QUIT), QUIT)
            await session.act(users[seat], None, str(action))
        await sessions.publish(session)
    await sessions.checkpoint()
    await sessions.close()
    await store.close()
    log(f"filled {games:,} relaxed games in {time.perf_counter() - started:.1f} s")


async def measure(db: str, traced: bool) -> dict[str, Any]:
    """Memory before and after this process restores every stored game."""
    store = SqliteStore(db)
    await store.open()
    sessions = make_sessions(store, ai_delay=0, seed=None)
    sessions.outbox.courier = courier()
    await restore_sessions(sessions, lambda guild_id: False)  # the imports and first calls
    gc.collect()
    if traced:
        tracemalloc.start(1)
    before = tracemalloc.take_snapshot() if traced else None
    rss0 = rss_kb()
    started = time.perf_counter()
    restored = await restore_sessions(sessions)
    await resume(sessions, restored)
    await store.flush_notes()
    await asyncio.sleep(0)
    seconds = time.perf_counter() - started
    gc.collect()
    rss1 = rss_kb()
    loop = asyncio.get_running_loop()
    result: dict[str, Any] = {
        "games": len(restored), "served": len(sessions), "restore_s": seconds,
        "rss_kb": rss1 - rss0, "peak_kb": rss_kb("VmHWM") - rss0,
        "trimmed_kb": trimmed_rss_kb() - rss0, "tasks": len(asyncio.all_tasks()) - 1,
        "handles": len(getattr(loop, "_scheduled", ())),
    }
    if traced and before is not None:
        after = tracemalloc.take_snapshot()
        parts: dict[str, int] = {}
        for stat in after.compare_to(before, "filename"):
            name = stat.traceback[0].filename
            part = next((p for key, p in PARTS if key in name), "other: " + short(name))
            parts[part] = parts.get(part, 0) + stat.size_diff
        result["traced"] = sum(parts.values())
        result["parts"] = parts
        tracemalloc.stop()
    await sessions.close()
    await store.close()
    return result


def short(name: str) -> str:
    for marker in ("site-packages/", "lib/python3", str(ROOT) + "/"):
        if marker in name:
            return name.split(marker, 1)[1]
    return name


def log(text: str) -> None:
    logging.getLogger("benchmarks.idle_games").warning(text)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="waiting relaxed games")
    parser.add_argument("--moves", type=int, default=0,
                        help="moves played in each game before it waits (default: none)")
    parser.add_argument("--db", help="an existing store to measure (default: fill a new one)")
    parser.add_argument("--measure", choices=("rss", "traced"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    if args.measure:
        result = asyncio.run(measure(args.db, args.measure == "traced"))
        sys.stdout.write(json.dumps(result) + "\n")
        return
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or str(Path(tmp) / "lama.db")
        if not args.db:
            asyncio.run(fill(db, args.games, args.moves))
        runs = {}
        for kind in ("rss", "traced"):
            out = subprocess.run([sys.executable, __file__, "--db", db, "--measure", kind],
                                 check=True, capture_output=True, text=True).stdout
            runs[kind] = json.loads(out.strip().splitlines()[-1])
    report(runs)


def report(runs: dict[str, dict[str, Any]]) -> None:
    rss, traced = runs["rss"], runs["traced"]
    n = max(rss["games"], 1)
    lines = [
        f"games restored and waiting: {rss['games']:,} (served {rss['served']:,}); "
        f"restore + resume {rss['restore_s']:.1f} s",
        f"asyncio tasks waiting: {rss['tasks']:,}; loop timer handles: {rss['handles']:,}",
        f"RSS:         {rss['rss_kb'] / n:6.2f} KB per game "
        f"({rss['rss_kb'] / 1024:.1f} MB for all); at the peak of the restore "
        f"{rss['peak_kb'] / n:.2f} KB; after malloc_trim {rss['trimmed_kb'] / n:.2f} KB",
        f"tracemalloc: {traced['traced'] / n / 1024:6.2f} KB per game "
        f"({traced['traced'] / 2**20:.1f} MB for all), by part:",
    ]
    for part, size in sorted(traced["parts"].items(), key=lambda kv: -kv[1]):
        if abs(size) / n >= 8:
            lines.append(f"  {size / n / 1024:7.2f} KB  {part}")
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
