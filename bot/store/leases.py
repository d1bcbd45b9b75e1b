"""One owner per shard: a process serves a shard's sessions only while it holds its lease.

Two processes configured with overlapping shard ranges (or a process restarted while the old
one still runs) would otherwise both restore, time and change the same channel's session.
Before it restores anything, a process takes the lease of each of its shards and waits while
another live process holds one; it takes a lease over only when its holder is gone.

- PostgreSQL: a session-level advisory lock per shard (``pg_try_advisory_lock``) on a
  connection held for the process's life. The server frees it the moment that connection
  ends, so a killed process's shards are free at once.
- SQLite (one machine): a ``shard_leases`` row per shard naming its holder (host, pid and a
  random tag) with an expiry renewed by a heartbeat. A row is taken over when it expired, or
  when its holder's pid is no longer alive on this host.

A process without shard settings connects every shard: it holds the whole-bot lease
(``shard_count`` 0), so two such processes on one database never run together.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
import sqlite3
import time
from collections.abc import Callable
from typing import Protocol

import aiosqlite

from bot.common.shards import ShardPlan
from bot.store.open_problems import open_problem
from bot.store.sql_store import StoreError

log = logging.getLogger(__name__)

LOCK_CLASS = 0x4C414D41  # "LAMA": the advisory lock namespace (first key)
TTL = 15.0  # seconds a SQLite lease lives without a heartbeat
HEARTBEAT = 5.0
RETRY = 0.2  # seconds between attempts while another live process holds a lease


def lease_keys(plan: ShardPlan) -> list[tuple[int, int]]:
    """``(shard_count, shard_id)`` of every lease ``plan`` needs (``(0, 0)``: the whole bot)."""
    if plan.count is None:
        return [(0, 0)]
    ids = plan.ids if plan.ids is not None else tuple(range(plan.count))
    return [(plan.count, i) for i in ids]


class ShardLeases(Protocol):
    lost: asyncio.Event  # set when a held lease can no longer be vouched for

    async def acquire(self, plan: ShardPlan, timeout: float | None = None) -> None: ...
    async def release(self) -> None: ...


class LeaseTimeout(RuntimeError):
    """Another live process kept a shard's lease for longer than we would wait."""


async def _until_all(try_all: Callable[[], asyncio.Future[list[tuple[int, int]]]],
                     timeout: float | None) -> None:
    """Retry ``try_all`` (which returns the keys still held by others) until none is left."""
    deadline = None if timeout is None else time.monotonic() + timeout
    logged = False
    while True:
        missing = await try_all()
        if not missing:
            return
        if not logged:
            log.warning("shards %s are held by another process; waiting for it to go",
                        [k[1] for k in missing])
            logged = True
        if deadline is not None and time.monotonic() > deadline:
            raise LeaseTimeout(f"shards {[k[1] for k in missing]} stayed held by another process")
        await asyncio.sleep(RETRY)


