"""Slash command names, options and descriptions in the users' languages.

discord.py asks :class:`CommandTranslator` for every string of the command tree
when it syncs; the answers come from the same gettext catalogs as the messages,
under their own msgctxt (names, descriptions, choices), so translators see
them apart. ``python -m bot.catalog`` finds the strings by walking the loaded
command tree (:func:`command_strings`), so no command needs marking by hand.
Discord has no Persian client locale: Persian servers see the commands in each
user's client language.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from bot.words.i18n import (
    COMMAND_CHOICE,
    COMMAND_DESCRIPTION,
    COMMAND_NAME,
    DISCORD_LOCALES,
    translator,
)

log = logging.getLogger(__name__)

NAME_RULE = re.compile(r"^[-_\w]{1,32}$")
"""Discord's rule for command and option names (``^[-_\\p{L}\\p{N}]{1,32}$``, lowercase)."""
NO_DESCRIPTION = "…"  # discord.py's stand-in for a missing description

CONTEXTS = {
    Where.command_name: COMMAND_NAME,
    Where.group_name: COMMAND_NAME,
    Where.parameter_name: COMMAND_NAME,
    Where.command_description: COMMAND_DESCRIPTION,
    Where.group_description: COMMAND_DESCRIPTION,
    Where.parameter_description: COMMAND_DESCRIPTION,
    Where.choice_name: COMMAND_CHOICE,
}
LANGUAGE_OF_LOCALE = {
    locale: language for language, locales in DISCORD_LOCALES.items() for locale in locales
}


def valid_name(name: str) -> bool:
    """Whether Discord accepts ``name`` as a command or option name."""
    return bool(NAME_RULE.match(name)) and name == name.lower() and "\u200b" not in name


class CommandTranslator(app_commands.Translator):
    """The catalogs' translations of the command tree, for Discord's client locales."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        language = LANGUAGE_OF_LOCALE.get(locale.value)
        msgctxt = CONTEXTS.get(context.location)
        if language is None or msgctxt is None or string.message == NO_DESCRIPTION:
            return None
        text = translator(language).context(msgctxt, string.message)
        if text is None:
            return None
        if msgctxt == COMMAND_NAME and not valid_name(text):
            log.warning("%s name %r for %r breaks Discord's rules; not used", language, text,
                        string.message)
            return None
        return text


def _message(text: str | app_commands.locale_str) -> str:
    return text.message if isinstance(text, app_commands.locale_str) else str(text)


def _walk(
    commands: Iterable[app_commands.Command[Any, ..., Any] | app_commands.Group],
) -> Iterator[app_commands.Command[Any, ..., Any] | app_commands.Group]:
    for command in commands:
        yield command
        if isinstance(command, app_commands.Group):
            yield from _walk(command.commands)


def make_translatable(
    commands: Iterable[app_commands.Command[Any, ..., Any] | app_commands.Group],
) -> None:
    """Wrap option names, descriptions and choice names in ``locale_str``.

    discord.py translates a command's own name and description always, but an
    option's only when given as ``locale_str``; this spares every cog the wrapping.
    """
    for command in _walk(commands):
        if isinstance(command, app_commands.Group):
            continue
        for parameter in command._params.values():
            if isinstance(parameter.description, str) and parameter.description != NO_DESCRIPTION:
                parameter.description = app_commands.locale_str(parameter.description)
            if parameter._rename is discord.utils.MISSING:
                parameter._rename = app_commands.locale_str(parameter.name)
            elif isinstance(parameter._rename, str):
                parameter._rename = app_commands.locale_str(parameter._rename)
            for choice in parameter.choices or ():
                if choice._locale_name is None:
                    choice._locale_name = app_commands.locale_str(choice.name)


async def install(tree: app_commands.CommandTree[Any]) -> None:
    """Make every loaded command translatable and translate it from the catalogs."""
    make_translatable(tree.get_commands())
    await tree.set_translator(CommandTranslator())


def command_strings(
    commands: Iterable[app_commands.Command[Any, ..., Any] | app_commands.Group],
) -> Iterator[tuple[str, str, str]]:
    """``(msgctxt, msgid, where)`` for every translatable string of ``commands``."""
    for command in _walk(commands):
        where = f"/{command.qualified_name}"
        yield COMMAND_NAME, command.name, where
        if command.description != NO_DESCRIPTION:
            yield COMMAND_DESCRIPTION, command.description, where
        if isinstance(command, app_commands.Group):
            continue
        for parameter in command._params.values():
            here = f"{where} {parameter.name}"
            yield COMMAND_NAME, _message(parameter._rename or parameter.name), here
            if _message(parameter.description) != NO_DESCRIPTION:
                yield COMMAND_DESCRIPTION, _message(parameter.description), here
            for choice in parameter.choices or ():
                yield COMMAND_CHOICE, choice.name, here


async def command_payloads(
    tree: app_commands.CommandTree[Any], guild: discord.abc.Snowflake | None
) -> list[dict[str, Any]]:
    """The command definitions as :meth:`CommandTree.sync` sends them, localizations included."""
    commands = tree.get_commands(guild=guild)
    translator_ = tree.translator
    if translator_ is None:
        return [c.to_dict(tree) for c in commands]
    return [await c.get_translated_payload(tree, translator_) for c in commands]
