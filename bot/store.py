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
import math
import sqlite3
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Protocol

import aiosqlite

from bot.open_problems import OPEN_TIMEOUT, open_problem, probe

log = logging.getLogger(__name__)

MIGRATIONS: tuple[str, ...] = (
    # 1: the first schema
    """
    CREATE TABLE games (
        guild_id INTEGER NOT NULL,
        game_id TEXT NOT NULL,
        channel_id INTEGER NOT NULL,
        variant TEXT NOT NULL,
        status TEXT NOT NULL,            -- finished | abandoned
        seed TEXT NOT NULL,
        record TEXT NOT NULL,            -- game.to_dict, replayable
        seats TEXT NOT NULL,             -- [{user_id, name}], user_id null for an AI
        started_at REAL NOT NULL,
        ended_at REAL NOT NULL,
        PRIMARY KEY (guild_id, game_id)
    );
    CREATE TABLE results (
        guild_id INTEGER NOT NULL,
        game_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        variant TEXT NOT NULL,
        points INTEGER NOT NULL,
        won INTEGER NOT NULL,
        PRIMARY KEY (guild_id, game_id, seat)
    );
    CREATE INDEX results_by_user ON results (guild_id, user_id);
    CREATE TABLE guild_settings (
        guild_id INTEGER NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (guild_id, key)
    );
    CREATE TABLE sessions (
        guild_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        state TEXT NOT NULL,             -- the lobby or the running game, see Session.snapshot
        updated_at REAL NOT NULL,
        PRIMARY KEY (guild_id, channel_id)
    );
    CREATE TABLE app_state (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
    # 2: why a game ended (finished | stopped | idle | channel_gone ...). Schema 1 abandoned
    # games only through /lama stop, so its abandoned games were stopped.
    """
    ALTER TABLE games ADD COLUMN end_reason TEXT;
    UPDATE games SET end_reason = CASE status WHEN 'finished' THEN 'finished' ELSE 'stopped' END;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)

END_FINISHED = "finished"
END_STOPPED = "stopped"


class StoreError(RuntimeError):
    """The database cannot be used (for example, written by a newer version)."""



@dataclass(frozen=True)
class SeatResult:
    """One seat's end of a finished game."""

    seat: int
    user_id: int | None
    name: str
    points: int
    won: bool


@dataclass(frozen=True)
class Standing:
    """One player's record in a guild: the leaderboard's row."""

    user_id: int
    name: str
    games: int
    wins: int
    points: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def average_points(self) -> float:
        return self.points / self.games if self.games else 0.0

    @property
    def rating(self) -> float:
        """Wilson lower bound (95 %) of the win rate: one lucky game does not top the board."""
        return wilson_lower_bound(self.wins, self.games)


def wilson_lower_bound(wins: int, games: int, z: float = 1.96) -> float:
    """The lower end of the Wilson score interval of ``wins`` out of ``games``."""
    if games == 0:
        return 0.0
    p = wins / games
    denominator = 1 + z * z / games
    centre = p + z * z / (2 * games)
    margin = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    return (centre - margin) / denominator


