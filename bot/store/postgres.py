""":class:`PgStore`: the :class:`bot.store.sqlite.Store` on PostgreSQL (asyncpg), for several
processes.

Chosen by ``LAMA_DB=postgresql://...``. The tables and their meaning are SQLite's
(bot/store/sqlite.py), with PostgreSQL types; schema versions are numbered alike, kept in
``lama_schema`` and applied under an advisory lock, so processes starting together migrate
once. Every write is one transaction on a pooled connection: processes write concurrently,
each change lands whole or not at all, and the only read-modify-write (a finished game's
ratings, bot/store/ladder_queries.py) locks the rows it changes, so no update is lost. Within a
process, writes
go one at a time (see :meth:`PgStore._in_transaction`). Which process may change
a channel's session is settled by the shard leases (bot/store/leases.py), not here.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

import asyncpg

from bot.store import ladder_queries as ladder
from bot.store.pg_schema import PG_MIGRATIONS
from bot.store.sql import PgSql, Sql
from bot.store.sql_store import SqlStore, StoreError

log = logging.getLogger(__name__)

MIGRATION_LOCK = 0x4C414D40  # advisory lock held while migrating
RETRIES = 3  # attempts of a transaction PostgreSQL rolled back (deadlock, serialization)

PG_SCHEMA_VERSION = len(PG_MIGRATIONS)
T = TypeVar("T")
TABLES = ("games", "results", "guild_settings", "sessions", "app_state", "moves", "outbox",
          "ratings", "user_prefs")


class PgStore(SqlStore):
    """:class:`bot.store.sqlite.Store` on a PostgreSQL database shared by every process."""

    def __init__(self, url: str, *, min_size: int = 1, max_size: int = 8) -> None:
        super().__init__()
        self.url = url
        self.min_size, self.max_size = min_size, max_size
        self._pool: asyncpg.Pool | None = None
        self._write_lock = asyncio.Lock()

    @property
    def pool(self) -> asyncpg.Pool:
        if self._pool is None:
            raise StoreError("the store is not open")
        return self._pool

    async def open(self) -> None:
        """Connect and migrate to :data:`PG_SCHEMA_VERSION` (refusing a newer database)."""
        try:
            self._pool = await asyncpg.create_pool(self.url, min_size=self.min_size,
                                                   max_size=self.max_size)
        except (OSError, asyncpg.PostgresError) as exc:
            raise StoreError(f"cannot connect to the database in LAMA_DB: {exc}") from exc
        await self._migrate()

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()
            self._pool = None

    async def schema_version(self) -> int:
        async with self.pool.acquire() as conn:
            return await _version(conn)

    async def _migrate(self) -> None:
        async with self.pool.acquire() as conn, conn.transaction():
            # one process migrates; the others wait here and then find nothing to do
            await conn.execute("SELECT pg_advisory_xact_lock($1)", MIGRATION_LOCK)
            await conn.execute("CREATE TABLE IF NOT EXISTS lama_schema (version INTEGER NOT NULL)")
            version = await _version(conn)
            if version > PG_SCHEMA_VERSION:
                raise StoreError(
                    f"the database has schema version {version}, newer than this bot's "
                    f"{PG_SCHEMA_VERSION}: upgrade the bot")
            for number in range(version, PG_SCHEMA_VERSION):
                log.info("migrating the database to schema version %d", number + 1)
                await conn.execute(PG_MIGRATIONS[number])
            await ladder.rate_pending(PgSql(conn))  # games kept before ratings existed
            await conn.execute("DELETE FROM lama_schema")
            await conn.execute("INSERT INTO lama_schema (version) VALUES ($1)",
                               max(version, PG_SCHEMA_VERSION))

    async def integrity_check(self) -> list[str]:
        """``["ok"]`` when every table is there (PostgreSQL keeps its own files sound)."""
        async with self.pool.acquire() as conn:
            rows = await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname = "
                                    "current_schema()")
        missing = sorted(set(TABLES) - {r["tablename"] for r in rows})
        return [f"missing table {name}" for name in missing] or ["ok"]

    async def _transact(self, work: Callable[[Sql], Awaitable[T]]) -> T:
        """``work`` in one transaction. This process's writes go one at a time, as on SQLite:
        the delivery marks riding on a write touch other channels' rows, and two such
        transactions at once could deadlock. Processes own disjoint channels, so they do not
        contend; should PostgreSQL still report a deadlock or a serialization failure, the
        whole transaction was rolled back and is run again."""
        async with self._write_lock:
            for _ in range(RETRIES - 1):
                try:
                    return await self._attempt(work)
                except (asyncpg.exceptions.DeadlockDetectedError,
                        asyncpg.exceptions.SerializationError) as exc:
                    log.warning("transaction retried (%s)", exc.__class__.__name__)
            return await self._attempt(work)

    async def _attempt(self, work: Callable[[Sql], Awaitable[T]]) -> T:
        async with self.pool.acquire() as conn, conn.transaction():
            return await self._counted(PgSql(conn), work)

    @contextlib.asynccontextmanager
    async def _reading(self) -> AsyncIterator[Sql]:
        async with self.pool.acquire() as conn:
            yield PgSql(conn)

    def _is_open(self) -> bool:
        return self._pool is not None


async def _version(conn: asyncpg.Connection) -> int:
    exists = await conn.fetchval("SELECT to_regclass('lama_schema') IS NOT NULL")
    if not exists:
        return 0
    return int(await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM lama_schema"))

