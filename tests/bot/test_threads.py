"""A thread per game, through the fake Discord: a server that turns threads on plays each
game in a public thread made from its lobby message, so one channel holds many games.

The bot runs on a :class:`ManualClock` nobody advances here (no timer fires by itself).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot import create_bot
from bot.common.clock import ManualClock
from bot.process.client import LamaBot
from bot.sessions.guild_settings import THREADS_SETTING, plays_in_thread
from bot.sessions.state import Pace
from cogs.threads import clean, thread_name
from fakediscord import (
    MANAGE_GUILD,
    FakeDiscord,
    Guild,
    Member,
    Message,
    TextChannel,
)
from fakediscord.base import CREATE_PUBLIC_THREADS
from fakediscord.threads import Thread
from tests.bot.conftest import make_settings
from tests.bot.helpers import (
    Turn,
    answered,
    card,
    click_and_confirm,
    current,
    is_final,
    is_table,
    lobby_closed,
)

WAIT = 10.0
END_WAIT = 30.0
"""The end of a game draws its chart in the chart worker: on a loaded machine (the suite on
two busy cores) that takes seconds; an upper bound, not a measure."""


@dataclass
class Club:
    fake: FakeDiscord
    bot: LamaBot
    guild: Guild
    channel: TextChannel
    ana: Member
    ben: Member
    cleo: Member
    boss: Member  # Manage Server
    expected_refusals: list[int] = field(default_factory=list)

    @property
    def members(self) -> dict[int, Member]:
        return {m.id: m for m in (self.ana, self.ben, self.cleo, self.boss)}

    async def threads_on(self) -> None:
        done = await self.boss.slash(self.channel, "lama config threads", threads="on")
        assert done.ephemeral and "switched on" in done.message.text

    async def lobby(self, host: Member, *guests: Member, **options: Any) -> Message:
        lobby = await answered(await host.slash(self.channel, "lama start", **options))
        assert lobby is not None and not lobby.ephemeral
        for guest in guests:
            await guest.click(lobby, "Join")
        return lobby

    async def start(self, host: Member, *guests: Member, **options: Any) -> Thread:
        """A lobby opened, joined and started: the thread its game moved to."""
        lobby = await self.lobby(host, *guests, **options)
        before = len(self.guild.threads)
        started = await host.click(lobby, "Start")
        assert started.message is not None
        thread = self.guild.threads[before]
        assert isinstance(thread, Thread) and thread.id == lobby.id, "made from the lobby"
        assert f"<#{thread.id}>" in started.message.text, "the lobby links to it"
        assert not started.message.buttons, "the lobby is closed"
        return thread

    async def turn_in(self, channel: TextChannel, member: Member) -> Turn:
        def check() -> Turn | None:
            turn = current(channel)
            return turn if turn is not None and turn.user_id == member.id else None

        return await self.fake.notifier.wait_for(check, WAIT, f"{member.name}'s turn")

    async def finish(self, thread: TextChannel) -> Message:
        """ana and ben both quit the round (target 1: the game ends); the final standings."""
        await self.act(thread, self.ana, "Quit")
        await self.act(thread, self.ben, "Quit")
        return await self.fake.notifier.wait_for(
            lambda: next((m for m in thread.messages if is_final(m)), None), END_WAIT,
            "the final standings")

    async def act(self, channel: TextChannel, member: Member, label: str) -> None:
        turn = await self.turn_in(channel, member)
        assert turn.table is not None
        hand = (await member.click(turn.table, "My hand")).message
        assert hand is not None and hand.ephemeral
        await click_and_confirm(member, hand, label)


def people(guild: Guild) -> tuple[Member, Member, Member, Member]:
    return (guild.add_member("ana"), guild.add_member("ben"), guild.add_member("cleo"),
            guild.add_member("boss", permissions=MANAGE_GUILD))


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[Club]:
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Lama Club")
        channel = guild.add_text_channel("lama")
        bot = create_bot(make_settings(tmp_path), clock=ManualClock())
        async with fake.run(bot):
            world = Club(fake, bot, guild, channel, *people(guild))
            yield world
        assert not fake.failures, fake.failures
        assert [r.code for r in fake.refusals] == world.expected_refusals, fake.refusals
        assert not fake.lint, fake.lint


async def said(fake: FakeDiscord, channel: TextChannel, text: str) -> Message:
    """The message of ``channel`` whose content holds ``text`` (waiting for it)."""
    return await fake.notifier.wait_for(
        lambda: next((m for m in channel.messages if text in m.text), None), WAIT,
        f"{text!r} in #{channel.name}")  # (after the standings: an end's)


# ---- the seam and the name ----------------------------------------------------------------


async def test_plays_in_thread_follows_the_server_setting(club: Club) -> None:
    settings = club.bot.sessions.guild_settings
    assert not plays_in_thread({}, settings, club.guild.id), "off by default"
    shown = await club.ana.slash(club.channel, "lama config threads")
    assert "Threads are off" in shown.message.text
    refused = await club.ana.slash(club.channel, "lama config threads", threads="on")
    assert "Manage Server" in refused.message.text
    assert settings.get(club.guild.id, THREADS_SETTING) is None, "nothing changed"
    assert plays_in_thread({}, settings, club.guild.id, Pace.RELAXED), "relaxed: always"
    assert not plays_in_thread({}, settings, club.guild.id, Pace.LIVE)
    await club.threads_on()
    assert plays_in_thread({}, settings, club.guild.id)
    assert await club.bot.store.guild_setting(club.guild.id, THREADS_SETTING) == "on"


def test_a_thread_name_is_one_plain_line_of_at_most_100_characters() -> None:
    from bot.sessions.state import Seat
    from bot.words.i18n import translator

    class Named:
        variant = "classic"

        def __init__(self) -> None:
            self.seats = [Seat(1, "ana\n@everyone"), Seat(2, "b\u202een\u200d"),
                          *(Seat(None, "x" * 90) for _ in range(4))]

    name = thread_name(translator("en"), Named())  # type: ignore[arg-type]
    assert len(name) == 100 and name.endswith("…")
    assert "\n" not in name and "\u202e" not in name and "\u200d" not in name
    assert name.startswith("L.L.A.M.A. — ana @everyone, ben, " + "x" * 32 + ", xxx")
    assert clean("  a \t b\u0000 ") == "a b"


# ---- many games in one channel -------------------------------------------------------------


async def test_two_games_and_a_lobby_in_one_channel(club: Club) -> None:
    """Threads on: a started game moves to its thread and the channel takes the next lobby;
    two games run at once beside a third lobby. The moved lobby's buttons say where the game
    went; /lama stop in the channel is the lobby's, in a thread its game's."""
    await club.threads_on()
    first = await club.start(club.ana, club.ben, target=1)  # (one round)
    assert first.name == "L.L.A.M.A. — ana, ben" and first.auto_archive_duration == 10080
    assert first.parent is club.channel
    lobby_one = next(m for m in club.channel.messages if m.id == first.id)
    assert lobby_one.thread is first, "the lobby message carries its thread"
    second = await club.start(club.cleo, club.boss, target=300)
    third = await club.lobby(club.ben)  # the channel is free again
    assert club.bot.sessions.get(club.channel.id) is not None
    assert not lobby_one.buttons, "the moved lobby has no buttons left"

    # both games play, each in its thread
    await club.act(first, club.ana, "Draw")
    await club.act(second, club.cleo, "Draw")
    await club.turn_in(first, club.ben)
    assert club.bot.sessions.get(first.id) is not None
    assert club.bot.sessions.get(second.id) is not None
    hand = await club.ben.slash(first, "lama hand")
    assert hand.ephemeral, "My hand works in the thread"

    # /lama stop in the channel is the lobby's; in a thread, its game's
    stopped = await club.ben.slash(club.channel, "lama stop")
    assert "stopped the game" in stopped.message.text
    assert club.bot.sessions.get(club.channel.id) is None
    assert club.bot.sessions.get(first.id) is not None, "the games run on"
    archived = club.fake.notifier.wait_for(lambda: second.archived or None, WAIT,
                                           "the stopped game's thread archived")
    stop = await club.cleo.slash(second, "lama stop")  # (the host)
    assert "stopped the game" in stop.message.text
    await archived
    assert club.bot.sessions.get(second.id) is None
    assert third.id not in {t.id for t in club.guild.threads}

    # the first game plays to its end: standings in the thread and the channel, archived
    await club.act(first, club.ben, "Draw")
    standings = await club.finish(first)
    assert standings.channel is first
    copy = await said(club.fake, club.channel, f"The game in <#{first.id}> is over.")
    assert card(copy).description and card(copy).description == card(standings).description
    assert not copy.pinged, "the winners were notified in the thread"
    await club.fake.notifier.wait_for(lambda: first.archived or None, WAIT, "archived")
    assert not first.locked
    assert await club.bot.store.sessions(club.guild.id) == []


async def test_two_relaxed_games_and_a_live_one_in_one_channel(club: Club) -> None:
    """Issue 31's goal: two relaxed games (always in a thread) and a live one (the server chose
    threads) run at once from one channel, each in its own thread, each turn's mention in the
    relaxed games' threads only; the channel is free for a lobby meanwhile."""
    await club.threads_on()
    slow = await club.start(club.ana, club.ben, pace="relaxed", target=300)
    slower = await club.start(club.cleo, club.boss, pace="relaxed", target=300)
    live = await club.start(club.ben, club.cleo, target=300)
    assert len({slow.id, slower.id, live.id}) == 3
    assert all(t.parent is club.channel for t in (slow, slower, live))
    assert club.bot.sessions.get(club.channel.id) is None, "the channel is free"
    sessions = [club.bot.sessions.get(t.id) for t in (slow, slower, live)]
    assert [s.pace for s in sessions if s is not None] == [Pace.RELAXED, Pace.RELAXED,
                                                            Pace.LIVE]
    await club.act(slow, club.ana, "Draw")
    await club.act(slower, club.cleo, "Draw")
    await club.act(live, club.ben, "Draw")
    await club.turn_in(slow, club.ben)
    await club.turn_in(slower, club.boss)
    await club.turn_in(live, club.cleo)
    for thread in (slow, slower, live):
        await club.bot.sessions.outbox.deliver(thread.id)

    def mentioned(channel: TextChannel) -> list[int]:
        return [m.pinged[0] for m in channel.messages if (m.content or "").startswith("🔔")]

    assert mentioned(slow) == [club.ana.id, club.ben.id], "each turn once, in its thread"
    assert mentioned(slower) == [club.cleo.id, club.boss.id]
    assert mentioned(live) == [], "a live game keeps the live ping policy"
    assert mentioned(club.channel) == []
    listed = await answered(await club.ben.slash(club.channel, "lama games"))
    assert listed is not None and listed.ephemeral
    assert f"<#{slow.id}>" in listed.text and f"<#{live.id}>" in listed.text
    assert f"<#{slower.id}>" not in listed.text, "his games only"
    await club.lobby(club.boss)  # and a lobby in the channel beside them
    assert club.bot.sessions.get(club.channel.id) is not None


