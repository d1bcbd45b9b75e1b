"""Why a database file cannot be opened at start-up, in one line an operator can act on."""

from __future__ import annotations

import sqlite3

OPEN_TIMEOUT = 5.0
"""Seconds to wait at start-up for a database another process holds locked."""


def open_problem(path: str, error: sqlite3.Error) -> str:
    """One line for the operator: what is wrong with the database file, and what to do."""
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


def probe(path: str) -> None:
    """Open, read and try to lock ``path`` without changing a byte of it.

    Raises the ``sqlite3.Error`` that says what is wrong (read with :func:`open_problem`).
    Done with the standard library (run it in a worker thread), so a file that cannot be
    opened leaves no aiosqlite thread behind.
    """
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
