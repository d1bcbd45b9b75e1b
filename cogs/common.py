"""Small helpers shared by the cogs: where an interaction happens, who is asking, the language."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.sessions.errors import BotError, CannotPost
from bot.words.i18n import LANGUAGE_SETTING, N_, Translator, pick, translator
from bot.words.markdown import escape
from game import variant_names

if TYPE_CHECKING:
    from bot.process.client import LamaBot
    from bot.sessions.sessions import Session


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
    if not (allowed.view_channel and allowed.send_messages):  # (V2 text needs no Embed Links)
        raise CannotPost()


# ---- slash options: Discord's schema checks them, and so does the bot (forged payloads) ----
def require_variant(variant: object) -> str:
    """A known rule set's name, else a clear refusal."""
    names = variant_names()
    if not isinstance(variant, str) or variant not in names:
        raise BotError(N_("There is no rule set called {name}. Choose one of: {names}."),
                       name=escape(str(variant)[:40]), names=", ".join(names))
    return variant


def require_whole(option: str, value: object, low: int, high: int) -> int:
    """A whole number from ``low`` to ``high`` (the option ``option``), else a clear refusal."""
    if type(value) is not int or not low <= value <= high:
        raise BotError(N_("{option} must be a whole number from {low} to {high}."),
                       option=option, low=low, high=high)
    return value


def add_commands(bot: LamaBot, commands: list[app_commands.Command]) -> None:
    """A cog's ``/lama`` subcommands, added when it loads."""
    for command in commands:
        bot.lama.add_command(command)


def remove_commands(bot: LamaBot, commands: list[app_commands.Command]) -> None:
    """A cog's ``/lama`` subcommands, removed when it unloads (a reload adds them again)."""
    for command in commands:
        bot.lama.remove_command(command.name)