# ---- moderators and the thread ---------------------------------------------------------------


async def test_an_archived_thread_is_opened_again_by_the_next_move(club: Club) -> None:
    await club.threads_on()
    thread = await club.start(club.ana, club.ben, target=300)
    turn = await club.turn_in(thread, club.ana)
    assert turn.table is not None
    await thread.archive()  # a moderator puts it away mid-game
    assert thread.archived
    await club.act(thread, club.ana, "Draw")  # the table's edit: refused, unarchived, edited
    await club.turn_in(thread, club.ben)
    assert not thread.archived
    unarchive = [e for e in club.fake.entries if e["kind"] == "rest"
                 and e["method"] == "PATCH" and e["path"].endswith(f"/channels/{thread.id}")]
    assert [e["body"] for e in unarchive] == [{"archived": False}]
    club.expected_refusals = [50083]  # the one edit that found it archived


@pytest.mark.parametrize("how", ["lock", "delete"])
async def test_a_locked_or_deleted_thread_ends_the_game_said_in_the_channel(
    club: Club, how: str
) -> None:
    await club.threads_on()
    thread = await club.start(club.ana, club.ben, target=300)
    await club.turn_in(thread, club.ana)
    session = club.bot.sessions.get(thread.id)
    assert session is not None
    if how == "lock":
        await thread.lock()
    else:
        await thread.delete()
    await said(club.fake, club.channel, f"The game in <#{thread.id}> is over: its thread was "
               "locked or deleted. It counts for nobody.")
    assert club.bot.sessions.get(thread.id) is None
    stored = await club.bot.store.game(club.guild.id, session.game_id)
    assert stored is not None and (stored["status"], stored["end_reason"]) == (
        "abandoned", "channel_gone")
    assert stored["channel_id"] == club.channel.id, "kept under the channel it was opened in"
    assert await club.bot.store.sessions(club.guild.id) == []


