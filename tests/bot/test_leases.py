"""Shard leases: a shard has one owner; a live owner keeps it, a killed one loses it at once."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest

from bot.common.shards import ShardPlan
from bot.process.backends import make_leases
from bot.store.leases import LeaseTimeout, SqliteShardLeases
from bot.store.sqlite import SqliteStore

ROOT = Path(__file__).resolve().parents[2]

HOLDER = """
import asyncio, sys
from bot.process.backends import make_leases
from bot.common.shards import ShardPlan

async def main():
    leases = make_leases(sys.argv[1])
    await leases.acquire(ShardPlan(4, (1,)), timeout=30)
    print("held", flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""


async def prepared(db: str) -> None:
    if not db.startswith("postgresql"):  # the file exists once the bot's store opened it
        store = SqliteStore(db)
        await store.open()
        await store.close()


async def test_a_shard_has_one_owner_until_it_lets_go(db_url: str) -> None:
    await prepared(db_url)
    first, second = make_leases(db_url), make_leases(db_url)
    await first.acquire(ShardPlan(4, (0, 1)))
    try:
        with pytest.raises(LeaseTimeout):
            await second.acquire(ShardPlan(4, (1, 2)), timeout=0.5)
        other = make_leases(db_url)
        await other.acquire(ShardPlan(4, (2, 3)), timeout=5)  # other shards are free
        await other.release()
    finally:
        await first.release()
        await second.release()
    third = make_leases(db_url)
    await third.acquire(ShardPlan(4, (1,)), timeout=5)
    await third.release()


@pytest.mark.slow  # a holder process, killed
async def test_a_killed_owners_shards_are_taken_over_at_once(db_url: str) -> None:
    await prepared(db_url)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    holder = await asyncio.create_subprocess_exec(
        sys.executable, "-c", HOLDER, db_url, env=env, stdout=asyncio.subprocess.PIPE)
    try:
        assert holder.stdout is not None
        assert await asyncio.wait_for(holder.stdout.readline(), 30) == b"held\n"
        taker = make_leases(db_url)
        with pytest.raises(LeaseTimeout):  # alive: it keeps the shard
            await taker.acquire(ShardPlan(4, (1,)), timeout=0.5)
        await taker.release()
    finally:
        holder.send_signal(signal.SIGKILL)
        await holder.wait()
    taker = make_leases(db_url)
    # gone: well before a SQLite lease would expire (15 s), as PostgreSQL frees its locks
    await taker.acquire(ShardPlan(4, (0, 1)), timeout=10)
    await taker.release()


async def test_an_expired_sqlite_lease_is_taken_over(tmp_path: Path) -> None:
    db = str(tmp_path / "lama.db")
    await prepared(db)
    stale = SqliteShardLeases(db, ttl=0.0, heartbeat=3600)  # never renewed in time
    await stale.acquire(ShardPlan(2, (0,)))
    taker = SqliteShardLeases(db)
    await taker.acquire(ShardPlan(2, (0,)), timeout=5)
    assert taker.held == [(2, 0)]
    await taker.release()
    await stale.release()


async def test_a_bot_whose_lease_is_lost_stops_serving(tmp_path: Path) -> None:
    from bot import create_bot
    from fakediscord import FakeDiscord
    from tests.bot.conftest import make_settings

    async with FakeDiscord() as fake:
        bot = create_bot(make_settings(tmp_path))
        async with fake.run(bot):
            assert not bot.is_closed()
            bot.leases.lost.set()  # as when the database dropped the lock's connection
            await fake.notifier.wait_for(lambda: True if not fake.gateway.shards() else None,
                                         10, "the bot to disconnect")
            assert bot.is_closed()
