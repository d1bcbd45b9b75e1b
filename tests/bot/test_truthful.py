"""A change and the message that shows it succeed together: a failed save is undone and
said so; a lobby whose first answer failed is posted in the channel instead."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from pathlib import Path
from typing import Any

from bot.sessions.outbox import Write
from fakediscord import FakeDiscord, FakeDiscordError
from tests.bot.conftest import World, make_settings
from tests.bot.helpers import KILLED_CLICK, WAIT, action_buttons, answered, card
from tests.bot.test_faults import db_of, start
from tests.bot.test_restart import Table, stored_actions


async def test_a_failed_save_undoes_the_move_and_says_so(world: World) -> None:
    table = await start(world)
    hand = (await world.ana.click(table, "My hand")).message
    assert hand is not None
    draw = next(c for c in action_buttons(hand) if c.endswith(":draw"))
    session = world.bot.sessions.require(world.table.id)
    assert session.game is not None
    history, version = list(session.game.history), session.version
    stored = stored_actions(db_of(world))
    write = world.bot.store.write

    async def locked(change: Write) -> None:
        raise sqlite3.OperationalError("database is locked")

    world.bot.store.write = locked  # type: ignore[method-assign]
    refused = await world.ana.click(hand, draw)
    world.bot.store.write = write  # type: ignore[method-assign]
    assert refused.message is not None and refused.message.ephemeral
    assert "could not save that, so nothing was changed" in refused.message.text
    assert session.game.history == history and session.version == version, "memory undone"
    assert stored_actions(db_of(world)) == stored
    again = await world.ana.click(hand, draw)  # the same button works: nothing moved
    assert again.type == 7 and "out of date" not in again.message.text  # type: ignore[union-attr]
    assert len(stored_actions(db_of(world))) == len(stored) + 1
    assert len(session.game.history) == len(history) + 1


async def test_a_failed_first_answer_posts_the_lobby_in_the_channel(tmp_path: Path) -> None:
    async with FakeDiscord(interaction_timeout=KILLED_CLICK) as fake:
        club = Table(fake, make_settings(tmp_path))
        async with fake.run(club.bot()):
            fault = fake.fail("POST", "/interactions/*/callback", status=404, times=1)
            started: asyncio.Task[Any] = asyncio.ensure_future(
                club.ana.slash(club.channel, "lama start"))
            lobby = await club.channel.wait_for_message(
                lambda m: "new game" in (card(m).title or ""), WAIT)
            assert fault.hits == 1 and not lobby.interaction_metadata, "posted, not an answer"
            await club.ben.click(lobby, "Join")
            assert "ben" in lobby.text, "the posted lobby works"
            lobbies = [m for m in club.channel.messages
                       if "new game" in (card(m).title or "")]
            assert lobbies == [lobby], "shown once"
            with contextlib.suppress(FakeDiscordError):
                await started  # Discord told ana "This interaction failed"
        assert [f.reason for f in fake.failures if "no answer" not in f.reason] == []


async def test_a_failed_save_of_a_new_lobby_leaves_the_channel_free(world: World) -> None:
    write = world.bot.store.write

    async def full(change: Write) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    world.bot.store.write = full  # type: ignore[method-assign]
    refused = await answered(await world.ana.slash(world.table, "lama start"))
    world.bot.store.write = write  # type: ignore[method-assign]
    assert refused.ephemeral
    assert "nothing was changed" in refused.text
    assert world.bot.sessions.get(world.table.id) is None, "no invisible lobby"
    lobby = await answered(await world.ana.slash(world.table, "lama start"))
    assert lobby is not None and "new game" in lobby.text
