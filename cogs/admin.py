"""``/lama stop`` (host or Manage Messages) and ``/lama rules``."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.sessions import Session, Status
from cogs.common import is_moderator, place, public_tr
from cogs.lobby import VARIANTS, lobby_payload
from cogs.render import COLOUR
from cogs.replies import user_tr
from cogs.rules_text import RULES
from game import find_rules

if TYPE_CHECKING:
    from bot.client import LamaBot

log = logging.getLogger(__name__)


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

    async def cog_load(self) -> None:
        for command in self._commands:
            self.bot.lama.add_command(command)

    async def cog_unload(self) -> None:
        for command in self._commands:
            self.bot.lama.remove_command(command.name)

    async def stop(self, interaction: discord.Interaction) -> None:
        _, channel_id = place(interaction)
        session = self.bot.sessions.require(channel_id)
        was_playing = session.status is Status.PLAYING
        await session.stop(interaction.user.id, is_moderator(interaction))
        tr = public_tr(session)
        text = tr("{name} stopped the game. It counts for nobody.",
                  name=interaction.user.display_name)
        await interaction.response.send_message(text)
        if was_playing:
            await self.bot.get_cog("Table").close_table(session, text)  # type: ignore[union-attr]
        elif session.lobby_message_id is not None:
            await self._close_lobby(session, text)

    async def _close_lobby(self, session: Session, text: str) -> None:
        payload = lobby_payload(public_tr(session), session, closed=text)
        channel = self.bot.get_partial_messageable(session.channel_id, guild_id=session.guild_id)
        try:
            await channel.get_partial_message(session.lobby_message_id or 0).edit(
                **payload.kwargs()
            )
        except discord.HTTPException:
            log.info("could not close the lobby %s", session.lobby_message_id)

    @app_commands.describe(variant="Rule set (default classic)")
    @app_commands.choices(variant=VARIANTS)
    async def rules(self, interaction: discord.Interaction, variant: str = "classic") -> None:
        tr = user_tr(interaction)
        embed = discord.Embed(title=find_rules(variant).title, colour=COLOUR)
        embed.description = "\n\n".join(tr(paragraph) for paragraph in RULES[variant])
        await interaction.response.send_message(embed=embed, ephemeral=True)


async def setup(bot: LamaBot) -> None:
    await bot.add_cog(Admin(bot))
