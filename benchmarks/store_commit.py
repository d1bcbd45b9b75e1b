"""What one move's transaction costs in SQLite, and how many pages its commit writes.

Prints numbers and asserts nothing. The real store (``SqliteStore``, WAL, the loop's writer,
the schema as migrated) in a temporary directory; ``--channels`` games each write
``--warm`` moves as a live game does: one move row and the table owed as a state (the
older owed table replaced), with the last delivery's mark and the table's message id (an
edit: the same id) carried by the next write. Then ``--moves`` more per channel are timed
statement by statement (CPU time of this thread: SQLite's work and its ``pwrite`` calls),
and the log's frames give the pages each commit appends (4 KB each, with a frame header)::

    python benchmarks/store_commit.py                   # 200 channels, 20 + 5 moves each
    python benchmarks/store_commit.py --no-owed         # the move row alone
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.store.owed import Owed, Write
from bot.store.sqlite import SqliteStore

TABLE_ID = 10 ** 18
TABLE_BODY = {"repost": False, "replaces": TABLE_ID, "round": 1}
META = {"version": 12, "timers": {"turn_seat": 2, "deadline": 1.7e9, "seen": 40}}


class Timed:
    """A sqlite3 connection whose statements are timed by their first words."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn, self.spent = conn, collections.Counter[str]()
        self.calls = collections.Counter[str]()

    def _timed(self, method: str, query: str, *args: Any) -> Any:
        start = time.thread_time()
        try:
            return getattr(self.conn, method)(query, *args)
        finally:
            words = " ".join(query.split()[:3])
            self.spent[words] += time.thread_time() - start
            self.calls[words] += 1

    def execute(self, query: str, *args: Any) -> Any:
        return self._timed("execute", query, *args)

    def executemany(self, query: str, *args: Any) -> Any:
        return self._timed("executemany", query, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "lama.db")
        store = SqliteStore(path)
        await store.open()
        channels = [10 ** 17 + 7919 * i for i in range(args.channels)]
        last: dict[int, Owed] = {}

        def move(channel: int, version: int) -> Write:
            if channel in last:
                store.note_delivered(last[channel])  # (shown: its mark goes with this write)
                store.note_message(1, channel, "table", TABLE_ID)  # (edited: the same message)
            owed = [Owed(1, channel, "state", "table", version, dict(TABLE_BODY))]
            if args.owed:
                last[channel] = owed[0]
            return Write(1, channel, move={"seat": 1, "action": "play 3", "meta": META},
                         owed=owed if args.owed else [])

        for channel in channels:
            await store.write(Write(1, channel, snapshot={"status": "playing", "x": "y" * 2000,
                                                       "table_message_id": TABLE_ID}))
        for version in range(args.warm):
            for channel in channels:
                await store.write(move(channel, version))
        writer = store._writer
        assert writer is not None
        writer.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # (the log starts empty)
        timed = writer.conn = Timed(writer.conn)  # type: ignore[assignment]
        cpu = time.process_time()
        for version in range(args.warm, args.warm + args.moves):
            for channel in channels:  # (no await between them: no checkpoint runs)
                await store.write(move(channel, version))
        commits = args.moves * len(channels)
        cpu = time.process_time() - cpu
        frames = timed.conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1]
        await store.close()
    print(f"{commits} move commits, {args.channels} channels, owed table: {args.owed}")
    print(f"pages written per commit: {frames / commits:.2f}")
    print(f"CPU per move's write (the whole store.write): {cpu / commits * 1e6:.1f} µs")
    for words, spent in timed.spent.most_common():
        print(f"  {words:<28} {spent / timed.calls[words] * 1e6:6.1f} µs x "
              f"{timed.calls[words] / commits:.2f} per move")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--channels", type=int, default=200)
    parser.add_argument("--warm", type=int, default=20, help="moves per channel first")
    parser.add_argument("--moves", type=int, default=5, help="then timed, per channel (the "
                        "log must stay under the store's backstop of 10,000 pages)")
    parser.add_argument("--no-owed", dest="owed", action="store_false",
                        help="the move row alone, no owed table")
    asyncio.run(main(parser.parse_args()))
