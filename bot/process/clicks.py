"""Clicks on our components, through discord.py's public ``interaction`` event only.

discord.py dispatches ``on_interaction`` for every interaction. Our component items (the
layer above's ``discord.ui.DynamicItem`` classes, cogs/buttons.py) are never registered
with discord.py, so it does nothing else with a click on them: :class:`Clicks` matches the
custom_id against each item's ``pattern`` and calls its ``clicked(interaction, match)``,
straight from the custom_id (no View rebuilt from the clicked message per click: a tenth
of the bot's CPU per move under load went there).

A click is acted on only if its custom_id is a component of the clicked message, of the
clicked type (``interaction.message.components``). Discord itself refuses any other click
(400 50035 ``COMPONENT_VALIDATION_FAILED``); this is the defence in depth, should it ever let
one through: a modified client could otherwise put any custom_id on any message it sees
(a hand's Quit on the public table). Such a click gets a short private refusal.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Protocol

import discord

from bot.process.logs import about
from bot.sessions.errors import ForgedClick

log = logging.getLogger(__name__)


class Clickable(Protocol):
    """An item class that answers its clicks from the custom_id alone."""

    pattern: re.Pattern[str]

    @classmethod
    def clicked(cls, interaction: discord.Interaction, match: re.Match[str]
                ) -> Awaitable[None]: ...


Refuse = Callable[[discord.Interaction, BaseException], Awaitable[None]]


def drawn_on(message: discord.Message | None, custom_id: str, component_type: int) -> bool:
    """Whether ``message`` carries a component with this custom_id and type, at any depth
    (public API: ``Message.components``; the ``children`` of action rows, V2 containers and
    sections, and a section's ``accessory``)."""
    if message is None:
        return False
    return _carries(message.components, custom_id, component_type)


def _carries(components: Iterable[Any], custom_id: str, component_type: int) -> bool:
    """(Plain recursion, not nested generators: every click walks its message.)"""
    for component in components:
        if (getattr(component, "custom_id", None) == custom_id
                and component.type.value == component_type):
            return True
        children = getattr(component, "children", None)  # rows, containers, sections
        if children and _carries(children, custom_id, component_type):
            return True
        accessory = getattr(component, "accessory", None)  # a section's button
        if (accessory is not None and getattr(accessory, "custom_id", None) == custom_id
                and accessory.type.value == component_type):
            return True
    return False


class Clicks:
    """The ``on_interaction`` listener for our items (see the module docstring)."""

    def __init__(self, items: Sequence[type[Clickable]], refuse: Refuse | None,
                 answered: Callable[[discord.Interaction], None] | None = None) -> None:
        self.routes = tuple((item.pattern, item.clicked) for item in items)
        self.refuse = refuse
        self.answered = answered  # once a click is answered (bot/process/client.py's Wiring)
        self.running: set[asyncio.Task[Any]] = set()  # answers under way (shutdown waits)

    def route(self, custom_id: str) -> tuple[Callable[..., Awaitable[None]], re.Match[str]] | None:
        """The item answering ``custom_id``, and its match."""
        for pattern, clicked in self.routes:
            match = pattern.fullmatch(custom_id)
            if match is not None:
                return clicked, match
        return None

    async def answer(self, interaction: discord.Interaction) -> None:
        """The listener: a click on one of our items, checked, then answered."""
        if interaction.type is not discord.InteractionType.component:
            return
        data: Any = interaction.data or {}
        custom_id, component_type = data.get("custom_id"), data.get("component_type")
        if not isinstance(custom_id, str):
            return
        found = self.route(custom_id)
        if found is None:
            return  # not ours
        clicked, match = found
        # for the log lines (bot/process/logs.py)
        about(interaction.guild_id, interaction.channel_id)
        task = asyncio.current_task()
        if task is not None:
            self.running.add(task)
        try:
            if drawn_on(interaction.message, custom_id, component_type):
                await clicked(interaction, match)
            else:
                log.warning("refused a click on %s: not a component of the clicked message",
                            custom_id)
                if self.refuse is not None:
                    await self.refuse(interaction, ForgedClick())
        except Exception:
            log.exception("click on %s failed", custom_id)
        finally:
            if self.answered is not None:
                self.answered(interaction)
            if task is not None:
                self.running.discard(task)
