"""Forged payloads, as a modified client could send them (defence-in-depth tests).

``forged_buttons`` puts components with any custom_id on a message in any channel (the
bot's dynamic items only answer components present on the clicked message);
``forged_slash`` sends a slash command whose options skip Discord's schema checks.
"""

from __future__ import annotations

from typing import Any

from fakediscord import FakeDiscord, InteractionResult, Member, Message, TextChannel
from fakediscord.interactions import APPLICATION_COMMAND


def forged_buttons(fake: FakeDiscord, channel: TextChannel, custom_ids: list[str]) -> Message:
    """A message in ``channel``, as if the bot had posted it, with one button per id."""
    row = [{"type": 2, "style": 1, "label": cid[-80:], "custom_id": cid} for cid in custom_ids]
    body = {"content": "forged", "components": [{"type": 1, "components": row}]}
    message = fake.new_message(channel, body, author=channel.guild.me.user)
    fake.publish_create(message)
    return message


async def forged_slash(
    fake: FakeDiscord, member: Member, channel: TextChannel, path: str, **options: Any
) -> InteractionResult:
    """``/lama <path>`` with ``options`` sent as given (any value, any type)."""
    command = next(c for c in fake.global_commands if c["name"] == "lama")
    node: dict[str, Any] = {"id": command["id"], "name": "lama", "type": 1, "options": []}
    top = node
    for name in path.split():
        child: dict[str, Any] = {"type": 1, "name": name, "options": []}
        node["options"].append(child)
        node = child
    option_type = {bool: 5, int: 4, float: 10, str: 3}
    node["options"] = [{"type": option_type.get(type(v), 3), "name": k, "value": v}
                       for k, v in options.items()]
    if path.startswith("config"):
        top["options"][0]["type"] = 2  # a subcommand group
    action = {"slash": f"lama {path}", "forged": {k: repr(v) for k, v in options.items()}}
    return await fake.driver._interact(member, channel, APPLICATION_COMMAND, top, None, action)
