"""``python -m bot sandbox``: the real bot, a local fake Discord and a page to play in a browser.

The fake Discord (``fakediscord``) runs in this process; the bot runs unmodified as a child
``python -m bot`` logged in to it; the page (``page.py``, ``static/``) lets one person play as
several members. Nothing leaves the machine: everything listens on 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import logging
import signal
import socket
import sys
import tempfile
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from aiohttp import web

from fakediscord import FakeDiscord, FakeDiscordError

from .page import build_app
from .process import BotProcess
from .world import World

log = logging.getLogger(__name__)

FIRST_PORT = 8765
PORTS_TRIED = 50


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bot sandbox",
        description="Play with the real bot in a browser, on a local fake Discord.")
    parser.add_argument("--port", type=int, default=None,
                        help=f"port on 127.0.0.1 (default: the first free from {FIRST_PORT})")
    parser.add_argument("--db", type=Path, default=None,
                        help="write the sandbox's database to this new file (default: a "
                             "temporary one, deleted at the end)")
    return parser.parse_args(argv)


def main(argv: list[str], *, intro: str = "") -> int:
    """Run until Ctrl-C; `intro` starts the one line that gives the address."""
    args = parse_args(argv)
    logging.basicConfig(level="WARNING", format="%(levelname)s %(name)s: %(message)s", force=True)
    if args.db is not None and args.db.exists():
        sys.stderr.write(f"{args.db} exists: the sandbox only writes a new database file.\n")
        return 2
    try:
        return asyncio.run(serve(args, intro))
    except KeyboardInterrupt:  # a Ctrl-C before the handlers were installed
        return 0


async def serve(args: argparse.Namespace, intro: str) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    with tempfile.TemporaryDirectory(prefix="lama-sandbox-") as tmp:
        db = args.db.resolve() if args.db is not None else Path(tmp) / "lama.db"
        db.parent.mkdir(parents=True, exist_ok=True)
        fake = FakeDiscord()
        fake.keep_files = True  # the page shows the bot's images
        bot = BotProcess(fake, db, Path(tmp) / "bot.log")
        async with fake:
            sock = bind(args.port)
            if sock is None:
                return 2
            port = sock.getsockname()[1]
            runner = web.AppRunner(build_app(World(fake), port), access_log=None)
            await runner.setup()
            try:
                await web.SockSite(runner, sock).start()
                if not await until_stopped(bot.start(), stop):
                    return 0
                sys.stdout.write(f"{intro}L.A.M.A. sandbox: http://127.0.0.1:{port} "
                                 "(Ctrl-C to stop)\n")
                sys.stdout.flush()
                if await until_stopped(bot.wait(), stop):
                    sys.stderr.write(f"The bot stopped unexpectedly:\n{bot.log_tail()}\n")
                    return 1
            except FakeDiscordError as exc:
                sys.stderr.write(f"The sandbox could not start: {exc}\n{bot.log_tail()}\n")
                return 1
            finally:
                await bot.stop()
                await runner.cleanup()
    return 0


async def until_stopped(work: Coroutine[Any, Any, object], stop: asyncio.Event) -> bool:
    """Run `work` until it ends (True) or Ctrl-C (False)."""
    task = asyncio.create_task(work)
    stopping = asyncio.create_task(stop.wait())
    await asyncio.wait({task, stopping}, return_when=asyncio.FIRST_COMPLETED)
    stopping.cancel()
    if not task.done():
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, FakeDiscordError):
            await task
        return False
    task.result()  # raises what starting raised
    return True


def bind(port: int | None) -> socket.socket | None:
    """A socket on 127.0.0.1: `port`, or the first free one from 8765."""
    candidates = [port] if port is not None else range(FIRST_PORT, FIRST_PORT + PORTS_TRIED)
    for candidate in candidates:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", candidate))
        except OSError as exc:
            sock.close()
            if exc.errno != errno.EADDRINUSE or port is not None:
                sys.stderr.write(f"Cannot listen on 127.0.0.1:{candidate}: {exc.strerror}\n")
                return None
            continue
        return sock
    sys.stderr.write(f"No free port from {FIRST_PORT} to {FIRST_PORT + PORTS_TRIED - 1}.\n")
    return None
