"""``python -m bot [--shard-count N --shard-ids 0-3]``: read the settings, set up logging, run
the bot until stopped (SIGTERM or Ctrl-C stop it cleanly). The shard options let several
processes share the bot (``python -m bot.cluster`` starts them).

``python -m bot sandbox`` runs the local sandbox instead (``bot/sandbox``); ``python -m bot
backup FILE`` copies the live SQLite store to FILE (bot/process/backup.py). Without a token
the bot refuses in one line; only ``--sandbox-if-no-token`` (what ``scripts/run`` passes)
run by a person at a terminal starts the sandbox then, so that a service whose ``.env`` lost
its token never turns into a silent local sandbox.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
import time
from contextlib import AbstractAsyncContextManager

import aiohttp
import discord
from pydantic import ValidationError

from bot.app import create_bot
from bot.process.client import LamaBot
from bot.process.logs import setup_logging
from bot.process.loop import freeze_since, freeze_startup_heap, run_loop
from bot.process.settings import Settings, Unusable, point_at
from bot.store.sqlite import StoreError

log = logging.getLogger("bot")

NO_TOKEN = (
    "DISCORD_TOKEN is not set: put your bot token in the environment or in a .env file "
    "(see .env.example)."
)
BAD_TOKEN = (
    "Discord refused DISCORD_TOKEN: copy a fresh token from the Discord developer portal "
    "(Application → Bot → Reset Token) into .env."
)


def _not_about_voice(record: logging.LogRecord) -> bool:
    """This bot never joins voice: drop discord.py's warnings about missing voice libraries."""
    return "voice will NOT be supported" not in record.getMessage()


async def run(settings: Settings, token: str) -> None:
    bot = create_bot(settings)
    loop = asyncio.get_running_loop()
    stopping: list[asyncio.Future[None]] = []

    def stop() -> None:  # SIGTERM (bot.cluster, systemd, containers): as Ctrl-C does
        log.info("SIGTERM: stopping")
        stopping.append(asyncio.ensure_future(bot.close()))

    loop.add_signal_handler(signal.SIGTERM, stop)
    # what would load at its first use loads now, on its own thread, beside the login
    warming = asyncio.create_task(bot.wiring.warm()) if bot.wiring.warm is not None else None
    async with bot, observed(bot, settings):
        await bot.store.open()  # a bad database file is reported before contacting Discord
        freezing: asyncio.Task[None] | None = None
        try:
            await bot.login(token)  # (discord.py's start: login, then connect)
            frozen = await settle_before_connecting(warming)
            freezing = asyncio.create_task(freeze_when_ready(bot, warming, frozen))
            await bot.connect()
        finally:
            if freezing is not None:
                freezing.cancel()


def observed(bot: LamaBot, settings: Settings) -> AbstractAsyncContextManager[object]:
    """Health and metrics served while the bot runs, when ``LAMA_METRICS_ADDR`` asks."""
    if settings.lama_metrics_addr is None:
        return contextlib.nullcontext()
    from bot.process.metrics import serving_metrics

    return serving_metrics(bot, settings.lama_metrics_addr)


WARM_WAIT = 10.0
"""Seconds the gateway connection waits for the warm-up at most (matplotlib building its
font cache on a fresh machine takes longer: the bot connects, and freezes once ready)."""


async def settle_before_connecting(warming: asyncio.Task[None] | None,
                                   wait: float = WARM_WAIT) -> bool:
    """Logged in and set up (games restored, cogs loaded), before the gateway connects: the
    warm-up waited for and what start-up built frozen (bot/process/loop.py); whether it was.

    Done here rather than once ready only: a client restarted under load gets its first
    clicks as it connects, and a full collection of the whole start-up heap (100-120 ms on
    the load benchmark's core) then held up the answers of 200 lobbies opening, as did the
    warm-up's thread taking turns with the loop for the interpreter's lock. Once ready,
    :func:`freeze_when_ready` freezes what connecting added (the guilds' cache)."""
    if warming is not None:
        done, _ = await asyncio.wait({warming}, timeout=wait)
        if not done:
            log.info("warming up takes long: connecting, the heap is frozen once ready")
            return False
    started = time.perf_counter()
    frozen = freeze_startup_heap()
    log.info("start-up heap frozen before connecting: %d objects (%.0f ms)", frozen,
             (time.perf_counter() - started) * 1000)
    return True


