"""Relaxed games' commands through the fake Discord (issue 31): the pace and its options,
the server's default, ``/lama notify`` and what privacy does with it, ``/lama games``.
The whole relaxed game over days is tests/bot/test_relaxed_days.py."""

from __future__ import annotations

import sqlite3

from fakediscord import MANAGE_GUILD, Member, Message, TextChannel
from fakediscord.base import CREATE_PUBLIC_THREADS
from fakediscord.threads import Thread
from tests.bot.conftest import World
from tests.bot.helpers import (
    WAIT,
    answered,
    card,
    current,
    first_button,
    lobby_closed,
    offers,
    settled,
)
from tests.bot.test_game_time import Held


def text_of(result: object) -> str:
    message = getattr(result, "message", None)
    assert message is not None and message.ephemeral, result
    return str(message.text)


async def started(world: World, host: Member, lobby: Message) -> Thread:
    """``host`` starts the relaxed game of ``lobby``: the thread made from the lobby message,
    where the game is played (a relaxed game always moves to its own thread)."""
    before = len(world.guild.threads)
    result = await host.click(lobby, "Start")
    assert result.message is not None
    assert len(world.guild.threads) == before + 1, "the game moved to a thread"
    thread = world.guild.threads[-1]
    assert isinstance(thread, Thread) and thread.id == lobby.id, "made from the lobby"
    assert f"<#{thread.id}>" in result.message.text, "the lobby links to it"
    return thread


def turn_mentions(channel: TextChannel) -> list[Message]:
    return [m for m in channel.messages if (m.content or "").startswith("🔔")]


async def test_the_pace_options_and_the_servers_default(world: World) -> None:
    ana, table = world.ana, world.table
    refused = text_of(await ana.slash(table, "lama start", pace="live", turn_hours=5))
    assert "only for relaxed games" in refused
    refused = text_of(await ana.slash(table, "lama start", pace="relaxed", turn_timeout=60))
    assert "in hours, not seconds" in refused
    assert world.bot.sessions.get(table.id) is None, "a refusal opens nothing"
    text = text_of(await ana.slash(table, "lama config pace", pace="relaxed"))
    assert "Manage Server" in text, "only a server manager sets the default"
    owner = world.guild.add_member("owner", permissions=MANAGE_GUILD)
    text = text_of(await owner.slash(table, "lama config pace", pace="relaxed", hours=48))
    assert "New games are relaxed: 48 hours per turn." in text
    assert "48 hours" in text_of(await ana.slash(table, "lama config pace"))
    lobby = await answered(await ana.slash(table, "lama start"))  # the server's default
    assert lobby is not None and "relaxed pace: 48 hours per turn" in lobby.text
    session = world.bot.sessions.require(table.id)
    assert session.pace.value == "relaxed" and session.timers.turn_timeout == 48 * 3600
    await ana.slash(table, "lama stop")
    lobby = await answered(await ana.slash(table, "lama start", pace="live"))
    assert lobby is not None and "relaxed" not in lobby.text
    assert world.bot.sessions.require(table.id).timers.turn_timeout == 120


async def test_a_relaxed_game_is_stored_with_its_pace(world: World) -> None:
    ana, ben, table = world.ana, world.ben, world.table
    lobby = await answered(await ana.slash(table, "lama start", pace="relaxed", turn_hours=6))
    assert lobby is not None
    await ben.click(lobby, "Join")
    thread = await started(world, ana, lobby)
    turn = await world.fake.notifier.wait_for(
        lambda: t if (t := current(thread)) is not None and t.table is not None else None,
        WAIT, "the table")
    assert turn.table is not None and current(table) is None, "played in its thread"
    assert "relaxed pace: 6 hours per turn" in (card(turn.table).footer or "")
    await world.bot.sessions.outbox.deliver(thread.id)
    mentions = turn_mentions(thread)
    assert len(mentions) == 1 and mentions[0].pinged == [turn.user_id]
    assert turn_mentions(table) == [], "the mention is in the thread"
    assert world.bot.sessions.get(table.id) is None, "the channel is free for a lobby"
    await ana.slash(thread, "lama stop")
    with sqlite3.connect(world.bot.settings.lama_db) as conn:
        assert conn.execute("SELECT pace FROM games").fetchall() == [("relaxed",)]


async def test_notify_is_a_members_choice_that_forget_me_deletes(world: World) -> None:
    ana, table = world.ana, world.table
    assert "Direct messages are off." in text_of(await ana.slash(table, "lama notify"))
    assert "Direct messages on" in text_of(await ana.slash(table, "lama notify", dm="on"))
    assert "Direct messages are on" in text_of(await ana.slash(table, "lama notify"))
    assert "/lama notify" in text_of(await ana.slash(table, "lama privacy"))
    db = world.bot.settings.lama_db
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT user_id, dm FROM user_prefs").fetchall() == [(ana.id, "on")]
    assert "keeps nothing" in text_of(await ana.slash(table, "lama notify", dm="off"))
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM user_prefs").fetchone() == (0,)
    await ana.slash(table, "lama notify", dm="on")
    asked = await ana.slash(table, "lama forget-me")
    assert asked.message is not None
    await ana.click(asked.message, "Yes, forget me")
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM user_prefs").fetchone() == (0,)
    assert "Direct messages are off." in text_of(await ana.slash(table, "lama notify"))


