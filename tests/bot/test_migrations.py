"""An older database file is migrated on start-up without losing a row.

tests/bot/data/schema_v1.db was written by make_schema_v1.py with the first
schema: finished and abandoned games, results, guild settings and a running game.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

import bot.store.sqlite
from bot.policies.wiring import make_sessions
from bot.sessions.restore import restore_sessions
from bot.sessions.sessions import Session, Status
from bot.store.sqlite import SCHEMA_VERSION, SeatResult, SqliteStore, StoreError
from bot.store.sqlite_schema import MIGRATIONS

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
        assert await store.schema_version() == SCHEMA_VERSION == 5
        assert await store.integrity_check() == ["ok"]
        classic = await store.standings(GUILD, "classic")
        dice = await store.standings(GUILD, "dice")
        assert {s.user_id for s in classic} == {101, 102} and {s.user_id for s in dice} == {
            102, 103}
        assert sum(s.games for s in classic + dice) == 6, "every old result counts"
        assert [s.name for s in classic] == ["ana", "ben"], "ana won both classic games"
        assert [s.name for s in dice] == ["cleo", "ben"]
        assert all(s.rating != 0 for s in classic + dice), "rated from the stored results"
        assert [s.name for s in await store.standings(OTHER_GUILD, "classic")] == ["cleo"]
        assert await store.guild_setting(GUILD, "language") == "fr"
        game = await store.game(GUILD, f"{1:032x}")
        assert game is not None and game["end_reason"] == "finished"
        assert game["pace"] == "live", "games from before paces were live"
        assert game["record"]["variant"] == "classic"
        abandoned = await store.game(GUILD, "a" * 32)
        assert abandoned is not None and abandoned["end_reason"] == "stopped"
    finally:
        await store.close()
    assert rows(old_file) == before, "every v1 row is still there, unchanged"


async def test_old_games_are_rated_once_in_order_and_alike_on_every_copy(
    old_file: Path, tmp_path: Path
) -> None:
    """The ratings computed from an older file's games are the same on every copy of it
    (oldest game first), and opening it again does not rate them again."""
    copy = tmp_path / "copy.db"
    shutil.copy(old_file, copy)
    boards = []
    for path in (old_file, copy, old_file):
        store = SqliteStore(str(path))
        await store.open()
        try:
            boards.append([(s.name, s.skill) for v in ("classic", "dice")
                           for s in await store.standings(GUILD, v)])
        finally:
            await store.close()
    assert boards[0] == boards[1] == boards[2]
    with sqlite3.connect(old_file) as db:
        assert db.execute("SELECT COUNT(*) FROM games WHERE rated = 0 "
                          "AND status = 'finished'").fetchone() == (0,)
        ai = db.execute("SELECT games FROM ratings WHERE user_id < 0").fetchall()
    assert ai, "an AI seat of an old game was replayed from its record and rated"


async def test_the_v1_running_game_is_restored(old_file: Path) -> None:
    store = SqliteStore(str(old_file))
    await store.open()
    sessions = make_sessions(store, ai_delay=0, seed=None)
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
        again = Session.restore(sessions, saved[0])
        assert again.game is not None and len(again.game.history) == 10, "play goes on, saved"
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
        assert [s.games for s in await store.standings(1, "classic")] == [1], \
            "storing a game twice counts once"
    finally:
        await store.close()


async def test_a_failing_migration_changes_nothing(
    old_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = rows(old_file)
    broken = (*bot.store.sqlite.MIGRATIONS,
              "CREATE TABLE half_done (x INTEGER); SELECT nonsense();")
    monkeypatch.setattr(bot.store.sqlite, "MIGRATIONS", broken)
    monkeypatch.setattr(bot.store.sqlite, "SCHEMA_VERSION", len(broken))
    store = SqliteStore(str(old_file))
    with pytest.raises(StoreError, match="no such function"):  # one clear line at start-up
        await store.open()
    await store.close()
    with sqlite3.connect(old_file) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION, \
            "the real steps landed, the broken one did not"
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


@pytest.fixture
def v2_file(old_file: Path) -> Path:
    """A schema 2 file, as the previous bot left it (the v1 fixture plus migration 2)."""
    with sqlite3.connect(old_file) as db:
        db.executescript(f"BEGIN; {MIGRATIONS[1]} PRAGMA user_version = 2; COMMIT;")
    return old_file


async def test_a_v2_file_is_migrated_and_its_game_goes_on_in_rows(v2_file: Path) -> None:
    before = rows(v2_file)
    store = SqliteStore(str(v2_file))
    await store.open()
    sessions = make_sessions(store, ai_delay=0, seed=None)
    try:
        assert await store.schema_version() == SCHEMA_VERSION == 5
        assert await store.integrity_check() == ["ok"]
        restored = await restore_sessions(sessions)
        session = restored[0]
        assert session.game is not None and len(session.game.history) == 9
        for _ in range(3):
            seat = session.game.to_act
            assert seat is not None
            await session.act([101, 102][seat], session.version, str(session.view(seat).legal[0]))
        with sqlite3.connect(v2_file) as db:
            moves = db.execute("SELECT COUNT(*) FROM moves").fetchone()[0]
            owed = db.execute("SELECT kind, key FROM outbox").fetchall()
        assert 1 <= moves <= 3, "moves are appended rows (a round's end folds them in)"
        assert owed == [("state", "table")], "one table owed, the latest"
        again = Session.restore(sessions, (await store.running_sessions())[0])
        assert again.game is not None and again.game.history == session.game.history
        assert again.version == session.version
    finally:
        await sessions.close()
        await store.close()
    after = rows(v2_file)
    assert {t: r for t, r in after.items() if t != "sessions"} == {
        t: r for t, r in before.items() if t != "sessions"}, "no other row changed"
