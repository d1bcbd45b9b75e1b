"""What a failed SQLite write leaves behind, on either path (bot/store/sqlite_writer.py: on the loop
when the file is free; as one job on the store's thread when another connection holds it, or
always with ``synchronous=FULL``): nothing of it committed, no transaction left open, the
store writing on; a write acknowledged survives SIGKILL; the log stays bounded with no
checkpoint task; the lease rows' connection in the same process never deadlocks with it."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.common.shards import ShardPlan
from bot.sessions.outbox import EVENT, Owed, Write
from bot.store import sqlite_writer
from bot.store.leases import SqliteShardLeases
from bot.store.sql import AwaitedElsewhere, Sql
from bot.store.sqlite import SqliteStore
from tests.bot.helpers import another_process_writing

ROOT = Path(__file__).resolve().parents[2]
GUILD, CHANNEL = 10, 20
PATHS = ("loop", "fallback", "full")
"""Where the failing write runs: on the loop; on the store's thread because another
connection held the lock when it began; on that thread because ``synchronous=FULL``."""


def note(version: int, content: str = "hi") -> Owed:
    return Owed(GUILD, CHANNEL, EVENT, "note", version, {"content": content})


def committed(path: Path, query: str) -> list[Any]:
    with sqlite3.connect(path) as conn:
        return [row[0] for row in conn.execute(query)]


async def opened(path: Path, where: str) -> SqliteStore:
    store = SqliteStore(str(path))
    if where == "full":
        store.synchronous = "FULL"
    await store.open()
    assert (store._writer is None) == (where == "full")
    return store


async def transact(store: SqliteStore, path: Path, where: str,
                   work: Callable[[Sql], Awaitable[None]]) -> None:
    """``store._transact(work)``, on the path ``where`` (checked)."""
    before = store._writer.commits if store._writer else 0
    if where != "fallback":
        await store._transact(work)
        return
    with another_process_writing(path):
        task = asyncio.ensure_future(store._transact(work))
        await asyncio.sleep(0)  # its first step: the loop found the file busy
        assert not task.done()
    try:
        await task
    finally:
        assert store._writer is not None and store._writer.commits == before, "not on the loop"


async def still_writes(store: SqliteStore, path: Path) -> None:
    """No transaction left open on either connection; the next write lands, alone."""
    assert not store.db.in_transaction
    assert store._writer is None or not store._writer.conn.in_transaction
    thread = store._thread_writer
    assert thread is not None
    assert not await thread.call(lambda: thread.conn.in_transaction)  # (asked on its thread)
    await store.write(Write(GUILD, CHANNEL, owed=[note(7)]))
    assert committed(path, "SELECT version FROM outbox") == [7]
    assert committed(path, "SELECT key FROM app_state WHERE key = 'half'") == []
    assert await store.app_value("half") is None  # the store's own reads: nothing left over


@pytest.mark.parametrize("where", PATHS)
async def test_a_commit_that_fails_is_rolled_back_and_the_store_writes_on(
    tmp_path: Path, where: str
) -> None:
    """COMMIT itself refused (a deferred foreign key, checked only then; SQLite leaves the
    transaction open): the caller gets the error, and none of the transaction stays."""
    path = tmp_path / "lama.db"
    with sqlite3.connect(path) as conn:
        conn.executescript("CREATE TABLE parent (id INTEGER PRIMARY KEY); "
                           "CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER "
                           "REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);")
    store = await opened(path, where)

    async def refused_at_commit(sql: Sql) -> None:
        await sql.run("INSERT INTO app_state (key, value) VALUES ('half', 'x')")
        await sql.run("INSERT INTO child (id, parent_id) VALUES (1, 99)")

    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):
        await transact(store, path, where, refused_at_commit)
    await still_writes(store, path)
    assert committed(path, "SELECT count(*) FROM child") == [0]
    await store.close()


@pytest.mark.parametrize("where", PATHS)
async def test_a_transaction_that_awaits_something_else_is_rolled_back(
    tmp_path: Path, where: str
) -> None:
    path = tmp_path / "lama.db"
    store = await opened(path, where)

    async def suspends(sql: Sql) -> None:
        await sql.run("INSERT INTO app_state (key, value) VALUES ('half', 'x')")
        await asyncio.sleep(0)

    with pytest.raises(AwaitedElsewhere):
        await transact(store, path, where, suspends)
    await still_writes(store, path)
    await store.close()


@pytest.mark.parametrize("where", PATHS)
async def test_a_statement_that_fails_midway_is_rolled_back(tmp_path: Path, where: str) -> None:
    path = tmp_path / "lama.db"
    store = await opened(path, where)

    async def fails(sql: Sql) -> None:
        await sql.run("INSERT INTO app_state (key, value) VALUES ('half', 'x')")
        await sql.run("INSERT INTO no_such_table VALUES (1)")

    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        await transact(store, path, where, fails)
    await still_writes(store, path)
    await store.close()


KILLED = """
import asyncio, os, signal, sys
from bot.sessions.outbox import EVENT, Owed, Write
from bot.common.shards import ShardPlan
from bot.store.sqlite import SqliteStore

async def main() -> None:
    store = SqliteStore(sys.argv[1])
    await store.open()
    store._checkpoints.cancel()  # every commit stays in the log only
    for version in range(1, 41):
        await store.write(Write(10, 20, owed=[Owed(10, 20, EVENT, "note", version, {})]))
        print(version, flush=True)  # acknowledged
        if version == 25:
            os.kill(os.getpid(), signal.SIGKILL)

asyncio.run(main())
"""


def test_every_acknowledged_write_survives_sigkill(tmp_path: Path) -> None:
    """Writes on the loop (``synchronous=NORMAL``, no checkpoint yet), the process killed
    right after an acknowledgement: each acknowledged write is in the file, which is sound."""
    path = tmp_path / "lama.db"
    child = subprocess.run([sys.executable, "-c", KILLED, str(path)], cwd=ROOT,
                           capture_output=True, text=True, timeout=120,  # a net against a hang
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert child.returncode == -signal.SIGKILL, child.stderr
    acknowledged = [int(line) for line in child.stdout.split()]
    assert acknowledged == list(range(1, 26))
    assert os.path.getsize(f"{path}-wal") > 0, "the commits were in the log, not checkpointed"
    assert committed(path, "SELECT version FROM outbox ORDER BY id") == acknowledged
    assert committed(path, "PRAGMA integrity_check") == ["ok"]


async def test_without_checkpoints_the_log_stays_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The checkpoint task gone (say it failed for good): commits on the loop past
    ``BACKSTOP_PAGES`` pages in the log checkpoint themselves, so the log is reused
    instead of growing with every write."""
    monkeypatch.setattr(sqlite_writer, "BACKSTOP_PAGES", 50)
    path = tmp_path / "lama.db"
    store = await opened(path, "loop")
    assert store._checkpoints is not None
    store._checkpoints.cancel()
    page = int(committed(path, "PRAGMA page_size")[0])
    for version in range(1, 201):  # each write over a page: 200+ pages written in all
        await store.write(Write(GUILD, CHANNEL, owed=[note(version, "x" * page)]))
        assert store._writer is not None and store._writer.commits == version
    assert os.path.getsize(f"{path}-wal") < 100 * page
    await store.close()
    assert committed(path, "SELECT count(*) FROM outbox") == [200]


async def test_a_lease_transaction_in_the_same_process_only_sends_writes_to_the_thread(
    tmp_path: Path
) -> None:
    """The lease rows' connection (bot/store/leases.py) holds the write lock across awaits: a
    store write meanwhile waits on SQLite's thread, not the loop, so the lease's own
    transaction goes on and ends, and the write lands after it; then writes are the loop's
    again. Many of both at once all land."""
    path = tmp_path / "lama.db"
    store = await opened(path, "loop")
    leases = SqliteShardLeases(str(path))
    await leases.acquire(ShardPlan(4, (0,)), timeout=30)
    assert leases._db is not None and store._writer is not None
    await leases._db.execute("BEGIN IMMEDIATE")  # as _take does, across its awaits
    write = asyncio.ensure_future(store.write(Write(GUILD, CHANNEL, owed=[note(1)])))
    await asyncio.sleep(0)
    assert not write.done() and store._writer.commits == 0
    await leases._db.execute("UPDATE shard_leases SET expires_at = expires_at + 1")
    await leases._db.execute("COMMIT")  # the loop ran on: the lease's statements went through
    await write
    assert committed(path, "SELECT version FROM outbox") == [1]

    async def writes() -> None:
        for version in range(2, 52):
            await store.write(Write(GUILD, CHANNEL, owed=[note(version)]))

    async def takes() -> list[bool]:
        return [await leases._take((4, 0)) for _ in range(50)]

    _, taken = await asyncio.gather(writes(), takes())
    assert taken == [True] * 50
    assert committed(path, "SELECT version FROM outbox ORDER BY id") == list(range(1, 52))
    await leases.release()
    await store.close()


async def test_a_write_waiting_on_the_thread_is_not_overtaken_by_a_later_one(
    tmp_path: Path
) -> None:
    """The first write found the file busy and waits on SQLite's thread (behind a job still
    running there); the file is then free, yet the second write, asked for later, must not
    commit first on the loop: the stored value is the second's."""
    path = tmp_path / "lama.db"
    store = await opened(path, "loop")
    gate = threading.Event()
    assert store._thread_writer is not None
    running = asyncio.ensure_future(store._thread_writer.call(gate.wait))  # the thread is busy
    with another_process_writing(path):
        first = asyncio.ensure_future(store.set_app_value("turn", "first"))
        await asyncio.sleep(0)  # the loop found the file busy: queued on the thread
    second = asyncio.ensure_future(store.set_app_value("turn", "second"))
    await asyncio.sleep(0)
    gate.set()
    await asyncio.gather(running, first, second)
    assert await store.app_value("turn") == "second"
    await store.write(Write(GUILD, CHANNEL, owed=[note(1)]))
    assert store._writer is not None and store._writer.commits == 1, "the loop's again"
    await store.close()


async def test_closing_the_store_checkpoints_the_log(tmp_path: Path) -> None:
    """The loop's commits are in the log only (no checkpoint task here); closing the store's
    connections, the last one copies them into the database and removes the log."""
    path = tmp_path / "lama.db"
    store = await opened(path, "loop")
    assert store._checkpoints is not None
    store._checkpoints.cancel()
    for version in range(1, 11):
        await store.write(Write(GUILD, CHANNEL, owed=[note(version)]))
    assert os.path.getsize(f"{path}-wal") > 0
    await store.close()
    assert not os.path.exists(f"{path}-wal")
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        assert [r[0] for r in conn.execute("SELECT version FROM outbox")] == list(range(1, 11))


async def test_a_write_cancelled_while_queued_on_the_thread_never_begins(tmp_path: Path) -> None:
    """A write waiting on the store's thread behind another job, its caller cancelled (a
    timer stopped at shutdown): it never runs, nothing of it is committed, the writes after
    it go on (on the loop again once the thread is idle)."""
    path = tmp_path / "lama.db"
    store = await opened(path, "loop")
    thread = store._thread_writer
    assert thread is not None and store._writer is not None
    gate = threading.Event()
    running = asyncio.ensure_future(thread.call(gate.wait))  # the thread is busy
    write = asyncio.ensure_future(store.set_app_value("half", "x"))
    await asyncio.sleep(0)  # queued behind the running job (the loop does not overtake it)
    assert not write.done() and thread.pending == 2
    write.cancel()
    await asyncio.sleep(0)
    assert not write.done(), "the caller waits for its job to be settled on the thread"
    gate.set()
    await running
    with pytest.raises(asyncio.CancelledError):
        await write
    assert thread.pending == 0 and store._writer.commits == 0
    await still_writes(store, path)
    assert store._writer.commits == 1, "the loop's again"
    await store.close()


@pytest.mark.parametrize("where", ("fallback", "full"))
async def test_a_write_cancelled_before_its_commit_on_the_thread_is_rolled_back(
    tmp_path: Path, where: str
) -> None:
    """The caller cancelled while its transaction runs on the store's thread, statements
    done, commit not yet: the job rolls it back, and the caller resumes only then."""
    path = tmp_path / "lama.db"
    store = await opened(path, where)
    thread = store._thread_writer
    assert thread is not None
    inside, gate = threading.Event(), threading.Event()

    async def held_before_commit(sql: Sql) -> None:
        await sql.run("INSERT INTO app_state (key, value) VALUES ('half', 'x')")
        inside.set()
        gate.wait()  # (on the thread: the loop goes on)

    if where == "fallback":
        with another_process_writing(path):
            task = asyncio.ensure_future(store._transact(held_before_commit))
            await asyncio.sleep(0)  # the loop found the file busy: the job waits for the lock
        assert store._writer is not None and thread.pending == 1
    else:
        task = asyncio.ensure_future(store._transact(held_before_commit))
    assert await asyncio.to_thread(inside.wait, 30)  # (a net against a hang)
    task.cancel()
    await asyncio.sleep(0)
    assert not task.done(), "the caller waits for the rollback"
    gate.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert thread.pending == 0
    await still_writes(store, path)
    await store.close()
