"""A server that removes the bot, through the fake Discord: the leave is noted at once; the
running bot's hourly sweep, on the injectable clock, deletes that server's rows in every
table once ``LAMA_GUILD_GRACE_DAYS`` have passed; being invited back in time keeps them."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import AsyncIterator, Iterator

import pytest

from bot import Settings, create_bot
from bot.common.clock import ManualClock
from bot.policies.forgetting import DAY, SWEEP_EVERY
from bot.store.privacy import GUILD_TABLES
from fakediscord import FakeDiscord
from tests.bot.conftest import World
from tests.bot.test_privacy import finished_game

WAIT = 10.0
GRACE_DAYS = 30


class SweepClock(ManualClock):
    """A manual clock that says when the housekeeping sweep has gone back to sleep (its
    nap is the only one of :data:`SWEEP_EVERY` seconds): the sweep before it is done."""

    def __init__(self) -> None:
        super().__init__()
        self.napping = asyncio.Event()

    async def sleep_until(self, deadline: float) -> None:
        if deadline - self.now() == SWEEP_EVERY:
            self.napping.set()
        await super().sleep_until(deadline)

    async def sweep_at(self, days: float) -> None:
        """Move ``days`` on and wait until the sweep this wakes has finished."""
        self.napping.clear()
        self.advance(days * DAY)
        await asyncio.wait_for(self.napping.wait(), WAIT)


class _Said(logging.Handler):
    def __init__(self, words: str) -> None:
        super().__init__(logging.INFO)
        self.words = words
        self.event = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if self.words in record.getMessage():
            self.event.set()


@contextlib.contextmanager
def said(logger: str, words: str) -> Iterator[asyncio.Event]:
    """An event set once ``logger`` logs ``words`` (the bot logs after the effect)."""
    handler, target = _Said(words), logging.getLogger(logger)
    level = target.level
    target.addHandler(handler)
    target.setLevel(logging.INFO)
    try:
        yield handler.event
    finally:
        target.removeHandler(handler)
        target.setLevel(level)


@pytest.fixture
async def world(settings: Settings) -> AsyncIterator[World]:
    """Like tests/bot/conftest.py's world, on a :class:`SweepClock`."""
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Lama Club")
        table = guild.add_text_channel("lama")
        ana, ben = guild.add_member("ana"), guild.add_member("ben")
        cleo, mod = guild.add_member("cleo", locale="fr"), guild.add_member("mo")
        clock = SweepClock()
        bot = create_bot(settings, clock=clock)
        async with fake.run(bot):
            await asyncio.wait_for(clock.napping.wait(), WAIT)  # the first sweep is done
            yield World(fake, bot, guild, table, ana, ben, cleo, mod, clock)
        assert not fake.failures and not fake.refusals and not fake.lint


def rows_of(db: str, guild_id: int) -> dict[str, int]:
    """The server's rows in each table that holds a server's data."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        return {t: conn.execute(f"SELECT COUNT(*) FROM {t} WHERE guild_id = ?",
                                (guild_id,)).fetchone()[0] for t in GUILD_TABLES}


async def played_here(world: World) -> dict[str, int]:
    await finished_game(world, 1, [world.ana, world.ben])
    await world.bot.store.set_guild_setting(world.guild.id, "language", "de")
    await world.bot.store.flush_notes()
    rows = rows_of(world.bot.settings.lama_db, world.guild.id)
    for table in ("games", "results", "ratings", "guild_settings"):
        assert rows[table] > 0, (table, rows)
    return rows


async def removed(world: World) -> None:
    with said("cogs.privacy", "left server") as noted:
        await world.guild.remove_bot()
        await asyncio.wait_for(noted.wait(), WAIT)
    assert list(await world.bot.store.left_guilds()) == [world.guild.id]


async def test_a_server_that_removed_the_bot_is_deleted_after_the_grace(world: World) -> None:
    before = await played_here(world)
    other = world.fake.add_guild("Elsewhere")  # a server the bot stays in keeps its data
    await world.bot.store.set_guild_setting(other.id, "language", "fr")
    await removed(world)
    assert world.bot.settings.lama_guild_grace_days == GRACE_DAYS
    await world.clock.sweep_at(GRACE_DAYS - 1)
    assert rows_of(world.bot.settings.lama_db, world.guild.id) == before, "kept in the grace"
    await world.clock.sweep_at(1)
    assert set(rows_of(world.bot.settings.lama_db, world.guild.id).values()) == {0}
    assert await world.bot.store.left_guilds() == {}
    assert await world.bot.store.guild_setting(other.id, "language") == "fr"


async def test_invited_back_within_the_grace_keeps_everything(world: World) -> None:
    before = await played_here(world)
    await removed(world)
    await world.clock.sweep_at(GRACE_DAYS - 1)
    with said("cogs.privacy", "back in server") as back:
        await world.guild.add_bot()
        await asyncio.wait_for(back.wait(), WAIT)
    assert await world.bot.store.left_guilds() == {}
    await world.clock.sweep_at(2)  # past the grace counted from the leave
    assert rows_of(world.bot.settings.lama_db, world.guild.id) == before
    reply = await world.ana.slash(world.table, "lama privacy")  # and the bot answers there
    assert reply.message is not None and "forget-me" in reply.message.text


async def test_a_ready_while_stopping_starts_no_sweep(world: World) -> None:
    """A ready dispatched as the bot stops (its store closing) neither touches the store
    nor starts the sweep that the cog's unload has just stopped."""
    privacy = world.bot.get_cog("Privacy")
    assert privacy is not None and privacy._housekeeping is not None
    await world.bot.close()
    assert privacy._housekeeping is None  # stopped by the unload
    await privacy.on_ready()  # (the store is closed: touching it would raise)
    assert privacy._housekeeping is None
