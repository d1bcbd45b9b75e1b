"""``/lama stop`` (host or Manage Messages), ``/lama rules``, ``/lama config`` (Manage Server)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.policies.timers import (
    MAX_TURN_TIMEOUT,
    MIN_TURN_TIMEOUT,
    TURN_TIMEOUT_SETTING,
    require_turn_timeout,
    server_turn_timeout,
)
from bot.sessions.errors import BotError, NotAllowed
from bot.sessions.guild_settings import IMAGES_SETTING, THREADS_SETTING
from bot.sessions.sessions import Session
from bot.sessions.state import (
    HOUR,
    MAX_RELAXED_HOURS,
    PACE_SETTING,
    RELAXED_HOURS_SETTING,
    Pace,
    require_relaxed_hours,
    server_pace,
)
from bot.words.i18n import N_
from cogs.common import is_moderator, place, public_tr, require_variant
from cogs.language import language_command
from cogs.lobby import PACES, VARIANTS, lobby_payload, require_pace
from cogs.render import COLOUR, Payload
from cogs.replies import user_tr
from cogs.rules_text import rules_paragraphs
from cogs.uploads import images_on
from game import find_rules

if TYPE_CHECKING:
    from bot.process.client import LamaBot

log = logging.getLogger(__name__)

IMAGE_CHOICES = [app_commands.Choice(name="on", value="on"),
                 app_commands.Choice(name="off", value="off")]


def require_server_manager(interaction: discord.Interaction) -> None:
    """Server settings are for members with Manage Server (not only Manage Messages)."""
    if not interaction.permissions.manage_guild:
        raise NotAllowed(N_("Only members with the Manage Server permission can change this."))


class Admin(commands.Cog):
    """Ending games; explaining the rules."""

    def __init__(self, bot: LamaBot) -> None:
        self.bot = bot
        self._commands = [
            app_commands.Command(name="stop", description="End this channel's game (host or "
                                 "moderator); it counts for nobody", callback=self.stop),
            app_commands.Command(name="rules", description="The rules, in short",
                                 callback=self.rules),
        ]
        # /lama config <setting>: one subcommand per server setting (Manage Server only)
        self.config = app_commands.Group(name="config", description="This server's L.A.M.A. "
                                         "settings (Manage Server)")
        for command in self._config_commands():
            self.config.add_command(command)

    def _config_commands(self) -> list[app_commands.Command[Any, ..., Any]]:
        return [
            app_commands.Command(name="turn_timeout", description="Seconds per turn before the "
                                 "bot plays for a player (0: no timer)",
                                 callback=self.config_turn_timeout),
            language_command(),  # cogs/language.py
            app_commands.Command(name="images", description="Pictures of hands and charts in "
                                 "this server's messages (on by default)",
                                 callback=self.config_images),
            app_commands.Command(name="threads", description="Each game in a thread of its own, "
                                 "so a channel holds many games (off by default)",
                                 callback=self.config_threads),
            app_commands.Command(name="pace", description="New games' pace: live (minutes) "
                                 "or relaxed (hours per turn)", callback=self.config_pace),
        ]

    async def cog_load(self) -> None:
        for command in self._commands:
            self.bot.lama.add_command(command)
        self.bot.lama.add_command(self.config)

    async def cog_unload(self) -> None:
        for command in self._commands:
            self.bot.lama.remove_command(command.name)
        self.bot.lama.remove_command(self.config.name)

    @app_commands.describe(seconds=f"0 (no timer) or {MIN_TURN_TIMEOUT} to {MAX_TURN_TIMEOUT}; "
                           "leave out to see the current value")
    async def config_turn_timeout(
        self, interaction: discord.Interaction,
        seconds: app_commands.Range[int, 0, MAX_TURN_TIMEOUT] | None = None,
    ) -> None:
        guild_id, _ = place(interaction)
        tr = user_tr(interaction)
        if seconds is None:
            current = await server_turn_timeout(self.bot.store, guild_id)
            await interaction.response.send_message(
                tr.plural("Turn timeout: {n} second (0: no timer).",
                          "Turn timeout: {n} seconds (0: no timer).", current), ephemeral=True)
            return
        require_turn_timeout(seconds)
        require_server_manager(interaction)
        await self.bot.store.set_guild_setting(guild_id, TURN_TIMEOUT_SETTING, str(seconds))
        text = (tr.plural("Turn timeout set to {n} second for new games.",
                          "Turn timeout set to {n} seconds for new games.", seconds) if seconds
                else tr("Turn timer switched off for new games."))
        await interaction.response.send_message(text, ephemeral=True)

    @app_commands.describe(images="on or off; leave out to see the current value")
    @app_commands.choices(images=IMAGE_CHOICES)
    async def config_images(self, interaction: discord.Interaction,
                            images: str | None = None) -> None:
        guild_id, _ = place(interaction)
        tr = user_tr(interaction)
        settings = self.bot.sessions.guild_settings
        if images is None:
            text = (tr("Pictures are on: hands and final standings come with images.")
                    if images_on(settings, guild_id)
                    else tr("Pictures are off: the bot shows cards and scores as text."))
            await interaction.response.send_message(text, ephemeral=True)
            return
        if images not in ("on", "off"):  # a forged option
            raise BotError(N_("Choose on or off."))
        require_server_manager(interaction)
        await settings.set(guild_id, IMAGES_SETTING, images)
        text = (tr("Pictures switched on.") if images == "on"
                else tr("Pictures switched off: cards and scores as text."))
        await interaction.response.send_message(text, ephemeral=True)

    @app_commands.describe(threads="on or off; leave out to see the current value")
    @app_commands.choices(threads=IMAGE_CHOICES)
    async def config_threads(self, interaction: discord.Interaction,
                             threads: str | None = None) -> None:
        guild_id, _ = place(interaction)
        tr = user_tr(interaction)
        settings = self.bot.sessions.guild_settings
        if threads is None:
            text = (tr("Threads are on: each game moves to a thread of its own when it starts.")
                    if settings.get(guild_id, THREADS_SETTING) == "on"
                    else tr("Threads are off: a channel holds one game at a time."))
            await interaction.response.send_message(text, ephemeral=True)
            return
        if threads not in ("on", "off"):  # a forged option
            raise BotError(N_("Choose on or off."))
        require_server_manager(interaction)
        await settings.set(guild_id, THREADS_SETTING, threads)
        text = (tr("Threads switched on: each new game moves to a thread of its own.")
                if threads == "on" else tr("Threads switched off: new games stay in their "
                                           "channel."))
        await interaction.response.send_message(text, ephemeral=True)

    @app_commands.describe(pace="live or relaxed; leave out to see the current value",
                           hours=f"Relaxed games: hours per turn, 1 to {MAX_RELAXED_HOURS}")
    @app_commands.choices(pace=PACES)
    async def config_pace(
        self, interaction: discord.Interaction, pace: str | None = None,
        hours: app_commands.Range[int, 1, MAX_RELAXED_HOURS] | None = None,
    ) -> None:
        guild_id, _ = place(interaction)
        tr = user_tr(interaction)
        chosen = require_pace(pace)
        if hours is not None:
            require_relaxed_hours(hours)
        if chosen is not None or hours is not None:
            require_server_manager(interaction)
            if chosen is not None:
                await self.bot.store.set_guild_setting(guild_id, PACE_SETTING, chosen.value)
            if hours is not None:
                await self.bot.store.set_guild_setting(guild_id, RELAXED_HOURS_SETTING,
                                                       str(hours))
        current, seconds = await server_pace(self.bot.store, guild_id)
        hours_now = seconds // HOUR
        text = (tr.plural("New games are relaxed: {n} hour per turn.",
                          "New games are relaxed: {n} hours per turn.", hours_now)
                if current is Pace.RELAXED
                else tr.plural("New games are live; relaxed games have {n} hour per turn.",
                               "New games are live; relaxed games have {n} hours per turn.",
                               hours_now))
        await interaction.response.send_message(text, ephemeral=True)

    async def stop(self, interaction: discord.Interaction) -> None:
        _, channel_id = place(interaction)
        session = self.bot.sessions.require(channel_id)
        name = interaction.user.display_name
        was_playing = await session.stop(interaction.user.id, is_moderator(interaction), name)
        tr = public_tr(session)
        text = tr("{name} stopped the game. It counts for nobody.", name=tr.name(name))
        await interaction.response.send_message(text)
        if was_playing:
            await self.bot.sessions.publish(session)  # the table, closed (committed with it)
        elif session.lobby_message_id is not None:
            await self._close_lobby(session, text)

    async def _close_lobby(self, session: Session, text: str) -> None:
        payload = lobby_payload(public_tr(session), session, closed=text)
        channel = self.bot.get_partial_messageable(session.channel_id, guild_id=session.guild_id)
        try:
            await channel.get_partial_message(session.lobby_message_id or 0).edit(
                **payload.kwargs(edit=True)
            )
        except discord.HTTPException:
            log.info("could not close the lobby %s", session.lobby_message_id)

    @app_commands.describe(variant="Rule set (default classic)")
    @app_commands.choices(variant=VARIANTS)
    async def rules(self, interaction: discord.Interaction, variant: str = "classic") -> None:
        require_variant(variant)
        tr = user_tr(interaction)
        embed = discord.Embed(title=tr(find_rules(variant).title), colour=COLOUR)
        embed.description = "\n\n".join(rules_paragraphs(tr, variant))
        await interaction.response.send_message(ephemeral=True, **Payload(embed=embed).kwargs())


async def setup(bot: LamaBot) -> None:
    await bot.add_cog(Admin(bot))
