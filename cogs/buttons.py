"""Persistent components: ``discord.ui.DynamicItem`` with versioned custom_ids.

``lama:v2:<kind>:<game>:...``: ``<game>`` is the short id of the lobby or game the
component was drawn for (:func:`bot.sessions.sessions.short_id`), the game version (where
present) detects a click on a button drawn for an older state. Channel and guild
are never read from the custom_id: they come from the interaction itself, so a
button copied (or forged) into another channel acts on nothing there, and a
button kept from an earlier game in the same channel is out of date.

Components of the first format (``lama:v1:…``, which carried the channel) may
still sit in channels after an upgrade: :class:`LegacyButton` answers them with
a clear "out of date". Every click goes to a cog method through
:func:`route`, which turns refusals into an ephemeral answer in one place.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable
from typing import Any

import discord

from bot.sessions.errors import LegacyButtonUsed
from cogs.replies import refuse

PREFIX = "lama:v2"
LEGACY_PREFIX = "lama:v1"
GAME = r"(?P<game>[0-9a-f]{1,32})"
LOBBY_OPS = ("join", "leave", "start", "cancel")
AI_OPS = ("easyai", "ai", "hardai", "noai")
"""The host's AI seat buttons (Add easy AI, Add AI, Add hard AI, Remove AI), on their own row."""
CUSTOM_ID_MAX = 100


def custom_id(*parts: object) -> str:
    """``lama:v2:part:part…``, checked against Discord's 100-character limit."""
    text = ":".join([PREFIX, *map(str, parts)])
    if len(text) > CUSTOM_ID_MAX:
        raise ValueError(f"custom_id over {CUSTOM_ID_MAX} characters: {text!r}")
    return text


async def route(interaction: discord.Interaction, cog: str, method: str, *args: Any) -> None:
    """Call ``cog.method(interaction, *args)``; refusals become an ephemeral answer."""
    handler = interaction.client.get_cog(cog)  # type: ignore[attr-defined]
    try:
        if handler is None:
            raise RuntimeError(f"cog {cog} is not loaded")
        await getattr(handler, method)(interaction, *args)
    except Exception as error:  # refuse() logs what is not a refusal
        await refuse(interaction, error)


class Routed:
    """An item drawn with ``discord.ui.DynamicItem`` (its template checks the custom_id it is
    built with) whose clicks are answered from the custom_id alone: :meth:`clicked`, called
    by the bot's click listener (bot/process/clicks.py) once it checked that the custom_id is on the
    clicked message. These classes are never given to discord.py (no ``add_dynamic_items``,
    and messages carry them as :class:`cogs.render.Components`, never as a live View), so
    discord.py never rebuilds the clicked message's View per click; with no
    ``from_custom_id``, its own dispatch could not act on one anyway."""

    pattern: re.Pattern[str]
    custom_id: str

    def __init_subclass__(cls, *, template: str | None = None, **kwargs: Any) -> None:
        if template is not None:
            cls.pattern = re.compile(template)
            super().__init_subclass__(template=template, **kwargs)  # type: ignore[call-arg]
        else:
            super().__init_subclass__(**kwargs)

    @classmethod
    def clicked(cls, interaction: discord.Interaction, match: re.Match[str]
                ) -> Awaitable[None]:
        raise NotImplementedError


class LobbyButton(
    Routed, discord.ui.DynamicItem[discord.ui.Button],
    template=rf"{PREFIX}:lobby:{GAME}:(?P<op>{'|'.join(LOBBY_OPS + AI_OPS)})",
):
    def __init__(self, game: str, op: str, label: str = "", style: Any = None) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or op,
                style=style or discord.ButtonStyle.secondary,
                custom_id=custom_id("lobby", game, op),
            )
        )
        self.game = game
        self.op = op

    @classmethod
    def clicked(cls, interaction: discord.Interaction, match: re.Match[str]
                ) -> Awaitable[None]:
        return route(interaction, "Lobby", "on_lobby_button", match["game"], match["op"])


class RematchButton(
    Routed, discord.ui.DynamicItem[discord.ui.Button], template=rf"{PREFIX}:rematch:{GAME}"
):
    """Carries the finished game's full id: the store finds its players and options."""

    def __init__(self, game_id: str, label: str = "Rematch") -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.primary,
                custom_id=custom_id("rematch", game_id),
            )
        )
        self.game_id = game_id

    @classmethod
    def clicked(cls, interaction: discord.Interaction, match: re.Match[str]
                ) -> Awaitable[None]:
        return route(interaction, "Lobby", "on_rematch", match["game"])


class HandButton(
    Routed, discord.ui.DynamicItem[discord.ui.Button], template=rf"{PREFIX}:hand:{GAME}"):
    def __init__(self, game: str, label: str = "My hand") -> None:
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.primary,
                emoji="🃏",
                custom_id=custom_id("hand", game),
            )
        )
        self.game = game

    @classmethod
    def clicked(cls, interaction: discord.Interaction, match: re.Match[str]
                ) -> Awaitable[None]:
        return route(interaction, "Table", "on_hand_button", match["game"])


