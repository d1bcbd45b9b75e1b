"""A channel where the bot cannot post: a clear answer, and no game is opened."""

from __future__ import annotations

import pytest

from fakediscord import EMBED_LINKS, SEND_MESSAGES
from tests.bot.conftest import World


@pytest.mark.parametrize("denied", [SEND_MESSAGES])
async def test_start_where_the_bot_cannot_post_is_refused_clearly(
    world: World, denied: int
) -> None:
    await world.table.set_permissions(world.guild.me, deny=denied)
    reply = await world.ana.slash(world.table, "lama start")
    assert reply.ephemeral and reply.message is not None
    assert "View Channel and Send Messages permissions" in reply.message.text
    assert await world.bot.store.sessions(world.guild.id) == []
    assert world.bot.sessions.get(world.table.id) is None


async def test_start_works_again_once_the_permission_is_back(world: World) -> None:
    await world.table.set_permissions(world.guild.me, deny=SEND_MESSAGES)
    refused = await world.ana.slash(world.table, "lama start")
    assert refused.ephemeral
    await world.table.set_permissions(world.guild.me)
    reply = await world.ana.slash(world.table, "lama start")
    assert reply.message is not None and not reply.ephemeral
    assert any(b.label == "Join" for b in reply.message.buttons)
