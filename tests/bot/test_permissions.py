"""A channel where the bot cannot post: a clear answer, and no game is opened."""

from __future__ import annotations

import pytest

from fakediscord import EMBED_LINKS, SEND_MESSAGES
from tests.bot.conftest import World
from tests.bot.helpers import WAIT, answered, current


@pytest.mark.parametrize("denied", [SEND_MESSAGES])
async def test_start_where_the_bot_cannot_post_is_refused_clearly(
    world: World, denied: int
) -> None:
    await world.table.set_permissions(world.guild.me, deny=denied)
    reply = await answered(await world.ana.slash(world.table, "lama start"))
    assert reply.ephemeral
    assert "View Channel and Send Messages permissions" in reply.text
    assert await world.bot.store.sessions(world.guild.id) == []
    assert world.bot.sessions.get(world.table.id) is None


async def test_start_works_again_once_the_permission_is_back(world: World) -> None:
    await world.table.set_permissions(world.guild.me, deny=SEND_MESSAGES)
    refused = await answered(await world.ana.slash(world.table, "lama start"))
    assert refused.ephemeral
    await world.table.set_permissions(world.guild.me)
    lobby = await answered(await world.ana.slash(world.table, "lama start"))
    assert not lobby.ephemeral
    assert any(b.label == "Join" for b in lobby.buttons)


async def test_without_embed_links_the_game_is_played_in_v2_text(world: World) -> None:
    """Components V2 text needs no Embed Links (assumed: fakediscord/README.md): the lobby
    and the table read in full without it."""
    await world.table.set_permissions(world.guild.me, deny=EMBED_LINKS)
    lobby = await answered(await world.ana.slash(world.table, "lama start"))
    assert lobby is not None and lobby.v2 and not lobby.ephemeral
    assert "new game" in lobby.text and "ana" in lobby.text
    await world.ben.click(lobby, "Join")
    await world.ana.click(lobby, "Start")
    turn = await world.fake.notifier.wait_for(
        lambda: t if (t := current(world.table)) and t.user_id else None, WAIT, "a turn")
    assert turn.table is not None and turn.table.v2 and ": round 1" in turn.table.text
