"""Persistence behind one interface: finished games, results, settings, running sessions.

Every key is led by the guild id, so a store can later be split or shared
between processes. :class:`SqliteStore` is the implementation (aiosqlite,
WAL, schema versioned with ``PRAGMA user_version`` and migrated on open).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sqlite3
import time
from collections.abc import AsyncIterator
from typing import Any, Protocol

import aiosqlite

from bot import faults, ladder
from bot.open_problems import OPEN_TIMEOUT, open_problem, probe
from bot.outbox import STATE, Owed, Write
from bot.results import PlayedGame, SeatResult, Standing
from bot.schema import MIGRATIONS

log = logging.getLogger(__name__)

SCHEMA_VERSION = len(MIGRATIONS)

END_FINISHED = "finished"
END_STOPPED = "stopped"


class StoreError(RuntimeError):
    """The database cannot be used (for example, written by a newer version)."""


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
    async def set_app_value(self, key: str, value: str) -> None: ...
    async def integrity_check(self) -> list[str]: ...


class SqliteStore:
    """:class:`Store` on one SQLite file."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._db: aiosqlite.Connection | None = None
        # one connection serves every session: a write and its commit must not interleave with
        # another coroutine's, or one commit would publish half of the other's transaction
        self._write_lock = asyncio.Lock()
        self.synchronous = "NORMAL"
        self.bytes_written = 0  # logical bytes handed to SQLite in writes (benchmarks)
        self._delivered: dict[int, int] = {}  # outbox id -> version shown (not yet committed)
        self._messages: dict[tuple[int, int, str], int] = {}  # (guild, channel, key) -> id

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
            await self._migrate()
            await self._rate_pending()
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

    async def close(self) -> None:
        if self._db is not None:
            await self._db.close()
            self._db = None

    async def schema_version(self) -> int:
        async with self.db.execute("PRAGMA user_version") as cursor:
            row = await cursor.fetchone()
        return int(row[0]) if row else 0

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
        """Rate the finished games kept before ratings existed (once: bot/ladder.py)."""
        async with self.db.execute("SELECT 1 FROM games WHERE rated = 0 "
                                   "AND status = 'finished' LIMIT 1") as cursor:
            if await cursor.fetchone() is None:
                return
        async with self._transaction() as db:
            await db.execute("BEGIN IMMEDIATE")  # read and write under one lock
            await ladder.rate_pending(ladder.SqliteSql(db))

    @contextlib.asynccontextmanager
    async def _transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        """All of the block's writes, or (on any error) none of them."""
        async with self._write_lock:
            db = self.db
            try:
                yield db
            except BaseException:
                await db.rollback()
                raise
            await db.commit()

    async def integrity_check(self) -> list[str]:
        """``PRAGMA integrity_check``: ``["ok"]`` for a sound file, else the problems found."""
        async with self.db.execute("PRAGMA integrity_check") as cursor:
            return [str(row[0]) async for row in cursor]

    # ---- running sessions ------------------------------------------------
    async def _execute(self, db: aiosqlite.Connection, sql: str, params: tuple[Any, ...]) -> Any:
        self.bytes_written += sum(len(p) if isinstance(p, str) else 8 for p in params)
        return await db.execute(sql, params)

    async def write(self, change: Write) -> None:
        """A session's change and the messages it owes, in one transaction (with the marks)."""
        g, c = change.guild_id, change.channel_id
        async with self._transaction() as db:
            await self._write_notes(db)
            if change.snapshot is not None:
                await self._execute(
                    db,
                    "INSERT INTO sessions (guild_id, channel_id, state, updated_at, "
                    "table_message_id, lobby_message_id) VALUES (?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (guild_id, channel_id) DO UPDATE SET state = excluded.state, "
                    "updated_at = excluded.updated_at, "
                    "table_message_id = excluded.table_message_id, "
                    "lobby_message_id = excluded.lobby_message_id",
                    (g, c, json.dumps(change.snapshot), time.time(),
                     change.snapshot.get("table_message_id"),
                     change.snapshot.get("lobby_message_id")),
                )
                await db.execute("DELETE FROM moves WHERE guild_id = ? AND channel_id = ?", (g, c))
            if change.move is not None:
                move = change.move
                await self._execute(
                    db, "INSERT INTO moves (guild_id, channel_id, seat, action, meta) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (g, c, move.get("seat"), move.get("action"), json.dumps(move["meta"])),
                )
            if change.finish is not None:
                await self._finish(db, g, c, **change.finish)
            if change.end or change.finish is not None:
                await db.execute("DELETE FROM sessions WHERE guild_id = ? AND channel_id = ?",
                                 (g, c))
                await db.execute("DELETE FROM moves WHERE guild_id = ? AND channel_id = ?", (g, c))
                await db.execute("DELETE FROM outbox WHERE guild_id = ? AND channel_id = ? "
                                 "AND kind = ?", (g, c, STATE))
            for item in change.owed:
                if item.kind == STATE:  # the latest replaces the older (unless being shown)
                    await db.execute(
                        "DELETE FROM outbox WHERE guild_id = ? AND channel_id = ? AND kind = ? "
                        "AND key = ? AND id IS NOT ?", (g, c, STATE, item.key, item.spare))
                cursor = await self._execute(
                    db, "INSERT INTO outbox (guild_id, channel_id, kind, key, version, body, "
                    "nonce) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (g, c, item.kind, item.key, item.version, json.dumps(item.body), item.nonce),
                )
                item.id = cursor.lastrowid
        faults.point("commit", c)
        for item in change.owed:
            faults.point(f"commit:{item.key}", c)

    def note_delivered(self, item: Owed) -> None:
        """``item`` was shown; the mark is committed with the next write or flush."""
        if item.id is not None:
            self._delivered[item.id] = max(item.version, self._delivered.get(item.id, 0))

    def note_message(self, guild_id: int, channel_id: int, key: str, message_id: int) -> None:
        if key in ("table", "lobby"):
            self._messages[(guild_id, channel_id, key)] = message_id

    async def flush_notes(self) -> None:
        if not (self._delivered or self._messages) or self._db is None:
            return
        async with self._transaction() as db:
            await self._write_notes(db)

    async def _write_notes(self, db: aiosqlite.Connection) -> None:
        delivered, self._delivered = self._delivered, {}
        messages, self._messages = self._messages, {}
        try:
            if delivered:  # one call (one hop to SQLite's thread) for all of them
                await db.executemany("DELETE FROM outbox WHERE id = ? AND version <= ?",
                                     list(delivered.items()))
            for (g, c, key), message_id in messages.items():
                await self._execute(
                    db, f"UPDATE sessions SET {key}_message_id = ? "
                    "WHERE guild_id = ? AND channel_id = ?", (message_id, g, c))
        except BaseException:  # the transaction rolls back: keep the notes for the next one
            self._delivered = {**delivered, **self._delivered}
            self._messages = {**messages, **self._messages}
            raise

    async def owed(self) -> list[Owed]:
        """Every owed item, oldest first (start-up)."""
        async with self.db.execute("SELECT * FROM outbox ORDER BY id") as cursor:
            rows = await cursor.fetchall()
        return [Owed(r["guild_id"], r["channel_id"], r["kind"], r["key"], r["version"],
                     json.loads(r["body"]), r["nonce"], r["id"]) for r in rows
                if r["id"] not in self._delivered]

    async def save_session(self, guild_id: int, channel_id: int, state: dict[str, Any]) -> None:
        await self.write(Write(guild_id, channel_id, snapshot=state))

    async def drop_session(self, guild_id: int, channel_id: int) -> None:
        await self.write(Write(guild_id, channel_id, end=True))

    async def _sessions_where(self, where: str, params: tuple[Any, ...]) -> list[dict[str, Any]]:
        """Snapshots with their move rows (``moves``) and message ids folded in."""
        async with self.db.execute(
            f"SELECT * FROM sessions {where} ORDER BY guild_id, channel_id", params
        ) as cursor:
            rows = await cursor.fetchall()
        result = []
        for row in rows:
            data = json.loads(row["state"])
            for key in ("table_message_id", "lobby_message_id"):
                if row[key] is not None:
                    data[key] = row[key]
            async with self.db.execute(
                "SELECT seat, action, meta FROM moves WHERE guild_id = ? AND channel_id = ? "
                "ORDER BY id", (row["guild_id"], row["channel_id"])
            ) as cursor:
                data["moves"] = [{"seat": m["seat"], "action": m["action"],
                                  "meta": json.loads(m["meta"])} async for m in cursor]
            result.append(data)
        return result

    async def session(self, guild_id: int, channel_id: int) -> dict[str, Any] | None:
        found = await self._sessions_where("WHERE guild_id = ? AND channel_id = ?",
                                           (guild_id, channel_id))
        return found[0] if found else None

    async def sessions(self, guild_id: int) -> list[dict[str, Any]]:
        return await self._sessions_where("WHERE guild_id = ?", (guild_id,))

    async def running_sessions(self) -> list[dict[str, Any]]:
        """Every guild's lobbies and running games (what a restarted bot picks up again)."""
        return await self._sessions_where("", ())

    # ---- finished games --------------------------------------------------
    async def finish_game(
        self,
        guild_id: int,
        channel_id: int,
        game: dict[str, Any],
        results: list[SeatResult] | None,
        reason: str | None = None,
    ) -> None:
        """Keep a finished (results given) or abandoned (``None``) game; end its session.

        One transaction; storing the same game again replaces it (idempotent). ``reason``
        says why it ended (default: ``finished`` with results, ``stopped`` without).
        """
        await self.write(Write(guild_id, channel_id, finish={
            "game": game, "results": results, "reason": reason}))

    async def _finish(
        self, db: aiosqlite.Connection, guild_id: int, channel_id: int, game: dict[str, Any],
        results: list[SeatResult] | None, reason: str | None = None,
    ) -> None:
        status = "abandoned" if results is None else "finished"
        reason = reason or (END_STOPPED if results is None else END_FINISHED)
        await self._execute(  # an upsert: storing a game again keeps its ``rated`` mark
            db, "INSERT INTO games (guild_id, game_id, channel_id, variant, status, "
            "seed, record, seats, started_at, ended_at, end_reason) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, game_id) DO UPDATE "
            "SET channel_id = excluded.channel_id, variant = excluded.variant, "
            "status = excluded.status, seed = excluded.seed, record = excluded.record, "
            "seats = excluded.seats, started_at = excluded.started_at, "
            "ended_at = excluded.ended_at, end_reason = excluded.end_reason",
            (guild_id, game["game_id"], channel_id, game["variant"], status, str(game["seed"]),
             json.dumps(game["record"]), json.dumps(game["seats"]),
             game.get("started_at", time.time()), time.time(), reason),
        )
        for result in results or []:
            if result.user_id is None:  # AI seats have no result rows (they are rated)
                continue
            await self._execute(
                db, "INSERT INTO results (guild_id, game_id, seat, user_id, name, variant, "
                "points, won) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, game_id, "
                "seat) DO UPDATE SET user_id = excluded.user_id, name = excluded.name, "
                "variant = excluded.variant, points = excluded.points, won = excluded.won",
                (guild_id, game["game_id"], result.seat, result.user_id, result.name,
                 game["variant"], result.points, int(result.won)),
            )
        if results is not None:
            await ladder.rate_game(ladder.SqliteSql(db), guild_id, game, results)

    async def game(self, guild_id: int, game_id: str) -> dict[str, Any] | None:
        async with self.db.execute(
            "SELECT * FROM games WHERE guild_id = ? AND game_id = ?", (guild_id, game_id)
        ) as cursor:
            row = await cursor.fetchone()
        if row is None:
            return None
        result = dict(row)
        result["record"] = json.loads(result["record"])
        result["seats"] = json.loads(result["seats"])
        return result

    async def standings(self, guild_id: int, variant: str) -> list[Standing]:
        """The guild's players in ``variant``, best first by rating (bot/ladder.py)."""
        return await ladder.standings(ladder.SqliteSql(self.db), guild_id, variant)

    async def played_variants(self, guild_id: int) -> dict[str, int]:
        return await ladder.played_variants(ladder.SqliteSql(self.db), guild_id)

    async def player_games(self, guild_id: int, user_id: int) -> list[PlayedGame]:
        return await ladder.player_games(ladder.SqliteSql(self.db), guild_id, user_id)

    # ---- settings --------------------------------------------------------
    async def guild_setting(self, guild_id: int, key: str) -> str | None:
        async with self.db.execute(
            "SELECT value FROM guild_settings WHERE guild_id = ? AND key = ?", (guild_id, key)
        ) as cursor:
            row = await cursor.fetchone()
        return None if row is None else str(row["value"])

    async def guild_settings(self, key: str) -> dict[int, str]:
        """Every guild's value of ``key`` (read once at start-up into the in-memory cache)."""
        async with self.db.execute(
            "SELECT guild_id, value FROM guild_settings WHERE key = ?", (key,)
        ) as cursor:
            rows = await cursor.fetchall()
        return {int(row["guild_id"]): str(row["value"]) for row in rows}

    async def set_guild_setting(self, guild_id: int, key: str, value: str) -> None:
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO guild_settings (guild_id, key, value) VALUES (?, ?, ?) "
                "ON CONFLICT (guild_id, key) DO UPDATE SET value = excluded.value",
                (guild_id, key, value),
            )

    async def app_value(self, key: str) -> str | None:
        async with self.db.execute("SELECT value FROM app_state WHERE key = ?", (key,)) as cursor:
            row = await cursor.fetchone()
        return None if row is None else str(row["value"])

    async def set_app_value(self, key: str, value: str) -> None:
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO app_state (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )
