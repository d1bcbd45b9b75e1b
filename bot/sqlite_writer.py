"""A session's write to SQLite, run on the event loop itself when nothing stands in its way.

A move's transaction (a row, the outbox items, the delivery marks) takes about a quarter of a
millisecond in SQLite. Sent to aiosqlite's thread it costs more than that in hand-overs: the
thread waits for the interpreter's lock, the loop for the thread's answer and a wake-up, each
a turn of a loop that is busy with other games; and on the one core a bot is given the thread
never runs beside the loop anyway. So :class:`LoopWriter` runs the whole transaction, start to
commit, on the loop, on a connection of its own that never waits:

- ``BEGIN IMMEDIATE`` with no busy timeout: when another process holds the file's write lock
  (several processes may share one file), it answers :class:`Busy` at once and the store
  runs the transaction on aiosqlite's thread instead, which waits for the lock there;
- ``synchronous=NORMAL`` in WAL: a commit only appends to the log (no sync), so it never
  waits for the disk; with ``FULL`` (a sync per commit) there is no loop writer at all;
- no checkpoint on an ordinary commit: copying the log into the database and syncing both is
  the one slow step, so :meth:`LoopWriter.checkpoints` runs it every :data:`CHECKPOINT_EVERY`
  seconds on aiosqlite's thread (``PASSIVE``: writers go on). Should those fall behind (a
  checkpoint failing, a task gone), a commit that leaves :data:`BACKSTOP_PAGES` in the log
  checkpoints on the loop itself (``wal_autocheckpoint``): slow, but the log stays bounded.

A commit on the loop is acknowledged (``transact`` returns) only once ``COMMIT`` returned: the
transaction is in the log, which survives a killed process (not a power cut: README,
Durability). Any error, the commit's own included, rolls the transaction back here, so the
connection is left with no transaction open.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Awaitable, Callable
from typing import TypeVar

from bot.sql import InlineSqliteSql, Sql, run_inline

log = logging.getLogger(__name__)

T = TypeVar("T")
CHECKPOINT_EVERY = 1.0  # seconds between checkpoints while writes come in
BACKSTOP_PAGES = 10_000  # log pages (~40 MB) past which a commit on the loop checkpoints itself


class Busy(Exception):
    """Another connection holds the write lock: this transaction must wait, off the loop."""


class LoopWriter:
    """Transactions on the event loop's thread, on their own connection."""

    def __init__(self, path: str, synchronous: str) -> None:
        self.conn = sqlite3.connect(path, timeout=0, isolation_level=None)
        self.conn.row_factory = sqlite3.Row
        for pragma in (f"synchronous={synchronous}", "foreign_keys=ON",
                       f"wal_autocheckpoint={BACKSTOP_PAGES}"):
            self.conn.execute(f"PRAGMA {pragma}")
        self.commits = 0  # since the last checkpoint

    def transact(self, work: Callable[[Sql], Awaitable[T]], sql: InlineSqliteSql) -> T:
        """``work`` in one transaction, now; :class:`Busy` (nothing done) if it must wait."""
        if self.conn.in_transaction:  # left by a rollback that failed: it holds the lock
            self.conn.execute("ROLLBACK")
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            if "locked" in str(error).lower() or "busy" in str(error).lower():
                raise Busy(str(error)) from error
            raise
        try:
            result: T = run_inline(work(sql))
            self.conn.execute("COMMIT")
        except BaseException:
            self._roll_back()
            raise
        self.commits += 1
        return result

    def _roll_back(self) -> None:
        """Undo the open transaction, if the failure left one (SQLite ends some itself);
        a rollback that fails too is logged, the caller seeing the first error, and tried
        again before the next transaction."""
        if not self.conn.in_transaction:
            return
        try:
            self.conn.execute("ROLLBACK")
        except sqlite3.Error:
            log.warning("could not roll back a failed transaction", exc_info=True)

    async def checkpoints(self, checkpoint: Callable[[], Awaitable[object]]) -> None:
        """Forever: copy the log into the database (``checkpoint``, off the loop) once a
        second while there are commits to copy."""
        while True:
            await asyncio.sleep(CHECKPOINT_EVERY)
            if not self.commits:
                continue
            commits, self.commits = self.commits, 0
            try:
                await checkpoint()
            except Exception:  # (any: with the task gone, only the backstop would be left)
                self.commits += commits  # tried again in a second, new commits or not
                log.warning("could not checkpoint the store's log; will try again",
                            exc_info=True)

    def close(self) -> None:
        self.conn.close()
