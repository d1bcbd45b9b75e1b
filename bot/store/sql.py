"""One way to run a statement on either database, so the bot's SQL is written once.

Statements use ``?`` placeholders; :class:`SqliteSql` runs them on aiosqlite as they are
(:class:`InlineSqliteSql`: a whole transaction at once, on the loop or the store's thread),
:class:`PgSql` numbers them ``$1, $2...`` for asyncpg. The few things the two dialects spell
differently are attributes of the adapter (:attr:`Sql.locks_rows`, :attr:`Sql.distinct`).
Both count the logical bytes handed to the database in writes (the store benchmark prints
them per action).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # the drivers are imported by the stores that open connections
    import sqlite3
    from collections.abc import Coroutine

    import aiosqlite
    import asyncpg


class Sql(Protocol):
    """One connection (inside the caller's transaction, for writes)."""

    locks_rows: bool  # whether ``SELECT ... FOR UPDATE`` exists (and is needed)
    distinct: str  # the null-safe "not equal" operator
    written: int  # logical bytes of the parameters of every write

    async def rows(self, query: str, *params: Any) -> Sequence[Mapping[str, Any]]: ...
    async def value(self, query: str, *params: Any) -> Any: ...
    async def run(self, query: str, *params: Any) -> None: ...
    async def run_many(self, query: str, rows: list[tuple[Any, ...]]) -> None: ...
    async def insert(self, query: str, *params: Any) -> int: ...


def size(params: Sequence[Any]) -> int:
    """What a write hands over: a string's characters, 8 bytes for anything else. (A plain
    loop: counted at every statement of every move, a generator cost twice as much.)"""
    total = 8 * len(params)
    for p in params:
        if isinstance(p, str):
            total += len(p) - 8
    return total


class SqliteSql:
    locks_rows = False  # the transaction's first write took the whole file's write lock
    distinct = "IS NOT"

    def __init__(self, db: aiosqlite.Connection) -> None:
        self.db = db
        self.written = 0

    async def rows(self, query: str, *params: Any) -> Sequence[Mapping[str, Any]]:
        """(One trip to SQLite's thread, the statement done in it: a cursor left open across
        trips would keep a statement in progress while another job commits.)"""
        return list(await self.db.execute_fetchall(query, params))

    async def value(self, query: str, *params: Any) -> Any:
        rows = await self.db.execute_fetchall(query, params)
        return next(iter(rows))[0] if rows else None

    async def run(self, query: str, *params: Any) -> None:
        self.written += size(params)
        await self.db.execute_fetchall(query, params)

    async def run_many(self, query: str, rows: list[tuple[Any, ...]]) -> None:
        self.written += sum(size(row) for row in rows)
        await self.db.executemany(query, rows)  # one trip to SQLite's thread

    async def insert(self, query: str, *params: Any) -> int:
        """Run an INSERT; the new row's id."""
        self.written += size(params)
        cursor = await self.db.execute(query, params)
        return int(cursor.lastrowid or 0)


class InlineSqliteSql:
    """:class:`Sql` on a sqlite3 connection itself: its methods never suspend, so a whole
    transaction's coroutine runs in one step (:func:`run_inline`), on the event loop on the
    loop's own connection (bot/store/sqlite_writer.py) or, when that must wait for the lock, as
    one job on the store's thread, on that thread's connection. Under load each trip to a
    thread waits for a turn of the event loop, and a write holding the connection across five
    of them made every other write queue behind it."""

    locks_rows = False
    distinct = "IS NOT"

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.written = 0

    async def rows(self, query: str, *params: Any) -> Sequence[Mapping[str, Any]]:
        return self.conn.execute(query, params).fetchall()

    async def value(self, query: str, *params: Any) -> Any:
        row = self.conn.execute(query, params).fetchone()
        return None if row is None else row[0]

    async def run(self, query: str, *params: Any) -> None:
        self.written += size(params)
        self.conn.execute(query, params)

    async def run_many(self, query: str, rows: list[tuple[Any, ...]]) -> None:
        self.written += sum(size(row) for row in rows)
        self.conn.executemany(query, rows)

    async def insert(self, query: str, *params: Any) -> int:
        self.written += size(params)
        return int(self.conn.execute(query, params).lastrowid or 0)


class AwaitedElsewhere(RuntimeError):
    """A transaction given to :func:`run_inline` waited for something besides its statements."""


def run_inline(work: Coroutine[Any, Any, Any]) -> Any:
    """Run a coroutine that never suspends (its awaits are :class:`InlineSqliteSql`'s) to its
    end, on the calling thread; its result. One that does suspend is closed and
    :class:`AwaitedElsewhere` raised (the caller rolls its transaction back)."""
    try:
        work.send(None)
    except StopIteration as done:
        return done.value
    work.close()
    raise AwaitedElsewhere("a store transaction awaited something other than its statements")


@lru_cache(maxsize=128)
def dollars(query: str) -> str:
    """``?`` placeholders numbered for asyncpg (the statements hold no literal ``?``)."""
    count = iter(range(1, 1000))
    return re.sub(r"\?", lambda _: f"${next(count)}", query)


class PgSql:
    locks_rows = True
    distinct = "IS DISTINCT FROM"

    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn
        self.written = 0

    async def rows(self, query: str, *params: Any) -> Sequence[Mapping[str, Any]]:
        return await self.conn.fetch(dollars(query), *params)

    async def value(self, query: str, *params: Any) -> Any:
        return await self.conn.fetchval(dollars(query), *params)

    async def run(self, query: str, *params: Any) -> None:
        self.written += size(params)
        await self.conn.execute(dollars(query), *params)

    async def run_many(self, query: str, rows: list[tuple[Any, ...]]) -> None:
        if rows:
            self.written += sum(size(row) for row in rows)
            await self.conn.executemany(dollars(query), rows)

    async def insert(self, query: str, *params: Any) -> int:
        self.written += size(params)
        return int(await self.conn.fetchval(dollars(query + " RETURNING id"), *params))