class Store(Protocol):
    """Everything the bot keeps between restarts."""

    async def open(self) -> None: ...
    async def close(self) -> None: ...
    async def schema_version(self) -> int: ...
    async def save_session(self, guild_id: int, channel_id: int, state: dict[str, Any]) -> None: ...
    async def drop_session(self, guild_id: int, channel_id: int) -> None: ...
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
    async def standings(self, guild_id: int, variant: str | None = None) -> list[Standing]: ...
    async def standing(
        self, guild_id: int, user_id: int, variant: str | None = None
    ) -> Standing | None: ...
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

    @property
    def db(self) -> aiosqlite.Connection:
        if self._db is None:
            raise StoreError("the store is not open")
        return self._db

    async def open(self) -> None:
        """Connect, switch to WAL, and migrate the schema to :data:`SCHEMA_VERSION`.

        WAL keeps every committed transaction through a killed process; ``synchronous=FULL``
        also through a power cut (one fsync per accepted action, cheap at a game's pace).
        """
        if self._db is not None:
            return  # python -m bot opens the store before logging in; setup_hook again
        try:
            # checked first, reading only: a file that is not a sound database stays untouched
            await asyncio.to_thread(probe, self.path)
            self._db = await aiosqlite.connect(self.path, timeout=OPEN_TIMEOUT)
            self._db.row_factory = aiosqlite.Row
            await self._db.execute("PRAGMA journal_mode=WAL")
            await self._db.execute("PRAGMA synchronous=FULL")
            await self._db.execute("PRAGMA busy_timeout=5000")
            await self._db.execute("PRAGMA foreign_keys=ON")
            await self._migrate()
        except sqlite3.Error as error:
            await self.close()
            raise StoreError(open_problem(self.path, error)) from error

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
                    f"BEGIN; {MIGRATIONS[number]} PRAGMA user_version = {number + 1}; COMMIT;"
                )
            except Exception:
                if self.db.in_transaction:
                    await self.db.rollback()
                raise

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
    async def save_session(self, guild_id: int, channel_id: int, state: dict[str, Any]) -> None:
        async with self._transaction() as db:
            await db.execute(
                "INSERT INTO sessions (guild_id, channel_id, state, updated_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (guild_id, channel_id) DO UPDATE SET "
                "state = excluded.state, updated_at = excluded.updated_at",
                (guild_id, channel_id, json.dumps(state), time.time()),
            )

    async def drop_session(self, guild_id: int, channel_id: int) -> None:
        async with self._transaction() as db:
            await db.execute(
                "DELETE FROM sessions WHERE guild_id = ? AND channel_id = ?",
                (guild_id, channel_id),
            )

    async def sessions(self, guild_id: int) -> list[dict[str, Any]]:
        async with self.db.execute(
            "SELECT state FROM sessions WHERE guild_id = ? ORDER BY channel_id", (guild_id,)
        ) as cursor:
            return [json.loads(row["state"]) async for row in cursor]

    async def running_sessions(self) -> list[dict[str, Any]]:
        """Every guild's lobbies and running games (what a restarted bot picks up again)."""
        async with self.db.execute(
            "SELECT state FROM sessions ORDER BY guild_id, channel_id"
        ) as cursor:
            return [json.loads(row["state"]) async for row in cursor]

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
        status = "abandoned" if results is None else "finished"
        reason = reason or (END_STOPPED if results is None else END_FINISHED)
        async with self._transaction() as db:
            await db.execute(
                "INSERT OR REPLACE INTO games (guild_id, game_id, channel_id, variant, status, "
                "seed, record, seats, started_at, ended_at, end_reason) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    guild_id,
                    game["game_id"],
                    channel_id,
                    game["variant"],
                    status,
                    str(game["seed"]),
                    json.dumps(game["record"]),
                    json.dumps(game["seats"]),
                    game.get("started_at", time.time()),
                    time.time(),
                    reason,
                ),
            )
            for result in results or []:
                if result.user_id is None:  # AI seats count for nobody
                    continue
                await db.execute(
                    "INSERT OR REPLACE INTO results (guild_id, game_id, seat, user_id, name, "
                    "variant, points, won) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        guild_id,
                        game["game_id"],
                        result.seat,
                        result.user_id,
                        result.name,
                        game["variant"],
                        result.points,
                        int(result.won),
                    ),
                )
            await db.execute(
                "DELETE FROM sessions WHERE guild_id = ? AND channel_id = ?",
                (guild_id, channel_id),
            )

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

    async def standings(self, guild_id: int, variant: str | None = None) -> list[Standing]:
        """The guild's players, best first (by the Wilson bound, then wins, then games)."""
        query = (
            "SELECT user_id, COUNT(*) AS games, SUM(won) AS wins, SUM(points) AS points, "
            "(SELECT name FROM results r2 WHERE r2.guild_id = r.guild_id "
            " AND r2.user_id = r.user_id ORDER BY rowid DESC LIMIT 1) AS name "
            "FROM results r WHERE guild_id = ?"
        )
        params: list[Any] = [guild_id]
        if variant is not None:
            query += " AND variant = ?"
            params.append(variant)
        query += " GROUP BY user_id"
        async with self.db.execute(query, params) as cursor:
            rows = await cursor.fetchall()
        standings = [
            Standing(row["user_id"], row["name"], row["games"], row["wins"], row["points"])
            for row in rows
        ]
        standings.sort(key=lambda s: (-s.rating, -s.wins, -s.games, s.name))
        return standings

    async def standing(
        self, guild_id: int, user_id: int, variant: str | None = None
    ) -> Standing | None:
        return next((s for s in await self.standings(guild_id, variant) if s.user_id == user_id),
                    None)

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
