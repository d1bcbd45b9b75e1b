"""``/lama leaderboard`` and ``/lama stats``: the server's standings from the store."""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.errors import BotError
from bot.i18n import N_, Translator
from bot.markdown import EMBED_TITLE, clip
from bot.store import Standing
from cogs.common import place, require_variant
from cogs.endings import places
from cogs.lobby import VARIANTS
from cogs.render import COLOUR
from cogs.replies import user_tr
from game import find_rules

if TYPE_CHECKING:
    from bot.client import LamaBot

TOP = 15


def record_text(tr: Translator, s: Standing) -> str:
    """``5 of 12 games won (42%), 17.5 points per game`` in ``tr``'s language."""
    return tr.plural("{wins} of {n} game won ({rate}%), {avg} points per game",
                     "{wins} of {n} games won ({rate}%), {avg} points per game", s.games,
                     wins=s.wins, rate=round(100 * s.win_rate), avg=tr.decimal(s.average_points))


def standing_line(tr: Translator, place_no: int, s: Standing) -> str:
    """One whole sentence per player (a record is never put into another sentence)."""
    return tr.plural(
        "{place}. **{name}**: {wins} of {n} game won ({rate}%), {avg} points per game, "
        "rating {rating}",
        "{place}. **{name}**: {wins} of {n} games won ({rate}%), {avg} points per game, "
        "rating {rating}",
        s.games, place=place_no, name=tr.name(s.name), wins=s.wins,
        rate=round(100 * s.win_rate), avg=tr.decimal(s.average_points),
        rating=tr.decimal(s.rating, 2))


def result(s: Standing) -> tuple[float, int, int]:
    """What orders the board (the store sorts by it): equal results share a place."""
    return s.rating, s.wins, s.games


class Stats(commands.Cog):
    """Standings."""

    def __init__(self, bot: LamaBot) -> None:
        self.bot = bot
        self._commands = [
            app_commands.Command(name="leaderboard", description="This server's standings",
                                 callback=self.leaderboard),
            app_commands.Command(name="stats", description="One player's record",
                                 callback=self.stats),
        ]

    async def cog_load(self) -> None:
        for command in self._commands:
            self.bot.lama.add_command(command)

    async def cog_unload(self) -> None:
        for command in self._commands:
            self.bot.lama.remove_command(command.name)

    @app_commands.describe(variant="Only this rule set")
    @app_commands.choices(variant=VARIANTS)
    async def leaderboard(
        self, interaction: discord.Interaction, variant: str | None = None
    ) -> None:
        guild_id, _ = place(interaction)
        if variant is not None:
            require_variant(variant)
        tr = user_tr(interaction)
        standings = await self.bot.store.standings(guild_id, variant)
        title = tr("Leaderboard") if variant is None else tr(
            "Leaderboard: {variant}", variant=tr(find_rules(variant).title))
        embed = discord.Embed(title=title, colour=COLOUR)
        shown = standings[:TOP]
        lines = [standing_line(tr, p, s)
                 for p, s in zip(places([result(s) for s in shown]), shown, strict=True)]
        embed.description = "\n".join(lines) or tr("No finished games yet.")
        embed.set_footer(text=tr("Ranked by a cautious estimate of the win rate (Wilson lower "
                                 "bound), so a single lucky game does not top the board."))
        await interaction.response.send_message(embed=embed)

    @app_commands.describe(user="Whose record (default: yours)")
    async def stats(
        self, interaction: discord.Interaction, user: discord.User | None = None
    ) -> None:
        guild_id, _ = place(interaction)
        if user is not None and not isinstance(user, discord.abc.User):  # a forged option
            raise BotError(N_("{option} must be a member of this server."), option="user")
        tr = user_tr(interaction)
        who = user or interaction.user
        standing = await self.bot.store.standing(guild_id, who.id)
        title = tr("{name}'s record", name=tr.name(who.display_name))
        embed = discord.Embed(title=clip(title, EMBED_TITLE), colour=COLOUR)
        if standing is None:
            embed.description = tr("No finished games yet.")
        else:
            embed.description = record_text(tr, standing)
        await interaction.response.send_message(embed=embed, ephemeral=True)


async def setup(bot: LamaBot) -> None:
    await bot.add_cog(Stats(bot))
