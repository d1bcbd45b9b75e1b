"""Typed slash commands read against the definitions the bot synced (no process needed)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.sandbox.slash import parse
from bot.sandbox.world import SandboxError
from bot.words.i18n import translator
from fakediscord import FakeDiscord

VARIANTS = [{"name": n.title(), "value": n} for n in ("classic", "kadabra", "dice")]
COMMANDS: list[dict[str, Any]] = [{
    "name": "lama", "type": 1, "description": "L.A.M.A.", "options": [
        {"type": 1, "name": "start", "description": "Open a game", "options": [
            {"type": 3, "name": "variant", "description": "Rule set", "choices": VARIANTS},
            {"type": 4, "name": "target", "description": "Points", "min_value": 1,
             "max_value": 500},
        ]},
        {"type": 1, "name": "stats", "description": "Stats", "options": [
            {"type": 6, "name": "user", "description": "Whose", "required": True},
        ]},
        {"type": 2, "name": "config", "description": "Settings", "options": [
            {"type": 1, "name": "language", "description": "Language", "options": [
                {"type": 3, "name": "language", "description": "Which",
                 "choices": [{"name": "Français", "value": "fr"}]},
            ]},
        ]},
    ],
}]


async def test_commands_options_and_members_are_read_as_discord_would() -> None:
    async with FakeDiscord() as fake:
        guild = fake.add_guild("g")
        ben = guild.add_member("ben")
        assert parse("/lama start", COMMANDS, [ben]) == ("lama start", {})
        assert parse("/lama start variant:Kadabra target: 12 ", COMMANDS, [ben]) == (
            "lama start", {"variant": "kadabra", "target": 12})
        assert parse("/lama config language language:Français", COMMANDS, []) == (
            "lama config language", {"language": "fr"})
        assert parse("/lama stats user:@ben", COMMANDS, [ben]) == ("lama stats", {"user": ben})


@pytest.mark.parametrize(("text", "says"), [
    ("", "Type a command"),
    ("/chess", "Unknown command /chess"),
    ("/lama", "Choose one of: /lama start, /lama stats, /lama config"),
    ("/lama start variant:chess", "variant: choose one of classic, kadabra, dice"),
    ("/lama start target:ten", "target: needs a number"),
    ("/lama start target:0", "target: between 1 and 500"),
    ("/lama start colour:red", "/lama start has no option colour (options: variant, target)"),
    ("/lama start kadabra", "Give options as name:value after /lama start"),
    ("/lama stats", "/lama stats needs the option user"),
    ("/lama stats user:zoe", "user: no member called zoe"),
])
def test_a_mistyped_command_is_refused_with_what_to_type(text: str, says: str) -> None:
    with pytest.raises(SandboxError) as refused:
        parse(text, COMMANDS, [])
    assert says in refused.value.text(translator("en"))
    assert refused.value.text(translator("fr")) != refused.value.text(translator("en"))
