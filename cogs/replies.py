"""The one place where a refusal becomes a short ephemeral answer."""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from bot.sessions.errors import BotError, NotAMove
from bot.words.i18n import COMMAND_NAME, LANGUAGE_SETTING, Translator, pick, translator
from cogs.timely import THINKING
from game import GameOver, IllegalAction, MalformedRecord, NotYourTurn

log = logging.getLogger(__name__)


def user_tr(interaction: discord.Interaction) -> Translator:
    """The server's language setting if set, else the user's Discord locale, else English."""
    sessions = getattr(interaction.client, "sessions", None)
    server = (sessions.guild_settings.get(interaction.guild_id, LANGUAGE_SETTING)
              if sessions is not None else None)
    return translator(pick(server, interaction.locale.value if interaction.locale else None))


def refusal_text(tr: Translator, error: BaseException) -> str | None:
    """What to tell the user, or ``None`` for an unexpected error."""
    if isinstance(error, BotError):
        params = dict(error.params)
        if isinstance(params.get("option"), str):  # a slash option, as this language names it
            params["option"] = tr.context(COMMAND_NAME, params["option"]) or params["option"]
        return tr(error.message, **params)
    if isinstance(error, NotYourTurn):
        return tr("It is not your turn.")
    if isinstance(error, GameOver):
        return tr("This game is over.")
    if isinstance(error, IllegalAction):  # only an action the engine refused is a move
        return tr("That move is not allowed now.")
    if isinstance(error, MalformedRecord):  # text that names no move (a forged component)
        return tr(NotAMove.message)
    return None


async def send_ephemeral(interaction: discord.Interaction, text: str) -> None:
    """``text`` for the user alone. After a public deferral ("thinking…") the first followup
    would fill that public placeholder whatever its flags, so the placeholder goes first; if
    it cannot be deleted, the refusal is not sent (it is never shown publicly)."""
    if not interaction.response.is_done():
        await interaction.response.send_message(text, ephemeral=True)
        return
    if interaction.extras.pop(THINKING, False):
        try:
            await interaction.delete_original_response()
        except discord.NotFound:
            pass  # gone already: the followup is a message of its own
        except discord.HTTPException:
            log.warning("could not withdraw the public placeholder of interaction %s; "
                        "its refusal is not sent", interaction.id, exc_info=True)
            return
    await interaction.followup.send(text, ephemeral=True)


async def refuse(interaction: discord.Interaction, error: BaseException) -> None:
    """Answer ``error`` ephemerally; log anything that is not a domain refusal."""
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    tr = user_tr(interaction)
    text = refusal_text(tr, error)
    if text is None:
        if isinstance(error, app_commands.AppCommandError):
            text = tr("That command cannot be used here.")
            log.info("command refused: %r", error)
        else:
            log.error("unexpected error", exc_info=error)
            text = tr("Something went wrong; nothing was changed.")
    try:
        await send_ephemeral(interaction, text)
    except discord.HTTPException:
        log.exception("could not send a refusal")
