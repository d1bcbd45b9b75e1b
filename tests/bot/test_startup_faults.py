"""``python -m bot`` with a database file it cannot use, or no network: one clear line, a
non-zero exit, and the file exactly as it was."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.store.sqlite import SqliteStore
from fakediscord import FakeDiscord
from tests import forkserver
from tests.bot.test_main import bot_env, run_bot


def make_database(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (x TEXT)")
        conn.executemany("INSERT INTO t VALUES (?)", [("x" * 100,)] * 2000)
    conn.close()


def fingerprint(path: Path) -> tuple[bytes, int, list[str]]:
    """The file's bytes, its modification time, and what lies beside it."""
    return path.read_bytes(), path.stat().st_mtime_ns, sorted(p.name for p in path.parent.iterdir())


async def one_line_failure(tmp_path: Path, db: Path, **env: str) -> str:
    values = {"DISCORD_TOKEN": "x", "LAMA_LOG_LEVEL": "WARNING", **env}
    code, out, err = await run_bot(tmp_path, bot_env(tmp_path, **values))
    assert code != 0, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and out == ""
    return lines[0]


pytestmark = pytest.mark.slow  # each test runs python -m bot


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    return folder


async def test_not_a_database(tmp_path: Path, data: Path) -> None:
    db = data / "lama.db"
    db.write_bytes(os.urandom(8192))
    before = fingerprint(db)
    line = await one_line_failure(tmp_path, db, LAMA_DB=str(db))
    assert "not a SQLite database" in line and str(db) in line
    assert fingerprint(db) == before


async def test_a_malformed_database(tmp_path: Path, data: Path) -> None:
    db = data / "lama.db"
    make_database(db)
    damaged = bytearray(db.read_bytes())
    damaged[4096 * 5: 4096 * 5 + 200] = b"\xab" * 200  # a page of the table, overwritten
    db.write_bytes(bytes(damaged))
    before = fingerprint(db)
    line = await one_line_failure(tmp_path, db, LAMA_DB=str(db))
    assert "damaged" in line and "backup" in line
    assert fingerprint(db) == before


async def test_unable_to_open(tmp_path: Path, data: Path) -> None:
    line = await one_line_failure(tmp_path, data, LAMA_DB=str(data))  # a folder, not a file
    assert "Cannot open the database" in line and "LAMA_DB" in line
    missing = data / "no such folder" / "lama.db"
    line = await one_line_failure(tmp_path, missing, LAMA_DB=str(missing))
    assert "Cannot open the database" in line
    assert not missing.parent.exists()


def without_root_override() -> tuple[int, ...]:
    """Capabilities to drop so that root cannot write files that are read-only (the file's
    mode counts, as it does for any other user): none for another user already."""
    return forkserver.FILE_OVERRIDES if os.geteuid() == 0 else ()


def reader_without_root_override() -> list[str]:
    """The same for a program this test runs itself (the sqlite3 reader)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    assert setpriv is not None, "running as root needs setpriv (util-linux) for this test"
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner"]


async def test_a_read_only_database(tmp_path: Path, data: Path) -> None:
    db = data / "lama.db"
    make_database(db)
    db.chmod(0o444)
    before = fingerprint(db)
    values = {"DISCORD_TOKEN": "x", "LAMA_LOG_LEVEL": "WARNING", "LAMA_DB": str(db)}
    code, _, err = await run_bot(tmp_path, bot_env(tmp_path, **values),
                                 drop=without_root_override())
    assert code != 0 and len(err.strip().splitlines()) == 1, err
    assert "read-only" in err and "Traceback" not in err
    assert fingerprint(db) == before


async def make_wal_store(path: Path) -> None:
    """A database the bot made (WAL, schema up to date), closed: as a service leaves it."""
    store = SqliteStore(str(path))
    await store.open()
    await store.close()
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no -wal, no -shm


async def read_only_start(tmp_path: Path, db: Path) -> str:
    """``python -m bot`` on ``db`` as a user without root's override of file modes, with
    Discord reachable: its one line; the file untouched and nothing new left beside it."""
    before = fingerprint(db)
    async with FakeDiscord() as fake:
        values = {"DISCORD_TOKEN": fake.token, "LAMA_LOG_LEVEL": "WARNING", "LAMA_DB": str(db),
                  "LAMA_DISCORD_URL": f"http://127.0.0.1:{fake.port}"}
        code, out, err = await run_bot(tmp_path, bot_env(tmp_path, **values),
                                       drop=without_root_override())
        assert fake.logins == 0  # refused before contacting Discord
    assert code != 0 and out == "" and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    assert fingerprint(db) == before  # (the folder's listing: no -wal or -shm left)
    return err.strip()


async def test_a_read_only_wal_database(tmp_path: Path, data: Path) -> None:
    """A WAL file lets a reader "begin" a write: the file's mode is what tells."""
    db = data / "lama.db"
    await make_wal_store(db)
    db.chmod(0o444)
    line = await read_only_start(tmp_path, db)
    assert "read-only" in line and str(db) in line


