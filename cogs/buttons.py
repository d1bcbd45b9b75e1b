"""Persistent components: ``discord.ui.DynamicItem`` with versioned custom_ids.

``lama:v1:<kind>:<channel_id>:...``: the channel finds the session, the
game version (where present) detects a click on a button drawn for an
older state. Every callback goes to a cog method through :func:`route`,
which turns refusals into an ephemeral answer in one place.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from cogs.replies import refuse

PREFIX = "lama:v1"
LOBBY_OPS = ("join", "leave", "easyai", "ai", "hardai", "start", "cancel")


async def route(interaction: discord.Interaction, cog: str, method: str, *args: Any) -> None:
    """Call ``cog.method(interaction, *args)``; refusals become an ephemeral answer."""
    handler = interaction.client.get_cog(cog)  # type: ignore[attr-defined]
    try:
        if handler is None:
            raise RuntimeError(f"cog {cog} is not loaded")
        await getattr(handler, method)(interaction, *args)
    except Exception as error:  # refuse() logs what is not a refusal
        await refuse(interaction, error)


class LobbyButton(
    discord.ui.DynamicItem[discord.ui.Button],
    template=rf"{PREFIX}:lobby:(?P<channel>\d+):(?P<op>{'|'.join(LOBBY_OPS)})",
):
    def __init__(self, channel_id: int, op: str, label: str = "", style: Any = None) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or op,
                style=style or discord.ButtonStyle.secondary,
                custom_id=f"{PREFIX}:lobby:{channel_id}:{op}",
            )
        )
        self.channel_id = channel_id
        self.op = op

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]
    ) -> LobbyButton:
        return cls(int(match["channel"]), match["op"], item.label or "", item.style)

    async def callback(self, interaction: discord.Interaction) -> None:
        await route(interaction, "Lobby", "on_lobby_button", self.channel_id, self.op)


class RematchButton(
    discord.ui.DynamicItem[discord.ui.Button],
    template=rf"{PREFIX}:rematch:(?P<channel>\d+):(?P<game>[0-9a-f]+)",
):
    def __init__(self, channel_id: int, game_id: str, label: str = "Rematch") -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.primary,
                custom_id=f"{PREFIX}:rematch:{channel_id}:{game_id}",
            )
        )
        self.channel_id = channel_id
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]
    ) -> RematchButton:
        return cls(int(match["channel"]), match["game"], item.label or "")

    async def callback(self, interaction: discord.Interaction) -> None:
        await route(interaction, "Lobby", "on_rematch", self.channel_id, self.game_id)


class HandButton(
    discord.ui.DynamicItem[discord.ui.Button], template=rf"{PREFIX}:hand:(?P<channel>\d+)"
):
    def __init__(self, channel_id: int, label: str = "My hand") -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.primary,
                emoji="🃏",
                custom_id=f"{PREFIX}:hand:{channel_id}",
            )
        )
        self.channel_id = channel_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]
    ) -> HandButton:
        return cls(int(match["channel"]), item.label or "")

    async def callback(self, interaction: discord.Interaction) -> None:
        await route(interaction, "Table", "on_hand_button", self.channel_id)


def act_custom_id(channel_id: int, version: int, action: str) -> str:
    return f"{PREFIX}:act:{channel_id}:{version}:{action}"


class ActButton(
    discord.ui.DynamicItem[discord.ui.Button],
    template=rf"{PREFIX}:act:(?P<channel>\d+):(?P<version>\d+):(?P<action>[^:]+)",
):
    def __init__(
        self, channel_id: int, version: int, action: str, label: str = "", style: Any = None
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or action,
                style=style or discord.ButtonStyle.secondary,
                custom_id=act_custom_id(channel_id, version, action),
            )
        )
        self.channel_id = channel_id
        self.version = version
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Button, match: re.Match[str]
    ) -> ActButton:
        return cls(
            int(match["channel"]), int(match["version"]), match["action"], item.label or "",
            item.style,
        )

    async def callback(self, interaction: discord.Interaction) -> None:
        await route(interaction, "Table", "on_action", self.channel_id, self.version, self.action)


class ActSelect(
    discord.ui.DynamicItem[discord.ui.Select],
    template=rf"{PREFIX}:pick:(?P<channel>\d+):(?P<version>\d+):(?P<slot>[a-z]+)",
):
    """A choice among actions (a Kadabra 1's recipient, a dice discard); values are actions."""

    def __init__(
        self,
        channel_id: int,
        version: int,
        slot: str,
        options: list[discord.SelectOption] | None = None,
        placeholder: str | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=f"{PREFIX}:pick:{channel_id}:{version}:{slot}",
                options=options or [],
                placeholder=placeholder,
            )
        )
        self.channel_id = channel_id
        self.version = version

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Select, match: re.Match[str]
    ) -> ActSelect:
        return cls(
            int(match["channel"]), int(match["version"]), match["slot"], item.options,
            item.placeholder,
        )

    async def callback(self, interaction: discord.Interaction) -> None:
        values = self.item.values or (interaction.data or {}).get("values", [])  # type: ignore[union-attr]
        action = values[0] if values else ""
        await route(interaction, "Table", "on_action", self.channel_id, self.version, action)


DYNAMIC_ITEMS = (LobbyButton, RematchButton, HandButton, ActButton, ActSelect)
