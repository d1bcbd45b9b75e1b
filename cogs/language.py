"""``/lama config language``: the server's language for every message of the bot.

``auto`` (the default) lets each player read the bot in their Discord language
and public messages in the host's; a language set here wins over both. It is
the only way to Persian, which Discord clients do not offer as a locale.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.sessions.errors import BotError, NotAllowed
from bot.words.i18n import AUTO, LANGUAGE_SETTING, LANGUAGES, N_, pick, translator
from bot.words.markdown import escape
from cogs.common import lama_bot, place
from cogs.replies import user_tr

LANGUAGE_NAMES = {
    "en": "English",
    "fr": "Français",
    "es": "Español",
    "de": "Deutsch",
    "fa": "فارسی",
}
"""Each language in its own words (shown untranslated, as language menus do)."""

CHOICES = [
    *(app_commands.Choice(name=LANGUAGE_NAMES[code], value=code) for code in LANGUAGES),
    app_commands.Choice(name="Automatic (each player's Discord language)", value=AUTO),
]


def require_server_manager(interaction: discord.Interaction) -> None:
    """Server settings are for members with Manage Server (as ``/lama config`` says)."""
    if not interaction.permissions.manage_guild:
        raise NotAllowed(N_("Only members with the Manage Server permission can change this."))


@app_commands.describe(language="The language, or Automatic; leave out to see the current one")
@app_commands.choices(language=CHOICES)
async def config_language(interaction: discord.Interaction, language: str | None = None) -> None:
    guild_id, _ = place(interaction)
    settings = lama_bot(interaction).sessions.guild_settings
    if language is None:
        current = settings.get(guild_id, LANGUAGE_SETTING)
        tr = user_tr(interaction)
        text = (tr("The bot's language on this server: {language}.",
                   language=LANGUAGE_NAMES[current])
                if current in LANGUAGE_NAMES
                else tr("No server language is set: the bot answers each player in their "
                        "Discord language, and public messages follow the game's host."))
        await interaction.response.send_message(text, ephemeral=True)
        return
    if language not in LANGUAGE_NAMES and language != AUTO:  # a forged option
        raise BotError(N_("There is no language {name} here. Choose one of: {names}."),
                       name=escape(str(language)[:40]), names=", ".join([*LANGUAGES, AUTO]))
    require_server_manager(interaction)
    await settings.set(guild_id, LANGUAGE_SETTING, language)
    locale = interaction.locale.value if interaction.locale else None
    tr = translator(pick(language, locale))
    text = (tr("From now on, the bot's language on this server: {language}.",
               language=LANGUAGE_NAMES[language])
            if language in LANGUAGE_NAMES
            else tr("From now on, the bot answers each player in their Discord language."))
    await interaction.response.send_message(text, ephemeral=True)


def language_command() -> app_commands.Command[Any, ..., Any]:
    """The ``language`` subcommand of ``/lama config``."""
    return app_commands.Command(
        name="language", description="The language of the bot on this server (Manage Server)",
        callback=config_language,
    )
