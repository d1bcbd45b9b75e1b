"""Small helpers shared by the cogs: where an interaction happens, who is asking, the language."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord

from bot.errors import BotError, CannotPost
from bot.i18n import LANGUAGE_SETTING, N_, Translator, pick, translator

if TYPE_CHECKING:
    from bot.client import LamaBot
    from bot.sessions import Session


def place(interaction: discord.Interaction) -> tuple[int, int]:
    """``(guild_id, channel_id)``; games live in server text channels only."""
    if interaction.guild_id is None or interaction.channel_id is None:
        raise BotError(N_("L.A.M.A. games are played in server channels."))
    return interaction.guild_id, interaction.channel_id


def public_tr(session: Session) -> Translator:
    """Public messages speak the server's language setting, else the host's language."""
    server = session.sessions.guild_settings.get(session.guild_id, LANGUAGE_SETTING)
    return translator(pick(server, session.locale))


def user_locale(interaction: discord.Interaction) -> str | None:
    """The Discord client locale of the user behind ``interaction``."""
    return interaction.locale.value if interaction.locale else None


def lama_bot(interaction: discord.Interaction) -> LamaBot:
    return interaction.client  # type: ignore[return-value]


def is_moderator(interaction: discord.Interaction) -> bool:
    """Manage Messages in this channel (as Discord computed it for the interaction)."""
    return bool(interaction.permissions.manage_messages)


def require_bot_can_post(interaction: discord.Interaction) -> None:
    """Refuse to open a game where the table could not be posted (a clear answer, no game)."""
    allowed = interaction.app_permissions
    if not (allowed.view_channel and allowed.send_messages and allowed.embed_links):
        raise CannotPost()
