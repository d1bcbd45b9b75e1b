"""``python -m bot backup FILE``: a consistent copy of the live store, taken from another
process mid-game, restored into a new bot process that finishes the game."""

from __future__ import annotations

import shutil
import signal
import sqlite3
from pathlib import Path

import pytest

from bot.process.backup import BackupError, backup
from fakediscord import FakeDiscord
from game import from_dict
from tests import forkserver
from tests.bot.conftest import make_settings
from tests.bot.test_kill import SEED, STOP, bot_process, final_record, play_to_the_end, sound
from tests.bot.test_main import bot_env
from tests.bot.test_restart import Table, stored_actions, take_turn


async def run_backup(tmp_path: Path, db: Path, target: Path) -> tuple[int, str]:
    """``python -m bot backup target`` as its own process, with ``LAMA_DB=db``."""
    env = bot_env(tmp_path, LAMA_DB=str(db))
    process = await forkserver.start("-m", "bot", "backup", str(target), cwd=tmp_path, env=env,
                                     stdout=forkserver.PIPE, stderr=forkserver.PIPE)
    out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, (out + err).decode()


@pytest.mark.slow  # bot processes started and stopped
async def test_a_backup_taken_mid_game_restores_into_a_bot_that_finishes_it(
        tmp_path: Path) -> None:
    live, copy, restored = tmp_path / "live.db", tmp_path / "copy.db", tmp_path / "restored.db"
    log = tmp_path / "bot.log"
    async with FakeDiscord(token="fake.backup-test-token") as fake:
        club = Table(fake, make_settings(tmp_path, lama_seed=SEED))
        syncs = fake.command_syncs
        async with bot_process(fake, live, log) as first:
            await fake.notifier.wait_for(
                lambda: True if fake.command_syncs > syncs else None, STOP, "the command sync")
            await club.start_game(ai=True)
            for _ in range(3):
                assert await take_turn(fake, club.channel, club.members) is not None
            accepted = stored_actions(live)
            code, output = await run_backup(tmp_path, live, copy)  # the AI may be moving
            assert code == 0, output
            in_copy = stored_actions(copy)
            for _ in range(2):  # the live game goes on after the backup
                assert await take_turn(fake, club.channel, club.members) is not None
            assert first.returncode is None, "the bot ran through the backup"
            later = stored_actions(live)
            first.send_signal(signal.SIGTERM)
            assert await first.wait() == 0
        assert len(accepted) <= len(in_copy) < len(later)
        assert in_copy == later[: len(in_copy)], "the copy is one moment of the live game"
        assert {p.name for p in tmp_path.iterdir()} >= {"copy.db"}
        assert not (tmp_path / "copy.db-wal").exists(), "the copy is one self-contained file"

        shutil.copyfile(copy, restored)  # restoring: a copy back, the bot stopped
        await sound(restored)
        async with bot_process(fake, restored, log) as second:
            await play_to_the_end(fake, club)
            second.send_signal(signal.SIGTERM)
            assert await second.wait() == 0
        assert not fake.failures, (fake.failures, log.read_text())
    actions = [(seat, str(action)) for seat, action in from_dict(final_record(restored)).actions]
    assert actions[: len(in_copy)] == in_copy, "the restored game went on from the copy"
    with sqlite3.connect(live) as conn:  # the live file knows nothing of the restored game
        assert conn.execute("SELECT count(*) FROM games").fetchone()[0] == 0


def test_a_write_under_way_is_not_in_the_copy(tmp_path: Path) -> None:
    """Another connection holding the write lock mid-transaction: the backup does not wait
    for it, and copies only what was committed."""
    db, target = tmp_path / "lama.db", tmp_path / "copy.db"
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("CREATE TABLE t (x TEXT)")
    writer.execute("INSERT INTO t VALUES ('committed')")
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO t VALUES ('under way')")
    try:
        assert backup(str(db), target, busy_timeout=1.0) > 0
    finally:
        writer.execute("COMMIT")
        writer.close()
    with sqlite3.connect(target) as conn:
        assert conn.execute("SELECT x FROM t").fetchall() == [("committed",)]
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"


def test_refusals_are_one_line_and_leave_nothing(tmp_path: Path) -> None:
    with pytest.raises(BackupError, match="pg_dump"):
        backup("postgresql://lama@localhost/lama", tmp_path / "copy.db")
    with pytest.raises(BackupError, match="No database"):
        backup(str(tmp_path / "missing.db"), tmp_path / "copy.db")
    db = tmp_path / "lama.db"
    sqlite3.connect(db).close()
    with pytest.raises(BackupError, match="live database"):
        backup(str(db), db)
    db.write_bytes(b"not a database" * 100)
    with pytest.raises(BackupError, match="Could not back up"):
        backup(str(db), tmp_path / "copy.db")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lama.db"]