# ---- no permission ---------------------------------------------------------------------------


async def test_without_thread_permissions_the_game_stays_in_the_channel(club: Club) -> None:
    await club.threads_on()
    await club.channel.set_permissions(club.guild.me, deny=CREATE_PUBLIC_THREADS)
    lobby = await club.lobby(club.ana, club.ben, target=300)
    started = await club.ana.click(lobby, "Start")
    assert started.message is not None and not club.guild.threads
    assert is_table(started.message), "in the channel: the click answers with the table"
    footer = card(await lobby_closed(club.fake, lobby)).footer or ""
    assert "may not make threads here" in footer and "Create Public Threads" in footer
    await club.act(club.channel, club.ana, "Draw")  # played in the channel, as before
    refused = await answered(await club.ben.slash(club.channel, "lama start"))
    assert refused.ephemeral and "already running" in refused.text
    said = [m for m in club.channel.messages if "may not make threads" in m.text]
    assert len(said) == 1, "said once, in the lobby"


# ---- restarts --------------------------------------------------------------------------------


async def test_a_game_in_a_thread_survives_a_restart(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Lama Club")
        channel = guild.add_text_channel("lama")
        club = Club(fake, create_bot(settings, clock=ManualClock()), guild, channel,
                    *people(guild))
        async with fake.run(club.bot):
            await club.threads_on()
            thread = await club.start(club.ana, club.ben, target=1)  # (one round)
            await club.act(thread, club.ana, "Draw")
            await club.turn_in(thread, club.ben)
            await club.lobby(club.cleo)  # a lobby in the channel meanwhile
        club.bot = create_bot(settings, clock=ManualClock())
        async with fake.run(club.bot, sync=False):
            session = club.bot.sessions.get(thread.id)
            assert session is not None and session.parent_id == channel.id
            assert club.bot.sessions.get(channel.id) is not None, "the lobby too"
            await club.act(thread, club.ben, "Draw")
            await club.turn_in(thread, club.ana)
            await club.finish(thread)
            await said(fake, channel, f"The game in <#{thread.id}> is over.")
            await fake.notifier.wait_for(lambda: thread.archived or None, WAIT, "archived")
        assert not fake.failures and not fake.refusals and not fake.lint


async def test_rematch_is_in_the_channel(club: Club) -> None:
    await club.threads_on()
    thread = await club.start(club.ana, club.ben, target=1)
    standings = await club.finish(thread)
    copy = await said(club.fake, club.channel, f"The game in <#{thread.id}> is over.")
    here = await club.ana.click(standings, "Rematch")
    assert here.ephemeral and f"<#{club.channel.id}>" in here.message.text
    there = await club.ana.click(copy, "Rematch")
    assert there.message is not None and not there.ephemeral, "a new lobby in the channel"
