"""Forged payloads, as a modified client could send them (defence-in-depth tests).

``forged_click`` clicks any custom_id on any message the member sees (the real message, a
custom_id that is not on it). Discord refuses that click itself (400 50035
``COMPONENT_VALIDATION_FAILED``), as the fake does unless ``fake.check_components`` is off;
with it off the click reaches the bot, which acts on a click only if its custom_id is a
component of the clicked message (bot/process/clicks.py), and on a hand's buttons only from a hand.
``forged_buttons`` posts a message, as if the bot had posted it, with components of any
custom_id (buttons of an earlier game, of another channel, of the first format, garbled):
those are on their message, and what they name is checked by the cogs.
``forged_slash`` sends a slash command whose options skip Discord's schema checks.
"""

from __future__ import annotations

from typing import Any

from fakediscord import FakeDiscord, InteractionResult, Member, Message, TextChannel
from fakediscord.interactions import APPLICATION_COMMAND
from fakediscord.messages import EPHEMERAL


async def forged_click(fake: FakeDiscord, member: Member, message: Message, custom_id: str,
                       values: list[str] | None = None) -> InteractionResult:
    """``member`` clicks ``custom_id`` on ``message`` (a select's, with ``values``)."""
    kind = 2 if values is None else 3
    return await fake.driver.component(member, message, custom_id, kind, values)


def forged_buttons(fake: FakeDiscord, channel: TextChannel, custom_ids: list[str],
                   to: Member | None = None) -> Message:
    """A message in ``channel``, as if the bot had posted it (``to``: as an ephemeral
    answer to that member, like a hand), with one button per id."""
    row = [{"type": 2, "style": 1, "label": cid[-80:], "custom_id": cid} for cid in custom_ids]
    body = {"content": "forged", "components": [{"type": 1, "components": row}]}
    message = fake.new_message(channel, body, author=channel.guild.me.user, ephemeral_to=to,
                               flags=EPHEMERAL if to is not None else 0)
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