def act_custom_id(game: str, version: int, action: str) -> str:
    return custom_id("act", game, version, action)


class ActButton(
    Routed, discord.ui.DynamicItem[discord.ui.Button],
    template=rf"{PREFIX}:act:{GAME}:(?P<version>\d+):(?P<action>[^:]+)",
):
    def __init__(
        self, game: str, version: int, action: str, label: str = "", style: Any = None
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or action,
                style=style or discord.ButtonStyle.secondary,
                custom_id=act_custom_id(game, version, action),
            )
        )
        self.game = game
        self.version = version
        self.action = action

    @classmethod
    def clicked(cls, interaction: discord.Interaction, match: re.Match[str]
                ) -> Awaitable[None]:
        return route(interaction, "Table", "on_action", match["game"], int(match["version"]),
                     match["action"])


class AskButton(
    Routed, discord.ui.DynamicItem[discord.ui.Button],
    template=rf"{PREFIX}:ask:{GAME}:(?P<version>\d+):(?P<op>quit|back)",
):
    """Quit asks first (``quit``: the hand turns into a confirmation; ``back``: the hand
    again), in the same ephemeral; only the confirmation's button acts."""

    def __init__(self, game: str, version: int, op: str, label: str = "", style: Any = None
                 ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or op,
                style=style or discord.ButtonStyle.secondary,
                custom_id=custom_id("ask", game, version, op),
            )
        )
        self.game = game
        self.version = version
        self.op = op

    @classmethod
    def clicked(cls, interaction: discord.Interaction, match: re.Match[str]
                ) -> Awaitable[None]:
        return route(interaction, "Table", "on_ask", match["game"], int(match["version"]),
                     match["op"])


class ActSelect(
    Routed, discord.ui.DynamicItem[discord.ui.Select],
    template=rf"{PREFIX}:pick:{GAME}:(?P<version>\d+):(?P<slot>[a-z]+)",
):
    """A choice among actions (a Kadabra 1's recipient, a dice discard); values are actions."""

    def __init__(
        self,
        game: str,
        version: int,
        slot: str,
        options: list[discord.SelectOption] | None = None,
        placeholder: str | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=custom_id("pick", game, version, slot),
                options=options or [],
                placeholder=placeholder,
            )
        )
        self.game = game
        self.version = version

    @classmethod
    def clicked(cls, interaction: discord.Interaction, match: re.Match[str]
                ) -> Awaitable[None]:
        values = (interaction.data or {}).get("values") or []  # type: ignore[union-attr]
        action = values[0] if values else ""
        return route(interaction, "Table", "on_action", match["game"], int(match["version"]),
                     action)


class BoardButton(
    Routed, discord.ui.DynamicItem[discord.ui.Button],
                  template=rf"{PREFIX}:board:(?P<rest>[\s\S]{{0,90}})"):
    """A leaderboard's page button: ``lama:v2:board:<guild>:<variant>:<page>:<prev|next>``.

    The template takes anything after ``board:`` so that a garbled or forged id gets a
    clear refusal: the Stats cog parses and checks every part (the guild must be the
    interaction's, the rule set known, the page a small number)."""

    def __init__(self, rest: str, label: str = "", disabled: bool = False) -> None:
        super().__init__(
            discord.ui.Button(label=label or rest, style=discord.ButtonStyle.secondary,
                              custom_id=custom_id("board", rest), disabled=disabled)
        )
        self.rest = rest

    @classmethod
    def clicked(cls, interaction: discord.Interaction, match: re.Match[str]
                ) -> Awaitable[None]:
        return route(interaction, "Stats", "on_board_page", match["rest"])


class ForgetButton(
    Routed, discord.ui.DynamicItem[discord.ui.Button],
    template=rf"{PREFIX}:forget:(?P<user>[0-9]{{1,20}}):(?P<op>yes|no)",
):
    """``/lama forget-me``'s confirmation: the id of the member who asked (only they may
    answer) and their answer."""

    def __init__(self, user_id: int, op: str, label: str = "", style: Any = None) -> None:
        super().__init__(
            discord.ui.Button(label=label or op, style=style or discord.ButtonStyle.secondary,
                              custom_id=custom_id("forget", user_id, op))
        )
        self.user_id = user_id
        self.op = op

    @classmethod
    def clicked(cls, interaction: discord.Interaction, match: re.Match[str]
                ) -> Awaitable[None]:
        return route(interaction, "Privacy", "on_forget", int(match["user"]), match["op"])


class LegacyButton(
    Routed, discord.ui.DynamicItem[discord.ui.Button], template=rf"{LEGACY_PREFIX}:.*"):
    """Any component of the first format (it named a channel): answered, never acted on."""

    def __init__(self, item: discord.ui.Item[Any]) -> None:
        super().__init__(item)

    @classmethod
    def clicked(cls, interaction: discord.Interaction, match: re.Match[str]
                ) -> Awaitable[None]:
        return refuse(interaction, LegacyButtonUsed())


DYNAMIC_ITEMS = (LobbyButton, RematchButton, HandButton, ActButton, AskButton, ActSelect,
                 BoardButton, ForgetButton, LegacyButton)