async def test_a_read_only_wal_database_with_its_logs_beside_it(
        tmp_path: Path, data: Path) -> None:
    """A reader without write access (the service user, the sqlite3 shell run by another
    user) leaves -wal and -shm behind, with which SQLite lets the store open the file."""
    db = data / "lama.db"
    await make_wal_store(db)
    db.chmod(0o444)
    reader = [*reader_without_root_override(), sys.executable, "-c",
              "import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("
              "'SELECT count(*) FROM sqlite_master').fetchall()", str(db)]
    subprocess.run(reader, check=True)
    assert {p.name for p in data.iterdir()} == {"lama.db", "lama.db-wal", "lama.db-shm"}
    line = await read_only_start(tmp_path, db)
    assert "read-only" in line and str(db) in line
    db.chmod(0o644)  # the file given back, its logs (the reader's, mode 444) not
    line = await read_only_start(tmp_path, db)
    assert "read-only" in line and str(db) in line and "lama.db-wal" in line


async def test_a_database_in_a_read_only_folder(tmp_path: Path, data: Path) -> None:
    """SQLite writes its journal (-wal, -shm, or -journal) beside the file: the folder must
    be writable too."""
    wal = data / "lama.db"
    await make_wal_store(wal)
    rollback = tmp_path / "other" / "lama.db"
    rollback.parent.mkdir()
    make_database(rollback)  # (a rollback journal: the default)
    for db in (wal, rollback):
        db.parent.chmod(0o555)
        try:
            line = await read_only_start(tmp_path, db)
        finally:
            db.parent.chmod(0o755)
        assert "read-only" in line and str(db.parent) in line and "folder" in line


@pytest.fixture
def locked(data: Path) -> Iterator[tuple[Path, tuple[bytes, int, list[str]]]]:
    """A database another process holds locked (an exclusive transaction) all along, and its
    fingerprint taken before: reading the file here once locked would close a descriptor of
    this process and so drop its POSIX lock."""
    db = data / "lama.db"
    make_database(db)
    before = fingerprint(db)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    yield db, before
    holder.execute("ROLLBACK")
    holder.close()


async def test_a_locked_database(  # waits out the 5-second lock timeout
    tmp_path: Path, locked: tuple[Path, tuple[bytes, int, list[str]]]
) -> None:
    db, before = locked
    line = await one_line_failure(tmp_path, db, LAMA_DB=str(db))
    assert "locked by another process" in line
    assert fingerprint(db) == before


async def test_no_network_at_login(tmp_path: Path) -> None:
    db = tmp_path / "lama.db"
    # a port nothing listens on: the connection is refused
    env = {"LAMA_DISCORD_URL": "http://127.0.0.1:9", "LAMA_DB": str(db)}
    line = await one_line_failure(tmp_path, db, **env)
    assert line.startswith("Cannot reach Discord at http://127.0.0.1:9")
    assert "LAMA_DISCORD_URL" in line
