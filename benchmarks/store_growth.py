"""What the store writes per accepted action, early and late in one long game.

Plays one long classic game between three AI seats and their host through ``bot.sessions.sessions``
on a real
SQLite file (no Discord), and counts the logical bytes each action hands to SQLite
(every bound value of every INSERT/UPDATE: the move row, the owed table item, and the
snapshot at round boundaries). Constant work per move means the median over actions
400-500 is about the median over actions 1-100. It also prints what the previous
design wrote (the whole session, JSON-encoded, twice per move) and the time per
action with ``synchronous=NORMAL`` and ``FULL``. Prints numbers, asserts nothing.

    .venv/bin/python benchmarks/store_growth.py [--actions 500] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.policies.wiring import make_sessions
from bot.sessions.sessions import Status
from bot.store.sqlite import SqliteStore
from game import ActionType

EARLY = (1, 100)
LATE = (400, 500)


async def one_game(path: Path, actions: int, synchronous: str) -> dict[str, float]:
    store = SqliteStore(str(path))
    store.synchronous = synchronous
    await store.open()
    sessions = make_sessions(store, ai_delay=0, seed="store-growth")
    try:
        session = await sessions.open(1, 2, (1, "host"), "classic", {"target": 500}, None,
                                      turn_timeout=0)
        for _ in range(3):
            await session.add_ai(1)  # the host seats them, and plays too (a host must)
        await session.start(1)
        host = session.require_seat(1)
        written: list[int] = []
        old_design: list[int] = []
        started = time.perf_counter()
        while session.status is Status.PLAYING and len(written) < actions:
            before = store.bytes_written
            if session.ai_to_act() is not None:
                await session.ai_step()
            else:  # the host's turn: the first listed move that is not quitting
                legal = session.view(host).legal
                move = next((a for a in legal if a.type is not ActionType.QUIT), legal[0])
                await session.act(1, session.version, str(move))
            written.append(store.bytes_written - before)
            old_design.append(2 * len(json.dumps(session.snapshot())))
        elapsed = time.perf_counter() - started
    finally:
        await sessions.close()
        await store.close()

    def median(values: list[int], span: tuple[int, int]) -> float:
        return statistics.median(values[span[0] - 1: span[1]])

    early, late = median(written, EARLY), median(written, LATE)
    return {
        "actions": len(written),
        "store_bytes_per_action_early": early,
        "store_bytes_per_action_late": late,
        "store_bytes_ratio": late / early,
        "store_bytes_per_action_mean": statistics.mean(written),
        "old_bytes_per_action_early": median(old_design, EARLY),
        "old_bytes_per_action_late": median(old_design, LATE),
        "ms_per_action": 1000 * elapsed / len(written),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=LATE[1])
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for mode in ("NORMAL", "FULL"):
            results[mode] = await one_game(Path(tmp) / f"{mode}.db", args.actions, mode)
    normal = results["NORMAL"]
    if normal["actions"] < LATE[1]:
        sys.exit(f"the game ended after {normal['actions']} actions; need {LATE[1]}")
    if args.json:
        print(json.dumps({**normal, "ms_per_action_full": results["FULL"]["ms_per_action"]}))
        return
    print(f"one classic game, 4 AI seats, {normal['actions']} actions")
    print(f"bytes per action, median of actions {EARLY[0]}-{EARLY[1]}: "
          f"{normal['store_bytes_per_action_early']:.0f}  (previous design: "
          f"{normal['old_bytes_per_action_early']:.0f})")
    print(f"bytes per action, median of actions {LATE[0]}-{LATE[1]}: "
          f"{normal['store_bytes_per_action_late']:.0f}  (previous design: "
          f"{normal['old_bytes_per_action_late']:.0f})")
    print(f"late / early: {normal['store_bytes_ratio']:.2f}  (previous design: "
          f"{normal['old_bytes_per_action_late'] / normal['old_bytes_per_action_early']:.2f})")
    print(f"mean bytes per action, round snapshots included: "
          f"{normal['store_bytes_per_action_mean']:.0f}")
    print(f"ms per action (engine, AI and commit): synchronous=NORMAL "
          f"{normal['ms_per_action']:.2f}, FULL {results['FULL']['ms_per_action']:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
