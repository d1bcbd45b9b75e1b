""":class:`PgStore`: the :class:`bot.store.Store` on PostgreSQL (asyncpg), for several processes.

Chosen by ``LAMA_DB=postgresql://...``. The tables and their meaning are SQLite's
(bot/store.py), with PostgreSQL types; schema versions are numbered alike, kept in
``lama_schema`` and applied under an advisory lock, so processes starting together migrate
once. Every write is one transaction on a pooled connection: processes write concurrently,
each change lands whole or not at all, and nothing is read-modify-written (standings are
counted from the result rows at read time), so no update is lost. Which process may change
a channel's session is settled by the shard leases (bot/leases.py), not here.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import asyncpg

from bot.store import END_FINISHED, END_STOPPED, SeatResult, Standing, StoreError

log = logging.getLogger(__name__)

MIGRATION_LOCK = 0x4C414D40  # advisory lock held while migrating

PG_MIGRATIONS: tuple[str, ...] = (
    # 1: the first schema (bot/store.py's version 1)
    """
    CREATE TABLE games (
        guild_id BIGINT NOT NULL,
        game_id TEXT NOT NULL,
        channel_id BIGINT NOT NULL,
        variant TEXT NOT NULL,
        status TEXT NOT NULL,
        seed TEXT NOT NULL,
        record TEXT NOT NULL,
        seats TEXT NOT NULL,
        started_at DOUBLE PRECISION NOT NULL,
        ended_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (guild_id, game_id)
    );
    CREATE TABLE results (
        id BIGSERIAL UNIQUE,             -- insertion order (SQLite's rowid): the latest name
        guild_id BIGINT NOT NULL,
        game_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        user_id BIGINT NOT NULL,
        name TEXT NOT NULL,
        variant TEXT NOT NULL,
        points INTEGER NOT NULL,
        won INTEGER NOT NULL,
        PRIMARY KEY (guild_id, game_id, seat)
    );
    CREATE INDEX results_by_user ON results (guild_id, user_id);
    CREATE TABLE guild_settings (
        guild_id BIGINT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (guild_id, key)
    );
    CREATE TABLE sessions (
        guild_id BIGINT NOT NULL,
        channel_id BIGINT NOT NULL,
        state TEXT NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (guild_id, channel_id)
    );
    CREATE TABLE app_state (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
    # 2: why a game ended
    """
    ALTER TABLE games ADD COLUMN end_reason TEXT;
    UPDATE games SET end_reason = CASE status WHEN 'finished' THEN 'finished' ELSE 'stopped' END;
    """,
)
PG_SCHEMA_VERSION = len(PG_MIGRATIONS)
TABLES = ("games", "results", "guild_settings", "sessions", "app_state")


class PgStore:
    """:class:`bot.store.Store` on a PostgreSQL database shared by every process."""

    def __init__(self, url: str, *, min_size: int = 1, max_size: int = 8) -> None:
        self.url = url
        self.min_size, self.max_size = min_size, max_size
        self._pool: asyncpg.Pool | None = None

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

    # ---- running sessions ------------------------------------------------
    async def save_session(self, guild_id: int, channel_id: int, state: dict[str, Any]) -> None:
        async with self.pool.acquire() as conn:
            await conn.execute(
                "INSERT INTO sessions (guild_id, channel_id, state, updated_at) "
                "VALUES ($1, $2, $3, $4) ON CONFLICT (guild_id, channel_id) DO UPDATE SET "
                "state = excluded.state, updated_at = excluded.updated_at",
                guild_id, channel_id, json.dumps(state), time.time())

    async def drop_session(self, guild_id: int, channel_id: int) -> None:
        async with self.pool.acquire() as conn:
            await conn.execute("DELETE FROM sessions WHERE guild_id = $1 AND channel_id = $2",
                               guild_id, channel_id)

    async def sessions(self, guild_id: int) -> list[dict[str, Any]]:
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(
                "SELECT state FROM sessions WHERE guild_id = $1 ORDER BY channel_id", guild_id)
        return [json.loads(r["state"]) for r in rows]

    async def running_sessions(self) -> list[dict[str, Any]]:
        async with self.pool.acquire() as conn:
            rows = await conn.fetch("SELECT state FROM sessions ORDER BY guild_id, channel_id")
        return [json.loads(r["state"]) for r in rows]

    # ---- finished games --------------------------------------------------
    async def finish_game(
        self,
        guild_id: int,
        channel_id: int,
        game: dict[str, Any],
        results: list[SeatResult] | None,
        reason: str | None = None,
    ) -> None:
        """Keep a finished or abandoned game and end its session, in one transaction;
        storing the same game again replaces it (a game counts once)."""
        async with self.pool.acquire() as conn, conn.transaction():
            await finish(conn, guild_id, channel_id, game, results, reason)
            await conn.execute("DELETE FROM sessions WHERE guild_id = $1 AND channel_id = $2",
                               guild_id, channel_id)

    async def game(self, guild_id: int, game_id: str) -> dict[str, Any] | None:
        async with self.pool.acquire() as conn:
            row = await conn.fetchrow(
                "SELECT guild_id, game_id, channel_id, variant, status, seed, record, seats, "
                "started_at, ended_at, end_reason FROM games WHERE guild_id = $1 "
                "AND game_id = $2", guild_id, game_id)
        if row is None:
            return None
        result = dict(row)
        result["record"] = json.loads(result["record"])
        result["seats"] = json.loads(result["seats"])
        return result

    async def standings(self, guild_id: int, variant: str | None = None) -> list[Standing]:
        """The guild's players, best first (Wilson bound, then wins, then games)."""
        query = (
            "SELECT user_id, COUNT(*) AS games, SUM(won) AS wins, SUM(points) AS points, "
            "(SELECT name FROM results r2 WHERE r2.guild_id = r.guild_id "
            " AND r2.user_id = r.user_id ORDER BY id DESC LIMIT 1) AS name "
            "FROM results r WHERE guild_id = $1"
        )
        params: list[Any] = [guild_id]
        if variant is not None:
            query += " AND variant = $2"
            params.append(variant)
        query += " GROUP BY guild_id, user_id"
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(query, *params)
        standings = [Standing(r["user_id"], r["name"], r["games"], r["wins"], r["points"])
                     for r in rows]
        standings.sort(key=lambda s: (-s.rating, -s.wins, -s.games, s.name))
        return standings

    async def standing(
        self, guild_id: int, user_id: int, variant: str | None = None
    ) -> Standing | None:
        return next((s for s in await self.standings(guild_id, variant) if s.user_id == user_id),
                    None)

    # ---- settings --------------------------------------------------------
    async def guild_setting(self, guild_id: int, key: str) -> str | None:
        async with self.pool.acquire() as conn:
            return await conn.fetchval(
                "SELECT value FROM guild_settings WHERE guild_id = $1 AND key = $2",
                guild_id, key)

    async def guild_settings(self, key: str) -> dict[int, str]:
        async with self.pool.acquire() as conn:
            rows = await conn.fetch("SELECT guild_id, value FROM guild_settings WHERE key = $1",
                                    key)
        return {int(r["guild_id"]): str(r["value"]) for r in rows}

    async def set_guild_setting(self, guild_id: int, key: str, value: str) -> None:
        async with self.pool.acquire() as conn:
            await conn.execute(
                "INSERT INTO guild_settings (guild_id, key, value) VALUES ($1, $2, $3) "
                "ON CONFLICT (guild_id, key) DO UPDATE SET value = excluded.value",
                guild_id, key, value)

    async def app_value(self, key: str) -> str | None:
        async with self.pool.acquire() as conn:
            return await conn.fetchval("SELECT value FROM app_state WHERE key = $1", key)

    async def set_app_value(self, key: str, value: str) -> None:
        async with self.pool.acquire() as conn:
            await conn.execute(
                "INSERT INTO app_state (key, value) VALUES ($1, $2) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, value)


async def _version(conn: asyncpg.Connection) -> int:
    exists = await conn.fetchval("SELECT to_regclass('lama_schema') IS NOT NULL")
    if not exists:
        return 0
    return int(await conn.fetchval("SELECT COALESCE(MAX(version), 0) FROM lama_schema"))


async def finish(
    conn: asyncpg.Connection, guild_id: int, channel_id: int, game: dict[str, Any],
    results: list[SeatResult] | None, reason: str | None,
) -> None:
    """The game's row and its human seats' results (inside the caller's transaction)."""
    status = "abandoned" if results is None else "finished"
    reason = reason or (END_STOPPED if results is None else END_FINISHED)
    await conn.execute(
        "INSERT INTO games (guild_id, game_id, channel_id, variant, status, seed, record, "
        "seats, started_at, ended_at, end_reason) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) "
        "ON CONFLICT (guild_id, game_id) DO UPDATE SET channel_id = excluded.channel_id, "
        "variant = excluded.variant, status = excluded.status, seed = excluded.seed, "
        "record = excluded.record, seats = excluded.seats, started_at = excluded.started_at, "
        "ended_at = excluded.ended_at, end_reason = excluded.end_reason",
        guild_id, game["game_id"], channel_id, game["variant"], status, str(game["seed"]),
        json.dumps(game["record"]), json.dumps(game["seats"]),
        float(game.get("started_at", time.time())), time.time(), reason)
    rows = [(guild_id, game["game_id"], r.seat, r.user_id, r.name, game["variant"], r.points,
             int(r.won)) for r in results or [] if r.user_id is not None]  # AIs count for nobody
    if rows:
        await conn.executemany(
            "INSERT INTO results (guild_id, game_id, seat, user_id, name, variant, points, won) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (guild_id, game_id, seat) "
            "DO UPDATE SET user_id = excluded.user_id, name = excluded.name, "
            "variant = excluded.variant, points = excluded.points, won = excluded.won", rows)
