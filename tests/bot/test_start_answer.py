"""The Start click answers with the game's first table (a new public message, not a request
of the bot's global budget), and the lobby shows the start through /lama start's own token.
A refused answer falls back to the channel's post under its nonce; a click answered late
(deferred) or a game moved to its thread keep the channel's post (tests/bot/test_threads.py);
a process killed between the answer and its mark is tests/bot/test_outbox.py's."""

from __future__ import annotations

import asyncio
import contextlib
import re
from pathlib import Path
from typing import Any

from cogs.hands import TOKEN_TTL
from fakediscord import FakeDiscord, FakeDiscordError, Message, TextChannel
from tests.bot.conftest import World, make_settings
from tests.bot.helpers import KILLED_CLICK, WAIT, answered, first_table, is_table, lobby_closed
from tests.bot.test_faults import GatedSaves, deferring_at_once
from tests.bot.test_restart import Table, take_turn
from tests.bot.traffic import edits_of

CHANNEL_POST = re.compile(r"^/channels/\d+/messages$")
CHANNEL_EDIT = re.compile(r"^/channels/\d+/messages/\d+$")


def requests(fake: FakeDiscord, since: int, method: str, path: re.Pattern[str]) -> int:
    return sum(1 for e in fake.entries[since:] if e["kind"] == "rest"
               and e["method"] == method and path.match(e["path"]))


def tables(channel: TextChannel) -> list[Message]:
    return [m for m in channel.messages if is_table(m)]


async def test_the_start_click_answers_with_the_table(world: World) -> None:
    lobby = await answered(await world.ana.slash(world.table, "lama start", target=300))
    assert lobby is not None
    await world.ben.click(lobby, "Join")
    since = len(world.fake.entries)
    started = await world.ana.click(lobby, "Start")
    assert started.type == 4 and started.message is not None
    table = started.message
    assert is_table(table) and not table.ephemeral, "the answer is the public table"
    assert table.interaction_metadata, "made as the click's answer"
    await lobby_closed(world.fake, lobby)
    session = world.bot.sessions.require(world.table.id)
    await world.bot.sessions.outbox.delivered(world.table.id)
    assert session.table_message_id == table.id
    assert tables(world.table) == [table], "one table"
    assert requests(world.fake, since, "POST", CHANNEL_POST) == 0, "no channel post"
    assert requests(world.fake, since, "PATCH", CHANNEL_EDIT) == 0, (
        "the lobby edited through its own token")
    hand = await world.ana.click(table, "My hand")  # the answer is the table: it plays
    assert hand.message is not None and hand.message.ephemeral


async def test_the_table_answer_mentions_whom_the_channel_post_did(world: World) -> None:
    """A new message notifies: the answer carries the round's mentions (cogs/notified.py)."""
    lobby = await answered(await world.ana.slash(world.table, "lama start", target=300))
    assert lobby is not None
    await world.ben.click(lobby, "Join")
    table = (await world.ana.click(lobby, "Start")).message
    assert table is not None
    await lobby_closed(world.fake, lobby)  # (after the answer's marks)
    session = world.bot.sessions.require(world.table.id)
    notified = session.timers.notified
    assert notified is not None and notified["posted"], "the round's post is out"
    users = sorted(session.seats[s].user_id or 0 for s in notified["seats"])
    assert sorted(table.pinged) == users


async def test_a_refused_start_answer_posts_the_table_in_the_channel(tmp_path: Path) -> None:
    async with FakeDiscord(interaction_timeout=KILLED_CLICK) as fake:
        club = Table(fake, make_settings(tmp_path))
        bot = club.bot()
        async with fake.run(bot):
            lobby = await answered(await club.ana.slash(club.channel, "lama start", target=300))
            assert lobby is not None
            await club.ben.click(lobby, "Join")
            fault = fake.fail("POST", "/interactions/*/callback", status=404, times=1)
            click: asyncio.Task[Any] = asyncio.ensure_future(club.ana.click(lobby, "Start"))
            table = await club.channel.wait_for_message(is_table, WAIT)
            assert fault.hits == 1 and not table.interaction_metadata, "posted, not an answer"
            await lobby_closed(fake, lobby)
            with contextlib.suppress(FakeDiscordError):
                await click  # Discord told ana "This interaction failed"
            await bot.sessions.outbox.delivered(club.channel.id)
            assert tables(club.channel) == [table], "shown once"
            hand = await club.ana.click(table, "My hand")
            assert hand.message is not None and hand.message.ephemeral
        assert [f.reason for f in fake.failures if "no answer" not in f.reason] == []


async def test_round_one_edits_the_table_through_the_start_clicks_token(world: World) -> None:
    """The table the Start click answered with is edited through that click's token (not a
    request of the global budget) while it lives, then through the channel as before."""
    lobby = await answered(await world.ana.slash(world.table, "lama start", target=300,
                                                 turn_timeout=0))  # (no timers to advance)
    assert lobby is not None
    await world.ben.click(lobby, "Join")
    table = (await world.ana.click(lobby, "Start")).message
    assert table is not None
    await lobby_closed(world.fake, lobby)
    members = {m.id: m for m in (world.ana, world.ben)}
    since = len(world.fake.entries)
    assert await take_turn(world.fake, world.table, members) is not None
    await world.bot.sessions.outbox.delivered(world.table.id)
    assert edits_of(world.fake, table), "the table shows the move"
    assert requests(world.fake, since, "PATCH", CHANNEL_EDIT) == 0, "not a channel edit"
    session = world.bot.sessions.require(world.table.id)
    assert session.timers.table_answer is not None, "kept with the session (saved)"
    world.clock.advance(TOKEN_TTL)  # the click's token is spent (for the bot)
    since = len(world.fake.entries)
    assert await take_turn(world.fake, world.table, members) is not None
    await world.bot.sessions.outbox.delivered(world.table.id)
    assert requests(world.fake, since, "PATCH", CHANNEL_EDIT) >= 1, "then the channel's edit"
    assert session.timers.table_answer is None
    assert tables(world.table) == [table], "still the one table"


async def test_a_deferred_start_click_keeps_the_channel_post(world: World) -> None:
    """A Start click answered late (a slow save: deferred) cannot answer with the table: the
    channel posts it, and the deferred answer shows the lobby started, as before."""
    lobby = await answered(await world.ana.slash(world.table, "lama start", target=300))
    assert lobby is not None
    await world.ben.click(lobby, "Join")
    saves = GatedSaves(world)
    with deferring_at_once():
        reply = await world.ana.click(lobby, "Start")
    assert reply.type == 6, "deferred while the save is stuck"
    saves.gate.set()
    table = await first_table(world.fake, world.table)
    assert not table.interaction_metadata, "posted in the channel, not an answer"
    await lobby_closed(world.fake, lobby)
    await world.bot.sessions.outbox.delivered(world.table.id)
    assert tables(world.table) == [table], "one table"
    hand = await world.ana.click(table, "My hand")
    assert hand.message is not None and hand.message.ephemeral
