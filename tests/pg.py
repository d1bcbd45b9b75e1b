"""A PostgreSQL server for the tests that need one, and a fresh database per test.

``LAMA_TEST_PG=postgresql://user@host:port/db`` points the tests at a server of your own (the
user must be allowed to create databases). Without it, the tests start a throwaway server
from Debian's PostgreSQL binaries (``scripts/test`` installs them when missing): ``initdb``
into a temporary directory, ``pg_ctl start`` on a free port, stopped at the end. initdb refuses
to run as root, so as root the server runs as the ``postgres`` user. When no server can be had
the tests that need it fail with the reason; they are never skipped.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import yarl

from bot.process.backends import is_postgres

SETTING = "LAMA_TEST_PG"


class NoServer(RuntimeError):
    """No PostgreSQL server could be found or started."""


def _binary(name: str) -> str:
    found = shutil.which(name) or next(
        iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if found is None:
        raise NoServer(
            f"no PostgreSQL server: {name} is not installed. Run `bash scripts/test` (as root it "
            f"installs Debian's postgresql package) or set {SETTING}=postgresql://... to a "
            "server where you may create databases.")
    return found


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _as_server_user(command: list[str]) -> list[str]:
    """initdb and postgres refuse root: run them as ``postgres`` when we are root."""
    if os.geteuid() != 0:
        return command
    runuser = shutil.which("runuser")
    if runuser is not None:
        return [runuser, "-u", "postgres", "--", *command]
    return ["su", "postgres", "-s", "/bin/sh", "-c", " ".join(command)]


@contextlib.contextmanager
def throwaway_server() -> Iterator[str]:
    """A private PostgreSQL server for this test run; yields its admin URL."""
    initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
    root = Path(tempfile.mkdtemp(prefix="lama-pg-"))
    data = root / "data"
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    port = _free_port()
    run = lambda command: subprocess.run(  # noqa: E731
        _as_server_user(command), capture_output=True, text=True, timeout=120, cwd=root)
    try:
        done = run([initdb, "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8",
                    "--locale=C", "--no-sync"])
        if done.returncode != 0:
            raise NoServer(f"initdb failed: {done.stderr.strip() or done.stdout.strip()}")
        options = (f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        done = run([pg_ctl, "-D", str(data), "-l", str(root / "log"), "-o", options, "-w",
                    "-t", "60", "start"])
        if done.returncode != 0:
            log = (root / "log").read_text() if (root / "log").exists() else ""
            raise NoServer(f"PostgreSQL did not start: {done.stderr.strip()} {log[-2000:]}")
        try:
            yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
        finally:
            run([pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop"])
    finally:
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def server() -> Iterator[str]:
    """``LAMA_TEST_PG`` if set, else a throwaway server."""
    url = os.environ.get(SETTING, "").strip()
    if url:
        yield url
    else:
        with throwaway_server() as url:
            yield url


async def create_database(admin_url: str) -> str:
    """A new, empty database on the server; returns its URL."""
    import asyncpg

    name = f"lama_test_{uuid.uuid4().hex[:12]}"
    try:
        conn = await asyncpg.connect(admin_url)
    except (OSError, asyncpg.PostgresError) as exc:
        raise NoServer(f"cannot reach the PostgreSQL server at {admin_url}: {exc}") from exc
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()
    return str(yarl.URL(admin_url).with_path(f"/{name}"))


async def drop_database(admin_url: str, url: str) -> None:
    import asyncpg

    name = yarl.URL(url).path.lstrip("/")
    conn = await asyncpg.connect(admin_url)
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await conn.close()


async def raw(db_url: str, *statements: str) -> list[tuple[object, ...]]:
    """Run SQL on ``LAMA_DB``'s database (SQLite path or PostgreSQL URL) behind the store's
    back; returns the rows of the last SELECT."""
    rows: list[tuple[object, ...]] = []
    if is_postgres(db_url):
        import asyncpg

        conn = await asyncpg.connect(db_url)
        try:
            for statement in statements:
                if statement.lstrip().upper().startswith("SELECT"):
                    rows = [tuple(r) for r in await conn.fetch(statement)]
                else:
                    await conn.execute(statement)  # may hold several commands
        finally:
            await conn.close()
    else:
        with sqlite3.connect(db_url) as db:
            for statement in statements:
                rows = db.execute(statement).fetchall()
    return rows
