"""Persistence behind one interface: finished games, results, settings, running sessions.

Every key is led by the guild id, so a store can later be split or shared
between processes. :class:`SqliteStore` is the implementation on one file (WAL, schema
versioned with ``PRAGMA user_version`` and migrated on open; reads through aiosqlite, writes
on standard-library connections of its own: bot/store/sqlite_writer.py); bot/store/postgres.py's is
on
PostgreSQL. Both run the statements of bot/store/sql_store.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any, Protocol, TypeVar

import aiosqlite

from bot.ladder.results import PlayedGame, SeatResult, Standing
from bot.store import ladder_queries as ladder
from bot.store.open_problems import OPEN_TIMEOUT, open_problem, probe
from bot.store.owed import Owed, Write
from bot.store.privacy import Forgotten
from bot.store.sql import InlineSqliteSql, Sql, SqliteSql
from bot.store.sql_store import END_FINISHED, END_STOPPED, SqlStore, StoreError
from bot.store.sqlite_schema import MIGRATIONS
from bot.store.sqlite_writer import Busy, LoopWriter, ThreadWriter

__all__ = ["END_FINISHED", "END_STOPPED", "MIGRATIONS", "SCHEMA_VERSION", "SeatResult",
           "SqliteStore", "Standing", "Store", "StoreError"]

log = logging.getLogger(__name__)

SCHEMA_VERSION = len(MIGRATIONS)

T = TypeVar("T")


class Store(Protocol):
    """Everything the bot keeps between restarts."""

    async def open(self) -> None: ...
    async def close(self) -> None: ...
    async def schema_version(self) -> int: ...
    async def save_session(self, guild_id: int, channel_id: int, state: dict[str, Any]) -> None: ...
    async def drop_session(self, guild_id: int, channel_id: int) -> None: ...
    async def write(self, change: Write) -> None: ...
    async def session(self, guild_id: int, channel_id: int) -> dict[str, Any] | None: ...
    async def owed(self) -> list[Owed]: ...
    def note_delivered(self, item: Owed) -> None: ...
    def note_message(self, guild_id: int, channel_id: int, key: str, message_id: int) -> None: ...
    async def flush_notes(self) -> None: ...
    async def sessions(self, guild_id: int) -> list[dict[str, Any]]: ...
    async def running_sessions(self) -> list[dict[str, Any]]: ...
    async def each_running_session(self) -> Iterator[dict[str, Any]]: ...
    async def finish_game(
        self,
        guild_id: int,
        channel_id: int,
        game: dict[str, Any],
        results: list[SeatResult] | None,
        reason: str | None = None,
    ) -> None: ...
    async def game(self, guild_id: int, game_id: str) -> dict[str, Any] | None: ...
    async def standings(self, guild_id: int, variant: str) -> list[Standing]: ...
    async def played_variants(self, guild_id: int) -> dict[str, int]: ...
    async def player_games(self, guild_id: int, user_id: int) -> list[PlayedGame]: ...
    async def guild_setting(self, guild_id: int, key: str) -> str | None: ...
    async def set_guild_setting(self, guild_id: int, key: str, value: str) -> None: ...
    async def guild_settings(self, key: str) -> dict[int, str]: ...
    async def app_value(self, key: str) -> str | None: ...
    async def dm_prefs(self) -> dict[int, str]: ...
    async def dm_pref(self, user_id: int) -> str | None: ...
    async def set_dm_pref(self, user_id: int, value: str | None) -> None: ...
    async def set_app_value(self, key: str, value: str) -> None: ...
    async def integrity_check(self) -> list[str]: ...
    async def forget_user(self, user_id: int, channels: list[tuple[int, int]] | None = None
                          ) -> Forgotten: ...
    async def export_user(self, user_id: int) -> dict[str, Any]: ...
    async def forget_guild(self, guild_id: int) -> dict[str, int]: ...
    async def prune_games(self, before: float) -> int: ...
    async def left_guilds(self) -> dict[int, float]: ...
    async def note_guild_left(self, guild_id: int, when: float | None) -> None: ...


class SqliteStore(SqlStore):
    """:class:`Store` on one SQLite file: three connections, each for its own work.

    aiosqlite's: opening, migrations, reads (one trip each), checkpoints. The loop's
    (:class:`LoopWriter`): a write whole, at once, when the file's write lock is free. The
    store's thread's (:class:`ThreadWriter`): a write that must wait for the lock, and
    every write with ``synchronous=FULL``."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path
        self._db: aiosqlite.Connection | None = None
        self._writer: LoopWriter | None = None  # writes on the loop (bot/store/sqlite_writer.py)
        self._thread_writer: ThreadWriter | None = None  # writes that wait (the same module)
        self._checkpoints: asyncio.Task[None] | None = None
        self.synchronous = "NORMAL"

    @property
    def db(self) -> aiosqlite.Connection:
        if self._db is None:
            raise StoreError("the store is not open")
        return self._db

    async def open(self) -> None:
        """Connect, switch to WAL, and migrate the schema to :data:`SCHEMA_VERSION`.

        WAL keeps every committed transaction through a killed process whatever
        ``synchronous`` is; ``NORMAL`` syncs at checkpoints rather than at each commit, so a
        power cut (or an OS crash) may lose the last commits before it, never the file.
        """
        if self._db is not None:
            return  # python -m bot opens the store before logging in; setup_hook again
        try:
            # checked first, reading only: a file that is not a sound database stays untouched
            await asyncio.to_thread(probe, self.path)
            self._db = await aiosqlite.connect(self.path, timeout=OPEN_TIMEOUT)
            self._db.row_factory = aiosqlite.Row
            await self._wal()
            await self._db.execute(f"PRAGMA synchronous={self.synchronous}")
            await self._db.execute("PRAGMA busy_timeout=5000")
            await self._db.execute("PRAGMA foreign_keys=ON")
            await self._db.execute("PRAGMA secure_delete=ON")  # deleted rows are zeroed
            await self._migrate()
            self._thread_writer = ThreadWriter()
            await self._thread_writer.open(self.path, self.synchronous)
            await self._rate_pending()
            if self.synchronous in ("NORMAL", "OFF"):  # (FULL syncs each commit: not on the loop)
                self._writer = LoopWriter(self.path, self.synchronous)
                self._checkpoints = asyncio.ensure_future(
                    self._writer.checkpoints(self._checkpoint))
        except sqlite3.Error as error:
            await self.close()
            raise StoreError(open_problem(self.path, error)) from error

    async def _wal(self) -> None:
        """Switch to WAL; SQLite answers "locked" at once (no busy wait) while another
        process opening the same new file holds it, so try again until ``OPEN_TIMEOUT``."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + OPEN_TIMEOUT
        while True:
            try:
                await self.db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error).lower() or loop.time() > give_up:
                    raise
            await asyncio.sleep(0.05)

    async def _checkpoint(self) -> tuple[int, int, int]:
        """Copy the log into the database: (busy, frames in the log, frames copied)."""
        rows = list(await self.db.execute_fetchall("PRAGMA wal_checkpoint(PASSIVE)"))
        busy, logged, copied = rows[0]
        return int(busy), int(logged), int(copied)

    async def close(self) -> None:
        if self._checkpoints is not None:
            self._checkpoints.cancel()
            await asyncio.wait([self._checkpoints])
            self._checkpoints = None
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self._thread_writer is not None:  # after the writes given before this close
            thread, self._thread_writer = self._thread_writer, None
            await thread.close()
        if self._db is not None:  # the last: closing it checkpoints the log, off the loop
            await self._db.close()
            self._db = None

    async def schema_version(self) -> int:
        rows = list(await self.db.execute_fetchall("PRAGMA user_version"))
        return int(rows[0][0]) if rows else 0

    async def _migrate(self) -> None:
        version = await self.schema_version()
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} has schema version {version}, newer than this bot's "
                f"{SCHEMA_VERSION}: upgrade the bot"
            )
        for number in range(version, SCHEMA_VERSION):
            log.info("migrating %s to schema version %d", self.path, number + 1)
            try:  # each step and its version number land together, or not at all
                await self.db.executescript(
                    f"BEGIN IMMEDIATE; {MIGRATIONS[number]} PRAGMA user_version = {number + 1}; "
                    "COMMIT;"
                )
            except Exception:
                if self.db.in_transaction:
                    await self.db.rollback()
                if await self.schema_version() > number:
                    continue  # another process sharing the file took this step meanwhile
                raise

    async def _rate_pending(self) -> None:
        """Rate the finished games kept before ratings existed (once:
        bot/store/ladder_queries.py)."""
        if not await self.db.execute_fetchall("SELECT 1 FROM games WHERE rated = 0 "
                                              "AND status = 'finished' LIMIT 1"):
            return

        await self._transact(ladder.rate_pending)  # (under BEGIN IMMEDIATE: reads and writes)

    async def _transact(self, work: Callable[[Sql], Awaitable[T]]) -> T:
        """``work``'s writes, or (on any error, or the caller cancelled) none of them.

        One transaction at a time, whole: on the loop when the file's write lock is free
        (bot/store/sqlite_writer.py), else as one job on the store's thread, which waits for it.
        While jobs wait there, later transactions queue behind them rather than commit on
        the loop first: this process's writes commit in the order they were asked for."""
        thread = self._thread_writer
        if thread is None:
            raise StoreError("the store is not open")
        if self._writer is not None and not thread.pending:
            sql = InlineSqliteSql(self._writer.conn)
            try:
                return self._writer.transact(work, sql)
            except Busy:
                pass  # another process is writing: wait for it off the loop
            finally:
                self.bytes_written += sql.written
        sql = InlineSqliteSql(thread.conn)
        try:
            return await thread.transact(work, sql)
        finally:
            self.bytes_written += sql.written

    @contextlib.asynccontextmanager
    async def _reading(self) -> AsyncIterator[Sql]:
        yield SqliteSql(self.db)

    def _is_open(self) -> bool:
        return self._db is not None

    async def _purge_log(self) -> None:
        """Copy the log into the file and truncate it: frames written before a deletion
        (still holding what was deleted) do not linger in ``-wal`` until overwritten."""
        rows = list(await self.db.execute_fetchall("PRAGMA wal_checkpoint(TRUNCATE)"))
        if rows and rows[0][0]:
            log.warning("the store's log could not be truncated now (a reader is busy); "
                        "it is overwritten by later checkpoints")

    async def integrity_check(self) -> list[str]:
        """``PRAGMA integrity_check``: ``["ok"]`` for a sound file, else the problems found."""
        return [str(row[0]) for row in await self.db.execute_fetchall("PRAGMA integrity_check")]

