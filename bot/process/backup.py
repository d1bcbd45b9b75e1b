"""``python -m bot backup FILE``: a consistent copy of a live SQLite store, games running on.

SQLite's online backup API (``sqlite3.Connection.backup``) copies the database page by page
from a read transaction. The store is in WAL mode, where a reader never blocks a writer: the
copy is made in one step (all pages at once) inside one read transaction, so it is one
consistent moment of the file while the bot goes on committing moves to the log. Taking the
read lock can meet a brief lock (a checkpoint resetting the log, another process opening the
file): SQLite's busy timeout waits for it, and the backup API retries a step that answered
busy. The copy is written to a temporary file beside ``FILE``, checked
(``PRAGMA integrity_check``), switched to a plain rollback journal (one self-contained file),
and only then renamed onto ``FILE``: a failed backup never leaves a half-written ``FILE``.

The copy's shard leases (bot/store/leases.py) are emptied: they name the process that held the
live file, and a restored copy belongs to whoever starts on it. Restoring is a copy back, the
bot stopped (docs/operations.md, "Backups").
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import tempfile
from pathlib import Path

from bot.process.backends import is_postgres, sqlite_path

log = logging.getLogger(__name__)

BUSY_TIMEOUT = 30.0  # seconds to wait for a lock on the live file before giving up


class BackupError(RuntimeError):
    """The backup could not be made; the message is one line for the operator."""


def backup(db: str, target: str | os.PathLike[str], busy_timeout: float = BUSY_TIMEOUT) -> int:
    """Copy the store ``db`` (``LAMA_DB``) to ``target``; the number of pages copied."""
    if is_postgres(db):
        raise BackupError("LAMA_DB is PostgreSQL: back it up with pg_dump "
                          "(docs/operations.md, \"Backups\")")
    source_path = Path(sqlite_path(db))
    target_path = Path(target)
    if not source_path.is_file():
        raise BackupError(f"No database at {source_path}: check LAMA_DB")
    if target_path.exists() and target_path.resolve() == source_path.resolve():
        raise BackupError(f"{target_path} is the live database: choose another file")
    if not target_path.parent.is_dir():
        raise BackupError(f"No folder {target_path.parent} to write the backup in")
    fd, temporary = tempfile.mkstemp(prefix=f".{target_path.name}.", suffix=".part",
                                     dir=target_path.parent)
    os.close(fd)
    try:
        pages = _copy(source_path, Path(temporary), busy_timeout)
        os.replace(temporary, target_path)
    except sqlite3.Error as error:
        raise BackupError(f"Could not back up {source_path}: {error}") from error
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
    log.info("backed up %s to %s (%d pages)", source_path, target_path, pages)
    return pages


def _copy(source_path: Path, target_path: Path, busy_timeout: float) -> int:
    # mode=rw: never create a database where there was none
    source = sqlite3.connect(f"{source_path.resolve().as_uri()}?mode=rw", uri=True,
                             timeout=busy_timeout)
    try:
        source.execute(f"PRAGMA busy_timeout={int(busy_timeout * 1000)}")
        target = sqlite3.connect(target_path, isolation_level=None)
        try:
            # pages=-1: every page in one step, one read transaction, one moment of the file
            source.backup(target, pages=-1, sleep=0.05)
            pages = int(target.execute("PRAGMA page_count").fetchone()[0])
            problems = [row[0] for row in target.execute("PRAGMA integrity_check")]
            if problems != ["ok"]:
                raise sqlite3.DatabaseError("the copy fails its integrity check: "
                                            + "; ".join(map(str, problems[:3])))
            if target.execute("SELECT 1 FROM sqlite_master WHERE name = 'shard_leases'"
                              ).fetchone():
                target.execute("DELETE FROM shard_leases")
            target.execute("PRAGMA journal_mode=DELETE")  # one file, no -wal beside it
            return pages
        finally:
            target.close()
    finally:
        source.close()


def main(argv: list[str]) -> int:
    """``python -m bot backup FILE``: the store named by ``LAMA_DB`` (settings) to FILE."""
    import argparse
    import sys

    from bot.process.settings import Settings

    parser = argparse.ArgumentParser(prog="python -m bot backup",
                                     description="Copy the live SQLite store to FILE.")
    parser.add_argument("file", help="where to write the copy (replaced if it exists)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        db = Settings().lama_db
        backup(db, args.file)
    except BackupError as error:
        sys.stderr.write(f"{error}\n")
        return 1
    except ValueError as error:  # (pydantic's ValidationError is one)
        sys.stderr.write(f"Invalid settings: {error}\n")
        return 2
    return 0
