"""``LAMA_DB`` names the database: a file path or ``sqlite:///path`` (SQLite, the default), or
``postgresql://...`` (PostgreSQL, shared by several processes). The store and the shard
leases are built for it here."""

from __future__ import annotations

from bot.store.leases import PgShardLocks, ShardLeases, SqliteShardLeases
from bot.store.sqlite import SqliteStore, Store


def is_postgres(db: str) -> bool:
    return db.startswith(("postgresql://", "postgres://"))


def sqlite_path(db: str) -> str:
    """``sqlite:///path`` (``sqlite:////abs/path``) or a plain path: the file SQLite opens."""
    return db.removeprefix("sqlite:///")


def make_store(db: str) -> Store:
    if is_postgres(db):
        from bot.store.postgres import PgStore

        return PgStore(db)
    return SqliteStore(sqlite_path(db))


def make_leases(db: str) -> ShardLeases:
    if is_postgres(db):
        return PgShardLocks(db)
    return SqliteShardLeases(sqlite_path(db))
