"""A transaction's statements run in one trip to SQLite's thread.

aiosqlite runs each statement on its own thread and hands the result back through the event
loop: one *hop* per ``await db.execute`` (and one for the commit). Each hop waits for that
thread to get the interpreter lock, then for the loop to come round; on a busy core that is
milliseconds each. A move's write took 5–6 hops, all under the store's write lock, so moves of
other channels queued behind them: the load benchmark's slowest answers spent most of their
time waiting for that lock (``benchmarks/bot_load.py --trace``). A :class:`Batch` collects the
statements and runs them, and the commit, as one function on aiosqlite's thread: one hop.

It goes through aiosqlite's ``Connection._execute`` (what every public aiosqlite method uses to
reach its thread; the sqlite3 connection is ``_conn`` there): the one place lama relies on
aiosqlite's internals, exercised by every test that writes (tests/bot/test_sqlite_batch.py).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any

import aiosqlite


@dataclass
class Batch:
    """Statements to run in order; :meth:`run` gives each one's ``lastrowid``."""

    steps: list[tuple[str, Any, bool]] = field(default_factory=list)  # (sql, params, many)
    rowids: list[int | None] = field(default_factory=list)  # the last run's (the caller's to set)

    def add(self, sql: str, params: tuple[Any, ...] = ()) -> int:
        """Queue one statement; its index in :meth:`run`'s answer."""
        self.steps.append((sql, params, False))
        return len(self.steps) - 1

    def many(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        if rows:
            self.steps.append((sql, rows, True))

    async def run(self, db: aiosqlite.Connection, commit: bool = False) -> list[int | None]:
        """Run every statement (then commit, if asked) in one hop; on an error, nothing more
        is run and the caller rolls back (a failed commit leaves the transaction open)."""
        steps, self.steps = self.steps, []
        if not steps and not commit:
            return []

        def in_thread() -> list[int | None]:
            conn: sqlite3.Connection = db._conn
            rowids: list[int | None] = []
            for sql, params, many in steps:
                cursor = conn.executemany(sql, params) if many else conn.execute(sql, params)
                rowids.append(cursor.lastrowid)
            if commit:
                conn.commit()
            return rowids

        result: list[int | None] = await db._execute(in_thread)
        return result
