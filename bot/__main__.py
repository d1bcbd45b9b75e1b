"""``python -m bot [--shard-count N --shard-ids 0-3]``: read the settings, set up logging, run
the bot until stopped (SIGTERM or Ctrl-C stop it cleanly)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys

import discord
from pydantic import ValidationError

from bot.client import create_bot
from bot.settings import Settings, point_at
from bot.store import StoreError

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
    # SIGTERM (the launcher, systemd, docker stop) closes the bot like Ctrl-C: the answers
    # under way finish, the store is closed
    loop.add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(bot.close()))
    async with bot:
        await bot.start(token)


def parse_args(argv: list[str] | None) -> dict[str, object]:
    """Command-line options; they override the settings of the same name."""
    parser = argparse.ArgumentParser(prog="python -m bot", description=__doc__)
    parser.add_argument("--shard-count", type=int, help="shards in all (LAMA_SHARD_COUNT)")
    parser.add_argument("--shard-ids", help="this process's shards, e.g. 0-3 (LAMA_SHARD_IDS)")
    parser.add_argument("--no-sync", action="store_true",
                        help="leave syncing commands to another process (LAMA_SYNC_COMMANDS=0)")
    args = parser.parse_args(argv)
    overrides: dict[str, object] = {}
    if args.shard_count is not None:
        overrides["lama_shard_count"] = args.shard_count
    if args.shard_ids is not None:
        overrides["lama_shard_ids"] = args.shard_ids
    if args.no_sync:
        overrides["lama_sync_commands"] = False
    return overrides


def main(argv: list[str] | None = None) -> int:
    overrides = parse_args(argv)
    try:
        settings = Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])).upper()}: {e['msg']}" if e["loc"] else e["msg"]
            for e in exc.errors())
        sys.stderr.write(f"Invalid settings: {problems}\n")
        return 2
    logging.basicConfig(
        level=settings.lama_log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    logging.getLogger("discord.client").addFilter(_not_about_voice)
    token = settings.token
    if token is None:
        sys.stderr.write(NO_TOKEN + "\n")
        return 2
    if settings.lama_discord_url:
        point_at(settings.lama_discord_url)
    try:
        asyncio.run(run(settings, token))
    except discord.LoginFailure:
        sys.stderr.write(BAD_TOKEN + "\n")
        return 3  # bot.cluster does not restart a process whose token Discord refused
    except StoreError as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    except KeyboardInterrupt:
        log.info("stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