class PgShardLocks:
    """Advisory locks on a dedicated asyncpg connection."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._conn: object | None = None
        self.held: list[tuple[int, int]] = []
        self.lost = asyncio.Event()

    async def acquire(self, plan: ShardPlan, timeout: float | None = None) -> None:
        import asyncpg

        conn = self._conn = await asyncpg.connect(self.url)
        # the locks live as long as this connection: if the server drops it, they are gone
        conn.add_termination_listener(lambda _: self.lost.set() if self._conn else None)
        wanted = lease_keys(plan)

        async def try_all() -> list[tuple[int, int]]:
            for key in wanted:
                if key not in self.held and await conn.fetchval(
                        "SELECT pg_try_advisory_lock($1, $2)", LOCK_CLASS, _key(key)):
                    self.held.append(key)
            return [k for k in wanted if k not in self.held]

        try:
            await _until_all(try_all, timeout)  # type: ignore[arg-type]
        except BaseException:
            await self.release()  # hold none rather than some
            raise

    async def release(self) -> None:
        conn, self._conn = self._conn, None
        self.held = []
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.close()  # type: ignore[attr-defined]  # ends the locks with it


def _key(key: tuple[int, int]) -> int:
    count, shard = key
    return (count << 16) | shard


class SqliteShardLeases:
    """Lease rows with heartbeats in the bot's SQLite file."""

    def __init__(self, path: str, ttl: float = TTL, heartbeat: float = HEARTBEAT) -> None:
        self.path = path
        self.ttl, self.heartbeat = ttl, heartbeat
        self.host = socket.gethostname()
        self.holder = f"{self.host}:{os.getpid()}:{secrets.token_hex(4)}"
        self.held: list[tuple[int, int]] = []
        self._db: aiosqlite.Connection | None = None
        self._beat: asyncio.Task[None] | None = None
        self.lost = asyncio.Event()

    async def acquire(self, plan: ShardPlan, timeout: float | None = None) -> None:
        if self.path == ":memory:":
            return  # nobody else can open this database
        try:  # (the store checked the file first: this is for a file changed since)
            self._db = await aiosqlite.connect(self.path, isolation_level=None)
            await self._db.execute("PRAGMA busy_timeout=5000")
            await self._db.execute(
                "CREATE TABLE IF NOT EXISTS shard_leases (shard_count INTEGER NOT NULL, "
                "shard_id INTEGER NOT NULL, holder TEXT NOT NULL, expires_at REAL NOT NULL, "
                "PRIMARY KEY (shard_count, shard_id))")
        except sqlite3.Error as error:
            await self.release()
            raise StoreError(open_problem(self.path, error)) from error
        wanted = lease_keys(plan)

        async def try_all() -> list[tuple[int, int]]:
            for key in wanted:
                if key not in self.held and await self._take(key):
                    self.held.append(key)
            return [k for k in wanted if k not in self.held]

        try:
            await _until_all(try_all, timeout)  # type: ignore[arg-type]
        except BaseException:
            await self.release()  # hold none rather than some
            raise
        self._beat = asyncio.create_task(self._heartbeat(), name="lama-lease-heartbeat")

    def _gone(self, holder: str) -> bool:
        host, _, rest = holder.partition(":")
        pid = rest.partition(":")[0]
        if host != self.host or not pid.isdigit():
            return False
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return False

    async def _take(self, key: tuple[int, int]) -> bool:
        db = self._db
        assert db is not None
        await db.execute("BEGIN IMMEDIATE")
        try:
            async with db.execute(
                "SELECT holder, expires_at FROM shard_leases WHERE shard_count = ? "
                "AND shard_id = ?", key) as cursor:
                row = await cursor.fetchone()
            now = time.time()
            if row is not None and row[0] != self.holder and row[1] > now and not self._gone(
                    row[0]):
                await db.execute("ROLLBACK")
                return False
            await db.execute(
                "INSERT INTO shard_leases (shard_count, shard_id, holder, expires_at) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (shard_count, shard_id) DO UPDATE SET "
                "holder = excluded.holder, expires_at = excluded.expires_at",
                (*key, self.holder, now + self.ttl))
            await db.execute("COMMIT")
            return True
        except BaseException:
            with contextlib.suppress(Exception):
                await db.execute("ROLLBACK")
            raise

    async def _heartbeat(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat)
            db = self._db
            if db is None:
                return
            try:
                for key in self.held:
                    cursor = await db.execute(
                        "UPDATE shard_leases SET expires_at = ? WHERE shard_count = ? "
                        "AND shard_id = ? AND holder = ?", (time.time() + self.ttl, *key,
                                                            self.holder))
                    if cursor.rowcount != 1:
                        log.critical("lost the lease of shard %s to another process", key[1])
                        self.lost.set()
            except Exception:
                log.exception("could not renew the shard leases")

    async def release(self) -> None:
        if self._beat is not None:
            self._beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._beat
            self._beat = None
        db, self._db = self._db, None
        if db is None:
            return
        with contextlib.suppress(Exception):
            for key in self.held:
                await db.execute("DELETE FROM shard_leases WHERE shard_count = ? AND "
                                 "shard_id = ? AND holder = ?", (*key, self.holder))
        self.held = []
        await db.close()
