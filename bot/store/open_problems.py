"""Why a database file cannot be opened at start-up, in one line an operator can act on."""

from __future__ import annotations

import os
import sqlite3

OPEN_TIMEOUT = 5.0
"""Seconds to wait at start-up for a database another process holds locked."""


def open_problem(path: str, error: sqlite3.Error) -> str:
    """One line for the operator: what is wrong with the database file, and what to do."""
    if isinstance(error, ReadOnly) and error.folder:
        return (f"The folder {error.what} holding the database {path} is read-only: let the "
                "bot's user write to it (SQLite keeps its -wal, -shm or -journal files beside "
                "the database), then start again.")
    if isinstance(error, ReadOnly) and error.what != path:
        return (f"The database {path} cannot be written: {error.what} is read-only. Let the "
                "bot's user write to it and to the database, then start again.")
    text = str(error).lower()
    if "locked" in text or "busy" in text:
        return (f"The database {path} is locked by another process: stop the other bot or "
                "program using it, then start again.")
    if "readonly" in text or "read-only" in text:
        return (f"The database {path} is read-only: let the bot's user write to it and to "
                "its folder (LAMA_DB), then start again.")
    if "unable to open" in text:
        return (f"Cannot open the database {path}: check that LAMA_DB names a file in an "
                "existing folder the bot's user can write to.")
    if "not a database" in text:
        return (f"{path} is not a SQLite database: point LAMA_DB at the bot's database, or "
                "move this file away to start with an empty one.")
    if "malformed" in text or "corrupt" in text:
        return (f"The database {path} is damaged (malformed): restore it from a backup, or "
                "move it away to start with an empty one.")
    return f"The database {path} cannot be used ({error}): check LAMA_DB."


class ReadOnly(sqlite3.OperationalError):
    """A file SQLite would write (the database, its -wal, -shm or -journal) or the folder
    holding them cannot be written to by this process."""

    def __init__(self, what: str, folder: bool = False) -> None:
        super().__init__(f"{what}: readonly {'folder' if folder else 'file'}")
        self.what, self.folder = what, folder


def check_writable(path: str) -> None:
    """Refuse a file or folder this process may not write to, before SQLite opens anything.

    SQLite opens such a file read-only without a word, and on a WAL file lets even
    ``BEGIN IMMEDIATE`` pass; the first real write fails far later, and the reader has left
    -wal and -shm files behind by then. ``os.access`` asks the kernel with this process's
    rights (modes, ACLs, read-only mounts) and opens nothing, so no lock of ours is dropped.
    """
    if path in ("", ":memory:") or path.startswith("file:"):
        return  # (a temporary or URI database: SQLite's own checks)
    for name in (path, f"{path}-wal", f"{path}-shm", f"{path}-journal"):
        if os.path.exists(name) and not os.access(name, os.W_OK):
            raise ReadOnly(name)
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(folder) and not os.access(folder, os.W_OK | os.X_OK):
        raise ReadOnly(folder, folder=True)


def probe(path: str) -> None:
    """Open, read and try to lock ``path`` without changing a byte of it.

    Raises the ``sqlite3.Error`` that says what is wrong (read with :func:`open_problem`).
    Done with the standard library (run it in a worker thread), so a file that cannot be
    opened leaves no aiosqlite thread behind.
    """
    check_writable(path)
    connection = sqlite3.connect(path, timeout=OPEN_TIMEOUT, isolation_level=None)
    try:
        connection.execute("PRAGMA user_version").fetchone()
        row = connection.execute("PRAGMA quick_check(1)").fetchone()
        if row is None or row[0] != "ok":
            raise sqlite3.DatabaseError("database disk image is malformed")
        connection.execute("BEGIN IMMEDIATE")  # may we write? (locked, read-only)
        connection.execute("ROLLBACK")
    finally:
        connection.close()
