""":class:`PgStore`: the :class:`bot.store.Store` on PostgreSQL (asyncpg), for several processes.

Chosen by ``LAMA_DB=postgresql://...``. The tables and their meaning are SQLite's
(bot/store.py), with PostgreSQL types; schema versions are numbered alike, kept in
``lama_schema`` and applied under an advisory lock, so processes starting together migrate
once. Every write is one transaction on a pooled connection: processes write concurrently,
each change lands whole or not at all, and the only read-modify-write (a finished game's
ratings, bot/ladder.py) locks the rows it changes, so no update is lost. Within a process, writes
go one at a time (see :meth:`PgStore._in_transaction`). Which process may change
a channel's session is settled by the shard leases (bot/leases.py), not here.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg

from bot import faults, ladder
from bot.outbox import STATE, Owed, Write
from bot.pgschema import PG_MIGRATIONS
from bot.results import PlayedGame
from bot.store import END_FINISHED, END_STOPPED, SeatResult, Standing, StoreError

log = logging.getLogger(__name__)

MIGRATION_LOCK = 0x4C414D40  # advisory lock held while migrating
RETRIES = 3  # attempts of a transaction PostgreSQL rolled back (deadlock, serialization)

PG_SCHEMA_VERSION = len(PG_MIGRATIONS)
TABLES = ("games", "results", "guild_settings", "sessions", "app_state", "moves", "outbox",
          "ratings")


class PgStore:
    """:class:`bot.store.Store` on a PostgreSQL database shared by every process."""

    def __init__(self, url: str, *, min_size: int = 1, max_size: int = 8) -> None:
        self.url = url
        self.min_size, self.max_size = min_size, max_size
        self._pool: asyncpg.Pool | None = None
        self._write_lock = asyncio.Lock()
        self._delivered: dict[int, int] = {}  # outbox id -> version shown (not yet committed)
        self._messages: dict[tuple[int, int, str], int] = {}  # (guild, channel, key) -> id

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
            await ladder.rate_pending(ladder.PgSql(conn))  # games kept before ratings existed
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
    async def _in_transaction(self, work: Callable[[asyncpg.Connection], Awaitable[None]]
                              ) -> None:
        """``work`` in one transaction. This process's writes go one at a time, as on SQLite:
        the delivery marks riding on a write touch other channels' rows, and two such
        transactions at once could deadlock. Processes own disjoint channels, so they do not
        contend; should PostgreSQL still report a deadlock or a serialization failure, the
        whole transaction was rolled back and is run again."""
        async with self._write_lock:
            for attempt in range(1, RETRIES + 1):
                try:
                    async with self.pool.acquire() as conn, conn.transaction():
                        await work(conn)
                    return
                except (asyncpg.exceptions.DeadlockDetectedError,
                        asyncpg.exceptions.SerializationError) as exc:
                    if attempt == RETRIES:
                        raise
                    log.warning("transaction retried (%s)", exc.__class__.__name__)

    async def write(self, change: Write) -> None:
        """A session's change and the messages it owes, in one transaction (with the marks)."""
        await self._in_transaction(lambda conn: self._write(conn, change))
        faults.point("commit", change.channel_id)
        for item in change.owed:
            faults.point(f"commit:{item.key}", change.channel_id)

    async def _write(self, conn: asyncpg.Connection, change: Write) -> None:
        g, c = change.guild_id, change.channel_id
        await self._write_notes(conn)
        if change.snapshot is not None:
            snap = change.snapshot
            await conn.execute(
                "INSERT INTO sessions (guild_id, channel_id, state, updated_at, "
                "table_message_id, lobby_message_id) VALUES ($1, $2, $3, $4, $5, $6) "
                "ON CONFLICT (guild_id, channel_id) DO UPDATE SET state = excluded.state, "
                "updated_at = excluded.updated_at, "
                "table_message_id = excluded.table_message_id, "
                "lobby_message_id = excluded.lobby_message_id",
                g, c, json.dumps(snap), time.time(), snap.get("table_message_id"),
                snap.get("lobby_message_id"))
            await conn.execute("DELETE FROM moves WHERE guild_id = $1 AND channel_id = $2",
                               g, c)
        if change.move is not None:
            move = change.move
            await conn.execute(
                "INSERT INTO moves (guild_id, channel_id, seat, action, meta) "
                "VALUES ($1, $2, $3, $4, $5)",
                g, c, move.get("seat"), move.get("action"), json.dumps(move["meta"]))
        if change.finish is not None:
            await finish(conn, g, c, **change.finish)
        if change.end or change.finish is not None:
            for table in ("sessions", "moves"):
                await conn.execute(
                    f"DELETE FROM {table} WHERE guild_id = $1 AND channel_id = $2", g, c)
            await conn.execute("DELETE FROM outbox WHERE guild_id = $1 AND channel_id = $2 "
                               "AND kind = $3", g, c, STATE)
        for item in change.owed:
            if item.kind == STATE:  # the latest replaces the older (unless being shown)
                await conn.execute(
                    "DELETE FROM outbox WHERE guild_id = $1 AND channel_id = $2 AND "
                    "kind = $3 AND key = $4 AND id IS DISTINCT FROM $5",
                    g, c, STATE, item.key, item.spare)
            item.id = await conn.fetchval(
                "INSERT INTO outbox (guild_id, channel_id, kind, key, version, body, nonce) "
                "VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
                g, c, item.kind, item.key, item.version, json.dumps(item.body), item.nonce)

    def note_delivered(self, item: Owed) -> None:
        """``item`` was shown; the mark is committed with the next write or flush."""
        if item.id is not None:
            self._delivered[item.id] = max(item.version, self._delivered.get(item.id, 0))

    def note_message(self, guild_id: int, channel_id: int, key: str, message_id: int) -> None:
        if key in ("table", "lobby"):
            self._messages[(guild_id, channel_id, key)] = message_id

    async def flush_notes(self) -> None:
        if not (self._delivered or self._messages) or self._pool is None:
            return
        await self._in_transaction(self._write_notes)

    async def _write_notes(self, conn: asyncpg.Connection) -> None:
        delivered, self._delivered = self._delivered, {}
        messages, self._messages = self._messages, {}
        try:
            if delivered:
                await conn.executemany("DELETE FROM outbox WHERE id = $1 AND version <= $2",
                                       list(delivered.items()))
            for (g, c, key), message_id in messages.items():
                await conn.execute(f"UPDATE sessions SET {key}_message_id = $1 "
                                   "WHERE guild_id = $2 AND channel_id = $3", message_id, g, c)
        except BaseException:  # the transaction rolls back: keep the notes for the next one
            self._delivered = {**delivered, **self._delivered}
            self._messages = {**messages, **self._messages}
            raise

    async def owed(self) -> list[Owed]:
        """Every owed item, oldest first (start-up)."""
        async with self.pool.acquire() as conn:
            rows = await conn.fetch("SELECT * FROM outbox ORDER BY id")
        return [Owed(r["guild_id"], r["channel_id"], r["kind"], r["key"], r["version"],
                     json.loads(r["body"]), r["nonce"], r["id"]) for r in rows
                if r["id"] not in self._delivered]

    async def save_session(self, guild_id: int, channel_id: int, state: dict[str, Any]) -> None:
        await self.write(Write(guild_id, channel_id, snapshot=state))

    async def drop_session(self, guild_id: int, channel_id: int) -> None:
        await self.write(Write(guild_id, channel_id, end=True))

    async def _sessions_where(self, where: str, *params: Any) -> list[dict[str, Any]]:
        """Snapshots with their move rows (``moves``) and message ids folded in."""
        async with self.pool.acquire() as conn:
            rows = await conn.fetch(
                f"SELECT * FROM sessions {where} ORDER BY guild_id, channel_id", *params)
            moves = await conn.fetch(
                f"SELECT guild_id, channel_id, seat, action, meta FROM moves {where} "
                "ORDER BY id", *params)
        by_channel: dict[tuple[int, int], list[dict[str, Any]]] = {}
        for m in moves:
            by_channel.setdefault((m["guild_id"], m["channel_id"]), []).append(
                {"seat": m["seat"], "action": m["action"], "meta": json.loads(m["meta"])})
        result = []
        for row in rows:
            data = json.loads(row["state"])
            for key in ("table_message_id", "lobby_message_id"):
                if row[key] is not None:
                    data[key] = row[key]
            data["moves"] = by_channel.get((row["guild_id"], row["channel_id"]), [])
            result.append(data)
        return result

    async def session(self, guild_id: int, channel_id: int) -> dict[str, Any] | None:
        found = await self._sessions_where("WHERE guild_id = $1 AND channel_id = $2",
                                           guild_id, channel_id)
        return found[0] if found else None

    async def sessions(self, guild_id: int) -> list[dict[str, Any]]:
        return await self._sessions_where("WHERE guild_id = $1", guild_id)

    async def running_sessions(self) -> list[dict[str, Any]]:
        return await self._sessions_where("")

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
        await self.write(Write(guild_id, channel_id, finish={
            "game": game, "results": results, "reason": reason}))

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

    async def standings(self, guild_id: int, variant: str) -> list[Standing]:
        """The guild's players in ``variant``, best first by rating (bot/ladder.py)."""
        async with self.pool.acquire() as conn:
            return await ladder.standings(ladder.PgSql(conn), guild_id, variant)

    async def played_variants(self, guild_id: int) -> dict[str, int]:
        async with self.pool.acquire() as conn:
            return await ladder.played_variants(ladder.PgSql(conn), guild_id)

    async def player_games(self, guild_id: int, user_id: int) -> list[PlayedGame]:
        async with self.pool.acquire() as conn:
            return await ladder.player_games(ladder.PgSql(conn), guild_id, user_id)

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
             int(r.won)) for r in results or [] if r.user_id is not None]  # AIs: no rows
    if rows:
        await conn.executemany(
            "INSERT INTO results (guild_id, game_id, seat, user_id, name, variant, points, won) "
            "VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (guild_id, game_id, seat) "
            "DO UPDATE SET user_id = excluded.user_id, name = excluded.name, "
            "variant = excluded.variant, points = excluded.points, won = excluded.won", rows)
    if results is not None:
        await ladder.rate_game(ladder.PgSql(conn), guild_id, game, results)