async def freeze_when_ready(bot: LamaBot, warming: asyncio.Task[None] | None = None,
                            frozen: bool = False) -> None:
    """Once the guilds and games are loaded and the warm-up started with the process is
    over (``Wiring.warm``: the charts' matplotlib, 0.4 s of CPU and 50 MB, otherwise loaded
    at the first game's end, in the middle of the games), what start-up built leaves the
    garbage collector's walks (bot/process/loop.py). ``frozen``: it was, before connecting
    (:func:`settle_before_connecting`), and what came since is frozen without a collection.

    The warm-up is awaited even when it outlived the wait before connecting: what it loads
    is frozen too."""
    await bot.wait_until_ready()
    if warming is not None:
        try:
            await warming
        except Exception:  # (a chart then loads it at its first use, as before)
            log.exception("warming up failed")
    if frozen:
        freeze_since()
        log.info("what connecting built frozen too")
    else:
        log.info("start-up heap frozen: %d objects", freeze_startup_heap())


def unreachable(settings: Settings, error: BaseException) -> str:
    """One line for a network failure while logging in."""
    where = settings.lama_discord_url or "discord.com"
    return (f"Cannot reach Discord at {where} ({type(error).__name__}: {error}): check the "
            "network connection" + (" and LAMA_DISCORD_URL." if settings.lama_discord_url
                                    else "."))


OR_SANDBOX = "--sandbox-if-no-token"


def at_a_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def parse_args(argv: list[str]) -> tuple[dict[str, object], bool]:
    """Options: the settings they override, and whether a missing token opens the sandbox."""
    parser = argparse.ArgumentParser(
        prog="python -m bot", usage="python -m bot [sandbox [--port N] [--db FILE] | "
        f"{OR_SANDBOX} | --shard-count N --shard-ids A-B [--processes N] [--no-sync]]")
    parser.add_argument(OR_SANDBOX, action="store_true", dest="or_sandbox",
                        help="at a terminal, without a token, open the local sandbox")
    parser.add_argument("--shard-count", type=int, help="shards in all (LAMA_SHARD_COUNT)")
    parser.add_argument("--shard-ids", help="this process's shards, e.g. 0-3 (LAMA_SHARD_IDS)")
    parser.add_argument("--processes", type=int,
                        help="processes sharing the token, this one included (LAMA_PROCESSES)")
    parser.add_argument("--no-sync", action="store_true",
                        help="leave syncing commands to another process (LAMA_SYNC_COMMANDS=0)")
    args = parser.parse_args(argv)  # exits 2 with the usage line on anything else
    overrides: dict[str, object] = {}
    if args.shard_count is not None:
        overrides["lama_shard_count"] = args.shard_count
    if args.shard_ids is not None:
        overrides["lama_shard_ids"] = args.shard_ids
    if args.processes is not None:
        overrides["lama_processes"] = args.processes
    if args.no_sync:
        overrides["lama_sync_commands"] = False
    return overrides, args.or_sandbox


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["data"]:  # the operator's privacy duties (bot/process/data_commands.py)
        from bot.process.data_commands import main as data

        return data(args[1:])
    if args[:1] == ["sandbox"]:
        from bot.sandbox import main as sandbox

        return sandbox(args[1:])
    if args[:1] == ["backup"]:
        from bot.process.backup import main as backup

        return backup(args[1:])
    overrides, or_sandbox = parse_args(args)
    try:
        settings = Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])).upper()}: {e['msg']}" if e["loc"] else e["msg"]
            for e in exc.errors())
        sys.stderr.write(f"Invalid settings: {problems}\n")
        return 2
    # redacted from every line, as interaction tokens (bot/process/redact.py)
    token = settings.token
    setup_logging(settings.lama_log_level, settings.lama_log_format, [token] if token else [])
    logging.getLogger("discord.client").addFilter(_not_about_voice)
    if token is None and or_sandbox and at_a_terminal():
        from bot.sandbox import main as sandbox

        return sandbox([], intro="No DISCORD_TOKEN, so here is the local sandbox. ")
    if token is None:
        sys.stderr.write(NO_TOKEN + "\n")
        return 2
    if settings.lama_discord_url:
        point_at(settings.lama_discord_url)
    try:
        run_loop(run(settings, token))
    except discord.LoginFailure:
        sys.stderr.write(BAD_TOKEN + "\n")
        return 3  # bot.cluster does not restart a process whose token Discord refused
    except (StoreError, Unusable) as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    except (TimeoutError, aiohttp.ClientError, OSError) as exc:
        sys.stderr.write(unreachable(settings, exc) + "\n")
        return 1
    except KeyboardInterrupt:
        log.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