async def test_my_games_lists_the_callers_games_with_links_and_deadlines(world: World) -> None:
    ana, ben, cleo, table = world.ana, world.ben, world.cleo, world.table
    assert "no running game" in text_of(await ana.slash(table, "lama games"))
    other = world.guild.add_text_channel("lama-2")
    lobby = await answered(await ana.slash(table, "lama start", pace="relaxed"))
    assert lobby is not None
    await ben.click(lobby, "Join")
    thread = await started(world, ana, lobby)
    lobby = await answered(await ana.slash(other, "lama start"))
    assert lobby is not None
    await ben.click(lobby, "Join")
    await ana.click(lobby, "Start")
    assert len(world.guild.threads) == 1, "a live game stays in its channel"
    answer = await ana.slash(table, "lama games")
    listed = text_of(answer)
    assert answer.message is not None and answer.message.v2, "a card, as the bot's others"
    assert card(answer.message).title == "Your running games" and not answer.message.pinged
    for channel in (thread, other):
        assert f"https://discord.com/channels/{world.guild.id}/{channel.id}" in listed
        assert f"<#{channel.id}>" in listed
    assert f"<#{table.id}>" not in listed, "the relaxed game is in its thread"
    assert listed.count("<t:") == 2, "each game's deadline as a Discord timestamp"
    assert "aucune partie" in text_of(await cleo.slash(table, "lama games")), "hers only"
    notes = [m for m in other.messages if (m.content or "").startswith("🔔")]
    assert notes == [], "a live game keeps the live ping policy"


async def test_no_dm_to_a_player_who_already_acted(world: World) -> None:
    """The turn's DM waits in the channel's queue (its messages held, as by a rate limit);
    the player sees their turn in their open hand and plays: the DM is never sent."""
    ana, ben, table = world.ana, world.ben, world.table
    await ben.slash(table, "lama notify", dm="on")
    lobby = await answered(await ana.slash(table, "lama start", pace="relaxed"))
    assert lobby is not None
    await ben.click(lobby, "Join")
    thread = await started(world, ana, lobby)
    turn = await world.fake.notifier.wait_for(
        lambda: t if (t := current(thread)) is not None and t.user_id == ana.id else None,
        WAIT, "ana's turn")
    assert turn.table is not None
    ben_hand = (await ben.click(turn.table, "My hand")).message  # open: it follows the game
    ana_hand = (await ana.click(turn.table, "My hand")).message
    assert ben_hand is not None and ana_hand is not None
    outbox = world.bot.sessions.outbox
    await outbox.deliver(thread.id)
    held = Held(outbox.pacer)
    outbox.pacer = held
    try:
        custom_id, value = first_button(ana, ana_hand)
        await settled(await (ana.click(ana_hand, custom_id) if value is None
                             else ana.select(ana_hand, value, custom_id=custom_id)))
        await world.fake.notifier.wait_for(offers(ben_hand), WAIT, "ben's hand offers moves")
        custom_id, value = first_button(ben, ben_hand)
        await settled(await (ben.click(ben_hand, custom_id) if value is None
                             else ben.select(ben_hand, value, custom_id=custom_id)))
    finally:
        outbox.pacer = held.inner
        held.open.set()
    await outbox.deliver(thread.id)
    mentions = [m for m in thread.messages if f"🔔 <@{ben.id}>" in (m.content or "")]
    assert mentions, "ben's turn was mentioned (it was posted once the channel was free)"
    assert world.fake.dms.to(ben) == [], "he had played: no DM"


async def test_without_thread_permissions_a_relaxed_game_plays_in_its_channel(
    world: World,
) -> None:
    """As for a live game in a server that chose threads: the lobby says why once, and the
    game is played (and its turns mentioned) in the channel, one game at a time."""
    ana, ben, table = world.ana, world.ben, world.table
    await table.set_permissions(world.guild.me, deny=CREATE_PUBLIC_THREADS)
    lobby = await answered(await ana.slash(table, "lama start", pace="relaxed"))
    assert lobby is not None
    await ben.click(lobby, "Join")
    result = await ana.click(lobby, "Start")
    assert result.message is not None and not world.guild.threads
    assert "may not make threads here" in (card(await lobby_closed(world.fake, lobby)).footer
                                           or "")
    turn = await world.fake.notifier.wait_for(
        lambda: t if (t := current(table)) is not None and t.table is not None else None,
        WAIT, "the table in the channel")
    await world.bot.sessions.outbox.deliver(table.id)
    mentions = turn_mentions(table)
    assert len(mentions) == 1 and mentions[0].pinged == [turn.user_id]
    refused = await answered(await ben.slash(table, "lama start"))
    assert "already running" in refused.text
