"""``python -m bot data forget-user ID | forget-guild ID | export-user ID [--out FILE]``: the
operator's answers to deletion and access requests (Discord's, or a member's by mail).

A thin parser over the store's privacy functions (bot/store/privacy.py) on the database of
``LAMA_DB``. ``forget-user`` here scrubs the stored data only: a game running in a live bot
keeps the member in memory and would write them back, so stop the bot first, or let the
member use ``/lama forget-me`` (which also hands their seat to an AI).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from bot.process.backends import make_store
from bot.process.settings import Settings
from bot.store.sql_store import StoreError


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bot data",
                                     description="Delete or export stored data.")
    commands = parser.add_subparsers(dest="command", required=True)
    for name, what in (("forget-user", "delete a member's id and names everywhere"),
                       ("forget-guild", "delete every row of a server"),
                       ("export-user", "print everything stored about a member (JSON)")):
        command = commands.add_parser(name, help=what)
        command.add_argument("id", type=int, help="the Discord id")
    return parser.parse_args(argv)


async def run(settings: Settings, args: argparse.Namespace) -> dict[str, Any]:
    store = make_store(settings.lama_db)
    await store.open()
    try:
        if args.command == "forget-user":
            return (await store.forget_user(args.id)).summary()
        if args.command == "forget-guild":
            return await store.forget_guild(args.id)
        return await store.export_user(args.id)
    finally:
        await store.close()


def main(argv: list[str]) -> int:
    args = parse(argv)  # exits 2 with the usage on anything else
    try:
        result = asyncio.run(run(Settings(), args))
    except StoreError as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    json.dump(result, sys.stdout, ensure_ascii=False, indent=1, default=str)
    sys.stdout.write("\n")
    return 0
