"""A table older than an hour: Discord limits its edits (30046), so it is posted anew.

Both clocks are injected: the bot's (:class:`ManualClock`) and the fake's (whose
``advance`` ages every message); nothing waits an hour.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot import create_bot
from bot.common.clock import ManualClock
from cogs.table_posts import EDITABLE_FOR
from fakediscord import FakeDiscord, Message
from tests.bot.conftest import make_settings
from tests.bot.test_liveness import Club, members


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[Club]:
    clock = ManualClock()
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Lama Club")
        channel = guild.add_text_channel("lama")
        bot = create_bot(make_settings(tmp_path), clock=clock)
        async with fake.run(bot):
            world = Club(fake, bot, clock, guild, channel, *members(guild))
            yield world
        assert not fake.failures, fake.failures
        assert [r.code for r in fake.refusals] == world.expected_refusals, fake.refusals


async def next_table(club: Club, member: object) -> Message:
    turn = await club.turn_of(member)  # type: ignore[arg-type]
    assert turn.table is not None
    return turn.table


async def test_a_table_an_hour_old_is_posted_anew_instead_of_edited(club: Club) -> None:
    """By its age on the bot's clock: no edit is ever refused."""
    first = await club.start_game(turn_timeout=0)
    club.advance(EDITABLE_FOR / 2)  # (a human acts every 30 minutes: not idle)
    await club.act(club.ana, "Draw")
    assert (await next_table(club, club.ben)).id == first.id, "young: edited"
    club.advance(EDITABLE_FOR / 2)
    await club.act(club.ben, "Draw")
    table = await next_table(club, club.ana)
    assert table.id != first.id, "an hour old: posted anew"
    assert table.pinged == [club.ana.id], (
        "the new post notifies whom the bot cannot follow now: ana's hand token is too old, "
        "ben's was opened just now")
    await club.fake.notifier.wait_for(lambda: first.deleted or None, 5, "the old table gone")
    assert not [r for r in club.fake.refusals if r.code == 30046]
    await club.act(club.ana, "Draw")
    assert (await next_table(club, club.ben)).id == table.id, "the new one is edited"


async def test_an_edit_refused_with_30046_posts_the_table_anew(club: Club) -> None:
    """The bot cannot tell the table's age (say it was posted before a restart): Discord
    refuses the edit and the table comes back as a new message."""
    first = await club.start_game(turn_timeout=0)
    session = club.bot.sessions.require(club.channel.id)
    session.timers.table_posted = None
    session.timers.table_answer = None  # (nor the Start click's token: the channel edits it)
    club.fake.clock.advance(3600)  # only Discord's clock: the bot does not know
    club.fake.old_edit_limit = 0
    await club.act(club.ana, "Draw")
    table = await next_table(club, club.ben)
    assert table.id != first.id
    await club.fake.notifier.wait_for(lambda: first.deleted or None, 5, "the old table gone")
    club.expected_refusals = [30046]
    await club.act(club.ben, "Draw")
    assert (await next_table(club, club.ana)).id == table.id
