"""The bot's slash commands pass Discord's command rules, in each of its five languages."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from bot.words.i18n import COMMAND_CHOICE, COMMAND_DESCRIPTION, COMMAND_NAME, LANGUAGES, translator
from fakediscord.commands_check import check_commands
from tests.bot.conftest import World


def in_language(commands: list[dict[str, Any]], language: str) -> list[dict[str, Any]]:
    """The synced commands with every name, description and choice in ``language``."""
    tr = translator(language)

    def say(context: str, text: str) -> str:
        return tr.context(context, text) or text

    def walk(node: dict[str, Any]) -> None:
        node.pop("name_localizations", None)
        node.pop("description_localizations", None)
        node["name"] = say(COMMAND_NAME, node["name"])
        if node.get("description"):
            node["description"] = say(COMMAND_DESCRIPTION, node["description"])
        for choice in node.get("choices") or []:
            choice.pop("name_localizations", None)
            choice["name"] = say(COMMAND_CHOICE, choice["name"])
        for option in node.get("options") or []:
            walk(option)

    out = copy.deepcopy(commands)
    for command in out:
        for key in ("id", "application_id", "version", "guild_id"):
            command.pop(key, None)
        walk(command)
    return out


async def test_sync_was_accepted_without_lint(world: World) -> None:
    fake = world.fake
    assert fake.global_commands and not fake.refusals and not fake.lint
    localized: set[str] = set()

    def walk(node: dict[str, Any]) -> None:
        localized.update(node.get("description_localizations") or {})
        for option in node.get("options") or []:
            walk(option)

    for command in fake.global_commands:
        walk(command)
    assert {"fr", "es-ES", "es-419", "de"} <= localized


@pytest.mark.parametrize("language", LANGUAGES)
async def test_commands_pass_discords_rules(world: World, language: str) -> None:
    commands = in_language(world.fake.global_commands, language)
    if language != "en":
        assert commands != in_language(world.fake.global_commands, "en"), "translated"
    assert check_commands(commands) == [], "no field Discord would ignore"
