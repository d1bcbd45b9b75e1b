"""Nobody can freeze a game, through the fake Discord: timers, leaving, lost channels.

The bot runs on a :class:`ManualClock`; the tests advance it (and the fake's clock)
and await the resulting public message: nothing sleeps through a timeout.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot import create_bot
from bot.common.clock import ManualClock
from bot.policies.timers import NOTIFIED_PING_DELAY
from bot.process.client import LamaBot
from fakediscord import (
    MANAGE_GUILD,
    MANAGE_MESSAGES,
    SEND_MESSAGES,
    FakeDiscord,
    Guild,
    Member,
    Message,
    TextChannel,
)
from tests.bot.conftest import make_settings
from tests.bot.helpers import Turn, answered, click_and_confirm, current, lobby_closed
from tests.bot.traffic import edits_of, message_body, table_round

WAIT = 5.0


@dataclass
class Club:
    fake: FakeDiscord
    bot: LamaBot
    clock: ManualClock
    guild: Guild
    channel: TextChannel
    ana: Member
    ben: Member
    boss: Member  # Manage Server
    mod: Member  # Manage Messages only
    expected_refusals: list[int] = field(default_factory=list)

    def advance(self, seconds: float) -> None:
        """Both clocks: the bot's timers and the fake's idea of now."""
        self.clock.advance(seconds)
        self.fake.clock.advance(seconds)

    async def turn_of(self, member: Member) -> Turn:
        def check() -> Turn | None:
            turn = current(self.channel)
            return turn if turn is not None and turn.user_id == member.id else None

        return await self.fake.notifier.wait_for(check, WAIT, f"{member.name}'s turn")

    async def act(self, member: Member, label: str) -> None:
        """``member`` opens their hand from the table and clicks ``label``."""
        turn = await self.turn_of(member)
        assert turn.table is not None
        hand = (await member.click(turn.table, "My hand")).message
        assert hand is not None
        await click_and_confirm(member, hand, label)

    async def start_game(self, **options: Any) -> Message:
        lobby = await answered(await self.ana.slash(self.channel, "lama start", target=300,
                                                    **options))
        assert lobby is not None
        await self.ben.click(lobby, "Join")
        await self.ana.click(lobby, "Start")
        await lobby_closed(self.fake, lobby)  # (its edit follows the click's answer)
        turn = await self.turn_of(self.ana)  # seed 7: ana plays first
        assert turn.table is not None
        return turn.table


def members(guild: Guild) -> tuple[Member, Member, Member, Member]:
    return (guild.add_member("ana"), guild.add_member("ben"),
            guild.add_member("boss", permissions=MANAGE_GUILD),
            guild.add_member("mo", permissions=MANAGE_MESSAGES))


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


def is_note(text: str) -> Any:
    return lambda m: text in m.content


def posted_body(fake: FakeDiscord, content: str) -> dict[str, Any]:
    """The JSON the bot sent to create the message with ``content``."""
    for entry in fake.entries:
        body = entry.get("body")
        if (entry["kind"] == "rest" and entry["method"] == "POST" and isinstance(body, dict)
                and body.get("content") == content):
            return body
    raise AssertionError(f"no message {content!r} was posted")


# ---- turn timers -------------------------------------------------------------------------


def table_posts(fake: FakeDiscord) -> list[dict[str, Any]]:
    """The JSON bodies the bot sent to post a table (a create with a round's embed; the
    first is the Start click's answer)."""
    return [message_body(e["body"]) for e in fake.entries if e["kind"] == "rest"
            and e["method"] == "POST" and table_round(e.get("body")) is not None]


async def test_the_table_post_notifies_then_one_ping_after_the_delay_then_the_default_quits(
    club: Club,
) -> None:
    """Nobody's hand is open at the start: the table's post notifies ana and ben (Discord
    notifies on new messages only), so nobody is pinged at once. ana ignores it: pinged once
    10 s later (her hand is not open); ben's hand is open and shows his turn: pinged only
    half-way through it. Each ping is folded into a line without the mention once that turn
    is over."""
    reminder = club.channel.wait_for_message(is_note("⏰"))
    table = await club.start_game()
    assert table.pinged == [club.ana.id, club.ben.id], "the post notified both humans"
    [body] = table_posts(club.fake)
    allowed = body["allowed_mentions"]
    assert sorted(int(u) for u in allowed["users"]) == sorted([club.ana.id, club.ben.id])
    assert not allowed["parse"], "only those users, never everyone or roles"
    assert f"<@{club.ana.id}> <@{club.ben.id}>: your game is on." in table.text
    assert f"<@{club.ana.id}>, it is your turn" in table.text, "the turn line, as always"
    hand = await club.ben.slash(club.channel, "lama hand")  # ben keeps his hand open
    assert hand.ephemeral
    club.advance(NOTIFIED_PING_DELAY)
    note = await reminder  # the first ping: after the delay, not at once
    assert note.content == (f"⏰ <@{club.ana.id}>, it is still your turn: 110 seconds left, "
                            "then the bot plays for you.")
    mentions = posted_body(club.fake, note.content)["allowed_mentions"]
    assert [int(u) for u in mentions["users"]] == [club.ana.id] and not mentions["parse"]
    timed_out = club.channel.wait_for_message(is_note("ran out of time"))
    club.advance(120 - NOTIFIED_PING_DELAY)
    out = await timed_out
    assert "ana quit the round" in out.content and "AI" not in out.content, "once, not twice"
    await club.fake.notifier.wait_for(lambda: "turn is over" in note.content or None, WAIT,
                                      "ana's ping folded")
    assert note.content == "⏰ ana was pinged; that turn is over." and not note.deleted, (
        "never a ghost ping")
    await club.turn_of(club.ben)
    edits = edits_of(club.fake, table)  # (through the Start click's token: round 1)
    assert edits and all(not e["allowed_mentions"].get("users") for e in edits), (
        "the table's edits mention nobody")
    assert len(table_posts(club.fake)) == 1, "one table post this round"
    assert sum(m.content.startswith("⏰ <@") for m in club.channel.messages) == 0
    later = club.channel.wait_for_message(is_note("⏰ <@"))
    club.advance(60)
    ping = await later
    assert f"<@{club.ben.id}>" in ping.content and "60 seconds" in ping.content
    await club.act(club.ben, "Quit")  # alone in the round, he ends it
    await club.fake.notifier.wait_for(lambda: "played" in ping.content or None, WAIT,
                                      "ben's ping folded")
    assert ping.content == "⏰ ben was pinged, then played."
    assert ping.id in {m.id for m in club.channel.messages}
    edit = [e for e in club.fake.entries if e["kind"] == "rest" and e["method"] == "PATCH"
            and e["path"].endswith(f"/messages/{ping.id}")][-1]
    allowed = edit["body"]["allowed_mentions"]
    assert not allowed.get("users") and "users" not in allowed["parse"], "it names nobody"


async def test_twice_in_a_row_an_ai_takes_over_and_lama_hand_gives_it_back(club: Club) -> None:
    await club.start_game(turn_timeout=30)
    first = club.channel.wait_for_message(is_note("ran out of time"))
    club.advance(30)
    await first
    await club.act(club.ben, "Quit")  # ben, alone, ends the round; he starts the next
    await club.act(club.ben, "Quit")
    await club.turn_of(club.ana)
    second = club.channel.wait_for_message(is_note("twice in a row"))
    club.advance(30)
    note = await second
    assert "ana quit the round" in note.content and "/lama hand" in note.content
    turn = await club.turn_of(club.ben)  # the AI played ana's round by itself
    assert turn.table is not None and "**ana** 🤖" in turn.table.text
    back = await club.ana.slash(club.channel, "lama hand")
    assert back.ephemeral and "back in control" in back.message.text
    again = await club.ana.slash(club.channel, "lama hand")
    assert "back in control" not in again.message.text, "said once"
    await club.act(club.ben, "Draw")
    turn = await club.turn_of(club.ana)
    assert turn.table is not None and "**ana** 🤖" not in turn.table.text


async def test_timers_survive_a_restart(tmp_path: Path) -> None:
    clock = ManualClock()
    settings = make_settings(tmp_path)
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Lama Club")
        channel = guild.add_text_channel("lama")
        ana, ben, _, _ = members(guild)
        club = Club(fake, create_bot(settings, clock=clock), clock, guild, channel, ana, ben,
                    ana, ana)
        async with fake.run(club.bot):
            await club.start_game()
            reminder = channel.wait_for_message(is_note("⏰"))
            club.advance(60)
            await reminder
        assert club.bot.is_closed()
        club.bot = create_bot(settings, clock=clock)
        async with fake.run(club.bot, sync=False):
            timed_out = channel.wait_for_message(is_note("ran out of time"))
            club.advance(60)
            note = await timed_out
            assert "ana quit the round" in note.content
            pings = [e for e in fake.entries if e["kind"] == "rest" and e["method"] == "POST"
                     and "⏰ <@" in str((e.get("body") or {}).get("content"))]
            assert len(pings) == 1, "reminded once"
            await club.turn_of(ben)
        assert not fake.failures and not fake.refusals


async def test_config_turn_timeout(club: Club) -> None:
    refused = await club.mod.slash(club.channel, "lama config turn_timeout", seconds=60)
    assert refused.ephemeral and "Manage Server" in refused.message.text
    too_short = await club.boss.slash(club.channel, "lama config turn_timeout", seconds=10)
    assert too_short.ephemeral and "30 to 3600" in too_short.message.text
    shown = await club.mod.slash(club.channel, "lama config turn_timeout")
    assert "120 seconds" in shown.message.text, "the default, unchanged"
    done = await club.boss.slash(club.channel, "lama config turn_timeout", seconds=45)
    assert done.ephemeral and "45 seconds" in done.message.text
    bad = await answered(await club.ana.slash(club.channel, "lama start", turn_timeout=5))
    assert bad.ephemeral and "30 to 3600" in bad.text
    lobby = await answered(await club.ana.slash(club.channel, "lama start"))
    assert lobby is not None and "45 s per turn" in lobby.text
    await club.ben.click(lobby, "Join")
    await club.ana.click(lobby, "Start")
    await club.ben.slash(club.channel, "lama hand")  # open: his ping waits half the turn
    await club.act(club.ana, "Draw")
    reminder = club.channel.wait_for_message(is_note("⏰ <@"))
    club.advance(22.5)
    assert "22 seconds" in (await reminder).content  # the ping: half-way through 45 s


# ---- lobbies and idle games ----------------------------------------------------------------


async def test_a_lobby_nobody_starts_expires(club: Club) -> None:
    lobby = await answered(await club.ana.slash(club.channel, "lama start"))
    assert lobby is not None
    await club.ben.click(lobby, "Join")
    expired = club.channel.wait_for_message(lambda m: m.id == lobby.id and "expired" in m.text)
    club.advance(600)
    await expired
    assert not lobby.buttons
    fresh = await answered(await club.ben.slash(club.channel, "lama start"))
    assert not fresh.ephemeral, "the channel is free again"


async def test_thirty_minutes_without_a_human_action_abandon_the_game(club: Club) -> None:
    await club.start_game(turn_timeout=0)
    session = club.bot.sessions.get(club.channel.id)
    assert session is not None
    club.advance(29 * 60)
    await club.act(club.ana, "Draw")
    table = (await club.turn_of(club.ben)).table
    assert table is not None
    abandoned = club.channel.wait_for_message(is_note("Nobody has played for 30 minutes"))
    club.advance(30 * 60)
    await abandoned
    stored = await club.bot.store.game(club.guild.id, session.game_id)
    assert stored is not None and (stored["status"], stored["end_reason"]) == ("abandoned",
                                                                               "idle")
    assert not table.buttons and "counts for nobody" in table.text, "the table is closed"
    fresh = await answered(await club.ben.slash(club.channel, "lama start"))
    assert not fresh.ephemeral


# ---- leaving -------------------------------------------------------------------------------


async def test_leave_a_lobby_then_a_game(club: Club) -> None:
    lobby = await answered(await club.ana.slash(club.channel, "lama start", target=300))
    assert lobby is not None
    await club.ben.click(lobby, "Join")
    left = await club.ben.slash(club.channel, "lama leave")
    assert not left.ephemeral and "ben left the lobby" in left.message.text
    await club.fake.notifier.wait_for(lambda: "ben" not in lobby.text or None, WAIT,
                                      "the lobby without ben")
    await club.ben.click(lobby, "Join")
    await club.ana.click(lobby, "Start")
    await club.turn_of(club.ana)
    gone = await club.ben.slash(club.channel, "lama leave")
    assert not gone.ephemeral and "an AI plays their seat" in gone.message.text
    twice = await club.ben.slash(club.channel, "lama leave")
    assert twice.ephemeral and "already plays your seat" in twice.message.text
    await club.act(club.ana, "Draw")
    turn = await club.turn_of(club.ana)  # the AI played ben's turn
    assert turn.table is not None and "**ben** 🤖" in turn.table.text
    back = await club.ben.slash(club.channel, "lama hand")
    assert "back in control" in back.message.text


# ---- lost channels -------------------------------------------------------------------------


async def lost(bot: LamaBot) -> asyncio.Future[Any]:
    return asyncio.ensure_future(bot.wait_for("lama_channel_lost", timeout=WAIT))


async def test_a_deleted_channel_ends_the_game(club: Club) -> None:
    await club.start_game()
    session = club.bot.sessions.get(club.channel.id)
    assert session is not None
    ended = await lost(club.bot)
    await club.channel.delete()
    assert await ended is session
    assert club.bot.sessions.get(club.channel.id) is None
    stored = await club.bot.store.game(club.guild.id, session.game_id)
    assert stored is not None and (stored["status"], stored["end_reason"]) == ("abandoned",
                                                                               "channel_gone")
    assert await club.bot.store.sessions(club.guild.id) == []


async def test_lost_permission_ends_the_game_and_frees_the_channel(club: Club) -> None:
    await club.start_game()
    session = club.bot.sessions.get(club.channel.id)
    assert session is not None
    await club.channel.set_permissions(club.guild.me, deny=SEND_MESSAGES)
    ended = await lost(club.bot)
    await club.act(club.ana, "Draw")  # the answer is fine; the table is edited in place
    club.advance(NOTIFIED_PING_DELAY)  # ben's ping (notified, hand not open): a new message: 403
    assert await ended is session
    club.expected_refusals = [50013]
    stored = await club.bot.store.game(club.guild.id, session.game_id)
    assert stored is not None and (stored["status"], stored["end_reason"]) == ("abandoned",
                                                                               "channel_gone")
    refused = await answered(await club.ben.slash(club.channel, "lama start"))
    assert refused.ephemeral
    assert "Send Messages" in refused.text, "no game where it cannot post"
    await club.channel.set_permissions(club.guild.me)
    fresh = await answered(await club.ben.slash(club.channel, "lama start"))
    assert not fresh.ephemeral, "the channel is free for a new game"
