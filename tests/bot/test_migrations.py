"""An older database file is migrated on start-up without losing a row.

tests/bot/data/schema_v1.db was written by make_schema_v1.py with the first
schema: finished and abandoned games, results, guild settings and a running game.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

import bot.store
from bot.restore import restore_sessions
from bot.sessions import Sessions, Status
from bot.store import SCHEMA_VERSION, SeatResult, SqliteStore, StoreError

V1 = Path(__file__).parent / "data" / "schema_v1.db"
GUILD, OTHER_GUILD = 900, 901
V1_TABLES = {
    "games": "guild_id, game_id, channel_id, variant, status, seed, record, seats, started_at, "
             "ended_at",
    "results": "guild_id, game_id, seat, user_id, name, variant, points, won",
    "guild_settings": "guild_id, key, value",
    "sessions": "guild_id, channel_id, state, updated_at",
    "app_state": "key, value",
}


def rows(path: Path) -> dict[str, list[tuple[object, ...]]]:
    with sqlite3.connect(path) as db:
        return {
            table: sorted(db.execute(f"SELECT {columns} FROM {table}").fetchall())
            for table, columns in V1_TABLES.items()
        }


@pytest.fixture
def old_file(tmp_path: Path) -> Path:
    path = tmp_path / "lama.db"
    shutil.copy(V1, path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    return path


async def test_a_v1_file_is_migrated_without_losing_a_row(old_file: Path) -> None:
    before = rows(old_file)
    assert len(before["games"]) == 5 and len(before["results"]) == 7
    store = SqliteStore(str(old_file))
    await store.open()
    try:
        assert await store.schema_version() == SCHEMA_VERSION == 2
        assert await store.integrity_check() == ["ok"]
        board = await store.standings(GUILD)
        assert [s.name for s in board] and {s.user_id for s in board} == {101, 102, 103}
        assert sum(s.games for s in board) == 6, "every old result counts"
        assert [s.name for s in await store.standings(OTHER_GUILD)] == ["cleo"]
        assert await store.guild_setting(GUILD, "language") == "fr"
        game = await store.game(GUILD, f"{1:032x}")
        assert game is not None and game["end_reason"] == "finished"
        assert game["record"]["variant"] == "classic"
        abandoned = await store.game(GUILD, "a" * 32)
        assert abandoned is not None and abandoned["end_reason"] == "stopped"
    finally:
        await store.close()
    assert rows(old_file) == before, "every v1 row is still there, unchanged"


async def test_the_v1_running_game_is_restored(old_file: Path) -> None:
    store = SqliteStore(str(old_file))
    await store.open()
    sessions = Sessions(store, ai_delay=0, seed=None)
    try:
        restored = await restore_sessions(sessions)
        assert [s.channel_id for s in restored] == [4243]
        session = restored[0]
        assert session.status is Status.PLAYING and session.version == 12
        assert session.game is not None and len(session.game.history) == 9
        assert sessions.get(4243) is session
        seat = session.game.to_act
        assert seat is not None
        legal = session.view(seat).legal
        await session.act([101, 102][seat], 12, str(legal[0]))
        saved = await store.running_sessions()
        assert len(saved[0]["record"]["actions"]) == 10, "play goes on and is saved"
    finally:
        await sessions.close()
        await store.close()


async def test_end_reason_is_kept_and_defaults_for_old_callers(tmp_path: Path) -> None:
    store = SqliteStore(str(tmp_path / "lama.db"))
    await store.open()
    try:
        doc = {"game_id": "g1", "variant": "classic", "seed": "7", "record": {}, "seats": []}
        await store.finish_game(1, 2, doc, [SeatResult(0, 5, "ana", 3, True)])
        await store.finish_game(1, 2, {**doc, "game_id": "g2"}, None)
        await store.finish_game(1, 2, {**doc, "game_id": "g3"}, None, reason="idle")
        reasons = [(await store.game(1, g))["end_reason"] for g in ("g1", "g2", "g3")]  # type: ignore[index]
        assert reasons == ["finished", "stopped", "idle"]
        await store.finish_game(1, 2, doc, [SeatResult(0, 5, "ana", 3, True)])
        assert (await store.standing(1, 5)).games == 1, "storing a game twice counts once"  # type: ignore[union-attr]
    finally:
        await store.close()


async def test_a_failing_migration_changes_nothing(
    old_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = rows(old_file)
    broken = (*bot.store.MIGRATIONS, "CREATE TABLE half_done (x INTEGER); SELECT nonsense();")
    monkeypatch.setattr(bot.store, "MIGRATIONS", broken)
    monkeypatch.setattr(bot.store, "SCHEMA_VERSION", len(broken))
    store = SqliteStore(str(old_file))
    with pytest.raises(StoreError, match="no such function"):  # one clear line at start-up
        await store.open()
    await store.close()
    with sqlite3.connect(old_file) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 2, "step 2 landed, 3 did not"
        names = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        assert "half_done" not in names
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert rows(old_file) == before


async def test_a_file_from_a_newer_bot_is_refused_untouched(old_file: Path) -> None:
    with sqlite3.connect(old_file) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    before = rows(old_file)
    store = SqliteStore(str(old_file))
    with pytest.raises(StoreError):
        await store.open()
    await store.close()
    assert rows(old_file) == before
