"""The SQLite store: schema versions, migration, results, leaderboard order."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.store import SCHEMA_VERSION, SeatResult, SqliteStore, StoreError, wilson_lower_bound

GUILD = 10
OTHER_GUILD = 20


def game_doc(game_id: str, variant: str = "classic") -> dict:
    return {"game_id": game_id, "variant": variant, "seed": "7",
            "record": {"format": "lama-record/1"}, "seats": [], "started_at": 0.0}


async def test_new_file_is_migrated_to_the_current_version(tmp_path: Path) -> None:
    path = tmp_path / "lama.db"
    store = SqliteStore(str(path))
    await store.open()
    assert await store.schema_version() == SCHEMA_VERSION
    await store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    assert {"games", "results", "guild_settings", "sessions", "app_state"} <= tables
    again = SqliteStore(str(path))
    await again.open()  # reopening migrates nothing and loses nothing
    assert await again.schema_version() == SCHEMA_VERSION
    await again.close()


async def test_version_zero_file_with_other_tables_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE unrelated (x INTEGER)")
        db.execute("INSERT INTO unrelated VALUES (1)")
    store = SqliteStore(str(path))
    await store.open()
    assert await store.schema_version() == SCHEMA_VERSION
    await store.set_guild_setting(GUILD, "language", "fr")
    assert await store.guild_setting(GUILD, "language") == "fr"
    assert await store.guild_setting(OTHER_GUILD, "language") is None
    await store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT x FROM unrelated").fetchall() == [(1,)]


async def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    store = SqliteStore(str(path))
    with pytest.raises(StoreError, match="upgrade the bot"):
        await store.open()
    await store.close()


async def test_leaderboard_ranks_by_wilson_bound(tmp_path: Path) -> None:
    store = SqliteStore(str(tmp_path / "lama.db"))
    await store.open()
    # lucky: 1 game, 1 win. steady: 10 games, 7 wins. poor: 6 games, 1 win.
    plays = [("lucky", 1, 1), ("steady", 10, 7), ("poor", 6, 1)]
    number = 0
    for user_id, (name, games, wins) in enumerate(plays, start=1):
        for i in range(games):
            number += 1
            result = SeatResult(0, user_id, name, points=5 * user_id, won=i < wins)
            ai = SeatResult(1, None, "AI 1", points=3, won=False)
            await store.finish_game(GUILD, 1, game_doc(f"g{number}"), [result, ai])
    await store.finish_game(GUILD, 1, game_doc("abandoned"), None)
    await store.finish_game(OTHER_GUILD, 1, game_doc("elsewhere"),
                            [SeatResult(0, 99, "far", 0, True)])
    board = await store.standings(GUILD)
    assert [s.name for s in board] == ["steady", "lucky", "poor"]
    steady = board[0]
    assert (steady.games, steady.wins, steady.average_points) == (10, 7, 10.0)
    assert steady.rating == pytest.approx(wilson_lower_bound(7, 10))
    assert board[1].win_rate == 1.0 and board[1].rating < steady.rating
    assert await store.standings(GUILD, "dice") == []
    assert (await store.standing(GUILD, 1)).games == 1  # type: ignore[union-attr]
    assert await store.standing(GUILD, 99) is None, "other guilds' games do not count"
    stored = await store.game(GUILD, "abandoned")
    assert stored is not None and stored["status"] == "abandoned"
    await store.close()


def test_wilson_bound() -> None:
    assert wilson_lower_bound(0, 0) == 0.0
    assert 0 < wilson_lower_bound(1, 1) < wilson_lower_bound(70, 100) < 0.7
