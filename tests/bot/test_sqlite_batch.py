"""A move's write is one trip to SQLite's thread (bot/sqlite_batch.py), and a failed one keeps
nothing of itself and loses no delivery mark."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot.outbox import EVENT, STATE, Owed, Write
from bot.sqlite_batch import Batch
from bot.store import SqliteStore

GUILD, CHANNEL = 10, 11


async def opened(tmp_path: Path) -> SqliteStore:
    store = SqliteStore(str(tmp_path / "lama.db"))
    await store.open()
    return store


def count_trips(store: SqliteStore) -> list[Any]:
    """Every function aiosqlite runs on its thread from now on."""
    trips: list[Any] = []
    db = store.db
    run = db._execute

    async def counted(fn: Any, *args: Any, **kwargs: Any) -> Any:
        trips.append(fn)
        return await run(fn, *args, **kwargs)

    db._execute = counted  # type: ignore[method-assign]
    return trips


def rows(path: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql).fetchall()


async def test_a_move_with_its_owed_table_and_marks_is_one_trip(tmp_path: Path) -> None:
    store = await opened(tmp_path)
    note = Owed(GUILD, CHANNEL, EVENT, "note", 1, {"text": "hi"})
    await store.write(Write(GUILD, CHANNEL, snapshot={"v": 1}, owed=[note]))
    store.note_delivered(note)
    store.note_message(GUILD, CHANNEL, "table", 99)
    trips = count_trips(store)
    table = Owed(GUILD, CHANNEL, STATE, "table", 2)
    await store.write(Write(GUILD, CHANNEL, move={"seat": 0, "action": "draw", "meta": {}},
                            owed=[table]))
    assert len(trips) == 1, "statements, marks and commit in one hop"
    await store.close()
    db = tmp_path / "lama.db"
    assert rows(db, "SELECT id, key FROM outbox") == [(table.id, "table")], \
        "the note's mark rode on the write; the table got its row id"
    assert rows(db, "SELECT action FROM moves") == [("draw",)]
    assert rows(db, "SELECT table_message_id FROM sessions") == [(99,)]


async def test_a_failed_write_keeps_nothing_and_its_marks_wait(tmp_path: Path) -> None:
    store = await opened(tmp_path)
    note = Owed(GUILD, CHANNEL, EVENT, "note", 1, {"text": "hi"})
    await store.write(Write(GUILD, CHANNEL, snapshot={"v": 1}, owed=[note]))
    await store.db.execute("CREATE TRIGGER refuse BEFORE INSERT ON moves WHEN "
                           "NEW.action = 'boom' BEGIN SELECT RAISE(ABORT, 'refused'); END")
    await store.db.commit()
    store.note_delivered(note)
    table = Owed(GUILD, CHANNEL, STATE, "table", 2)
    with pytest.raises(sqlite3.IntegrityError):
        await store.write(Write(GUILD, CHANNEL, move={"seat": 0, "action": "boom", "meta": {}},
                                owed=[table]))
    assert not store.db.in_transaction, "rolled back"
    db = tmp_path / "lama.db"
    assert rows(db, "SELECT key FROM outbox") == [("note",)], "no table owed, the mark waits"
    await store.write(Write(GUILD, CHANNEL, move={"seat": 0, "action": "draw", "meta": {}}))
    await store.close()
    assert rows(db, "SELECT key FROM outbox") == [], "the next write carried the mark"
    assert rows(db, "SELECT action FROM moves") == [("draw",)]


async def test_a_batch_gives_each_statement_its_row_id_and_commits_when_asked(
        tmp_path: Path) -> None:
    store = await opened(tmp_path)
    batch = Batch()
    first = batch.add("INSERT INTO app_state (key, value) VALUES (?, ?)", ("a", "1"))
    batch.many("INSERT INTO app_state (key, value) VALUES (?, ?)", [("b", "2"), ("c", "3")])
    last = batch.add("INSERT INTO app_state (key, value) VALUES (?, ?)", ("d", "4"))
    rowids = await batch.run(store.db)
    assert store.db.in_transaction and batch.steps == []
    assert rowids[first] is not None and rowids[last] is not None and rowids[last] > rowids[first]
    await batch.run(store.db, commit=True)
    assert not store.db.in_transaction
    await store.close()
    assert rows(tmp_path / "lama.db", "SELECT key FROM app_state WHERE key IN "
                "('a', 'b', 'c', 'd') ORDER BY key") == [("a",), ("b",), ("c",), ("d",)]
