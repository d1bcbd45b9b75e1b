"""After a restart: show each restored lobby and table again (edit it, or post it anew)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord

from bot.restore import remember_messages
from bot.sessions import Session, Status
from cogs.common import public_tr
from cogs.lobby import lobby_payload

if TYPE_CHECKING:
    from bot.client import LamaBot

log = logging.getLogger(__name__)


async def refresh(bot: LamaBot, session: Session) -> None:
    """Bring the session's message up to date; remember a newly posted one."""
    if session.status is Status.LOBBY:
        before = session.lobby_message_id
        await _refresh_lobby(bot, session)
        if session.lobby_message_id != before:
            await remember_messages(session)
    elif session.status is Status.PLAYING:
        table = bot.get_cog("Table")
        if table is None:
            raise RuntimeError("the Table cog is not loaded")
        await table.refresh(session)  # type: ignore[attr-defined]  # remembers a new table


async def _refresh_lobby(bot: LamaBot, session: Session) -> None:
    payload = lobby_payload(public_tr(session), session)
    channel = bot.get_partial_messageable(session.channel_id, guild_id=session.guild_id)
    if session.lobby_message_id is not None:
        try:
            await channel.get_partial_message(session.lobby_message_id).edit(**payload.kwargs())
            return
        except discord.NotFound:
            log.info("the lobby of channel %s is gone; posting it again", session.channel_id)
    message = await channel.send(**payload.kwargs())
    session.lobby_message_id = message.id
