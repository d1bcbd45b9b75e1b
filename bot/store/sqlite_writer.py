"""Where a store write to SQLite runs: on the event loop itself when nothing stands in its way,
else on a thread of the store's own.

A move's transaction (a row, the outbox items, the delivery marks) takes about a quarter of a
millisecond in SQLite. Sent to a thread it costs more than that in hand-overs: the thread
waits for the interpreter's lock, the loop for the thread's answer and a wake-up, each a turn
of a loop that is busy with other games; and on the one core a bot is given the thread never
runs beside the loop anyway. So :class:`LoopWriter` runs the whole transaction, start to
commit, on the loop, on a connection of its own that never waits:

- ``BEGIN IMMEDIATE`` with no busy timeout: when another process holds the file's write lock
  (several processes may share one file), it answers :class:`Busy` at once and the store
  runs the transaction on :class:`ThreadWriter`'s thread instead, which waits for the lock
  there (busy timeout :data:`BUSY_TIMEOUT`);
- ``synchronous=NORMAL`` in WAL: a commit only appends to the log (no sync), so it never
  waits for the disk; with ``FULL`` (a sync per commit) there is no loop writer at all, and
  every write is the thread's;
- no checkpoint on an ordinary commit: copying the log into the database and syncing both is
  the one slow step, so :meth:`LoopWriter.checkpoints` runs it every :data:`CHECKPOINT_EVERY`
  seconds off the loop (``PASSIVE``: writers go on). Should those fall behind (a
  checkpoint failing, a task gone), a commit that leaves :data:`BACKSTOP_PAGES` in the log
  checkpoints on the loop itself (``wal_autocheckpoint``): slow, but the log stays bounded.

:class:`ThreadWriter` is a single worker thread (the standard library's executor) with a
standard-library connection opened, used and closed on it alone: its jobs run one at a time,
in the order they were given, each a whole transaction (``BEGIN IMMEDIATE``, statements,
``COMMIT``). Only public APIs are used: no driver's thread or connection is borrowed.

A commit on either path is acknowledged (``transact`` returns) only once ``COMMIT`` returned:
the transaction is in the log, which survives a killed process (not a power cut: README,
Durability). Any error, the commit's own included, rolls the transaction back there, so the
connection is left with no transaction open; so does a caller cancelled before the commit.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from bot.store.sql import InlineSqliteSql, Sql, run_inline

log = logging.getLogger(__name__)

T = TypeVar("T")
CHECKPOINT_EVERY = 1.0  # seconds between checkpoints while writes come in
BACKSTOP_PAGES = 10_000  # log pages (~40 MB) past which a commit on the loop checkpoints itself
SECURE_DELETE = "secure_delete=ON"  # deleted content is zeroed in the file (bot/store/privacy.py)
BUSY_TIMEOUT = 5.0  # seconds a write on the thread waits for another connection's write lock


class Busy(Exception):
    """Another connection holds the write lock: this transaction must wait, off the loop."""


class Abandoned(Exception):
    """The caller of a transaction was cancelled before it committed: rolled back."""


class LoopWriter:
    """Transactions on the event loop's thread, on their own connection."""

    def __init__(self, path: str, synchronous: str) -> None:
        self.conn = sqlite3.connect(path, timeout=0, isolation_level=None)
        self.conn.row_factory = sqlite3.Row
        for pragma in (f"synchronous={synchronous}", "foreign_keys=ON", SECURE_DELETE,
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
            roll_back(self.conn)
            raise
        self.commits += 1
        return result

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


def roll_back(conn: sqlite3.Connection) -> None:
    """Undo the open transaction, if the failure left one (SQLite ends some itself); a
    rollback that fails too is logged, the caller seeing the first error, and tried again
    before the next transaction."""
    if not conn.in_transaction:
        return
    try:
        conn.execute("ROLLBACK")
    except sqlite3.Error:
        log.warning("could not roll back a failed transaction", exc_info=True)


class ThreadWriter:
    """Transactions on a thread of the store's own, on a connection opened there: one job at
    a time, in the order given. Jobs waiting or running are counted in :attr:`pending`: while
    there are any, the store sends later writes here too (commit order is kept)."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lama-sqlite-writes")
        self._conn: sqlite3.Connection | None = None  # (touched on the thread only)
        self.pending = 0  # jobs given and not yet done on the thread

    @property
    def conn(self) -> sqlite3.Connection:
        """The thread's connection: use it only in a job (:meth:`call`, :meth:`transact`)."""
        if self._conn is None:
            raise sqlite3.ProgrammingError("the store's write thread has no connection open")
        return self._conn

    async def open(self, path: str, synchronous: str) -> None:
        """Connect on the thread (autocommit: every transaction is begun explicitly)."""
        await self.call(self._connect, path, synchronous)

    def _connect(self, path: str, synchronous: str) -> None:
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT, isolation_level=None)
        try:
            conn.row_factory = sqlite3.Row
            for pragma in (f"synchronous={synchronous}", "foreign_keys=ON", SECURE_DELETE):
                conn.execute(f"PRAGMA {pragma}")
        except BaseException:
            conn.close()
            raise
        self._conn = conn

    def _submit(self, job: Callable[[], T]) -> asyncio.Future[T]:
        """``job`` queued on the thread (after every job given before it), counted pending
        until it is done there. (benchmarks/load/answer_trace.py times jobs here.)"""
        future = asyncio.get_running_loop().run_in_executor(self._pool, job)
        self.pending += 1
        future.add_done_callback(self._done)  # (first: before the caller resumes)
        return future

    def _done(self, _: object) -> None:
        self.pending -= 1

    async def call(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` on the thread, after the jobs given before it; the caller
        cancelled, the job still runs (or ran), and is waited for."""
        job = self._submit(lambda: function(*args))
        try:
            return await asyncio.shield(job)
        except asyncio.CancelledError:
            await asyncio.wait([job])
            if not job.cancelled():
                job.exception()  # (seen: the caller has gone)
            raise

    async def transact(self, work: Callable[[Sql], Awaitable[T]], sql: InlineSqliteSql) -> T:
        """``work`` in one transaction on the thread (``sql`` on :attr:`conn`): all of it, or
        (on any error) none of it. A caller cancelled before the job commits (a timer stopped
        at shutdown) has it rolled back, or never begun; the job is waited for either way, so
        nothing is left half done when the caller resumes."""
        cancelled = threading.Event()

        def transaction() -> T:
            conn = sql.conn
            if cancelled.is_set():
                raise Abandoned
            if conn.in_transaction:  # left by a rollback that failed: it holds the lock
                conn.execute("ROLLBACK")
            conn.execute("BEGIN IMMEDIATE")  # the write lock first, as on the loop
            try:
                result: T = run_inline(work(sql))
                if cancelled.is_set():
                    raise Abandoned
                conn.execute("COMMIT")
            except BaseException:
                roll_back(conn)
                raise
            return result

        job = self._submit(transaction)
        try:
            return await asyncio.shield(job)
        except asyncio.CancelledError:
            cancelled.set()
            await asyncio.wait([job])  # committed already, or rolled back now
            if not job.cancelled():
                job.exception()  # (seen: Abandoned, or the write's own error)
            raise

    async def close(self) -> None:
        """Close the connection after the jobs given before, on the thread; end the thread."""
        try:
            if self._conn is not None:
                await self.call(self._close)
        finally:
            self._pool.shutdown(wait=False)

    def _close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
