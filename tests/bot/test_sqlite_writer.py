"""SQLite writes on the event loop (bot/store/sqlite_writer.py): whole at once when the file is
free,
on SQLite's thread when another process holds it, and the log copied back by checkpoints."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from bot.sessions.outbox import EVENT, Owed, Write
from bot.store.sqlite import SqliteStore
from tests.bot.helpers import another_process_writing

GUILD, CHANNEL = 10, 20


def note(version: int) -> Owed:
    return Owed(GUILD, CHANNEL, EVENT, "note", version, {"content": "hi"})


def outbox_versions(path: Path) -> list[int]:
    with sqlite3.connect(path) as conn:
        return [row[0] for row in conn.execute("SELECT version FROM outbox ORDER BY id")]


async def test_a_write_on_a_free_file_commits_without_leaving_the_loop(tmp_path: Path) -> None:
    """The whole transaction runs in the caller's step: no other task runs meanwhile."""
    store = SqliteStore(str(tmp_path / "lama.db"))
    await store.open()
    ran: list[str] = []
    other = asyncio.ensure_future(asyncio.sleep(0, result=None))
    other.add_done_callback(lambda _: ran.append("other"))
    write = store.write(Write(GUILD, CHANNEL, owed=[note(1)]))
    await write
    assert ran == [] and outbox_versions(tmp_path / "lama.db") == [1]
    await other
    await store.close()


async def test_a_write_while_another_process_writes_waits_for_it_and_lands(
    tmp_path: Path
) -> None:
    path = tmp_path / "lama.db"
    store = SqliteStore(str(path))
    await store.open()
    with another_process_writing(path) as other:
        other.execute("INSERT INTO app_state (key, value) VALUES ('theirs', 'yes')")
        task = asyncio.ensure_future(store.write(Write(GUILD, CHANNEL, owed=[note(1)])))
        await asyncio.sleep(0)
        assert not task.done(), "it waits for the lock (on SQLite's thread, not the loop)"
    await task
    assert outbox_versions(path) == [1]
    assert await store.app_value("theirs") == "yes"
    await store.write(Write(GUILD, CHANNEL, owed=[note(2)]))  # the loop's again
    assert outbox_versions(path) == [1, 2]
    await store.close()


async def test_a_checkpoint_copies_the_log_into_the_database(tmp_path: Path) -> None:
    """Commits on the loop leave their frames in the log (copying them syncs the disk);
    the store's checkpoint, run off the loop, copies every committed frame."""
    path = tmp_path / "lama.db"
    store = SqliteStore(str(path))
    await store.open()
    for version in range(1, 30):
        await store.write(Write(GUILD, CHANNEL, owed=[note(version)]))
    busy, logged, copied = await store._checkpoint()
    assert (busy, copied) == (0, logged) and logged > 0
    await store.close()
    assert outbox_versions(path) == list(range(1, 30))
