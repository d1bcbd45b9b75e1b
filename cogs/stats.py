"""``/lama leaderboard`` (one rule set's board, ten rows a page) and ``/lama stats``.

The skills are OpenSkill's ratings (bot/ladder/ratings.py), kept by the store per server and rule
set; the texts and the chart of a player's recent games are built in cogs/ladder_text.py.
"""

from __future__ import annotations

import io
import logging
import re
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.pictures.chart import ratings_chart
from bot.sessions.errors import BotError
from bot.words.i18n import N_, Translator
from bot.words.markdown import EMBED_TITLE, clip
from cogs.buttons import BoardButton
from cogs.charts import drawn_chart, tick_figures
from cogs.common import add_commands, place, remove_commands, require_variant
from cogs.ladder_text import (
    CHART_FILE,
    PAGE_SIZE,
    SKILL_MEANING,
    add_chart_legend,
    board_lines,
    chart_alt,
    chart_series,
    rule_sets,
    stats_embed,
)
from cogs.lobby import VARIANTS
from cogs.render import COLOUR, Components, Payload
from cogs.replies import user_tr
from cogs.timely import in_time, send_message
from cogs.uploads import ALT_TEXT, images_on, refused_upload
from game import find_rules, variant_names

if TYPE_CHECKING:
    from bot.process.client import LamaBot

log = logging.getLogger(__name__)

PAGE = re.compile(r"[0-9]{1,4}")
GUILD = re.compile(r"[0-9]{1,20}")


class ForeignBoard(BotError):
    """A page button whose id names another server, an unknown rule set or no page."""

    message = N_("That button does not belong to a leaderboard of this server.")


class Stats(commands.Cog):
    """Standings."""

    def __init__(self, bot: LamaBot) -> None:
        self.bot = bot
        self._commands = [
            app_commands.Command(name="leaderboard", description="This server's standings in "
                                 "one rule set", callback=self.leaderboard),
            app_commands.Command(name="stats", description="One player's record",
                                 callback=self.stats),
        ]

    async def cog_load(self) -> None:
        add_commands(self.bot, self._commands)

    async def cog_unload(self) -> None:
        remove_commands(self.bot, self._commands)

    async def default_variant(self, guild_id: int) -> str:
        """The rule set this server has finished the most games of (ties: the list's
        order, classic first); classic before any game."""
        played = await self.bot.store.played_variants(guild_id)
        names = rule_sets()
        known = [v for v in names if played.get(v)]
        return max(known, key=lambda v: (played[v], -names.index(v))) if known else "classic"

    @app_commands.describe(variant="Rule set (default: the one this server plays most)")
    @app_commands.choices(variant=VARIANTS)
    async def leaderboard(
        self, interaction: discord.Interaction, variant: str | None = None
    ) -> None:
        guild_id, _ = place(interaction)
        if variant is not None:
            require_variant(variant)
        chosen = variant or await self.default_variant(guild_id)
        embed, view = await self.board(user_tr(interaction), guild_id, chosen, 0)
        await interaction.response.send_message(**Payload(embed=embed, view=view).kwargs())

    async def board(self, tr: Translator, guild_id: int, variant: str, page: int
                    ) -> tuple[discord.Embed, Components | None]:
        """One page of the board (the last one if ``page`` is past it) and its buttons."""
        standings = await self.bot.store.standings(guild_id, variant)
        pages = max(1, -(-len(standings) // PAGE_SIZE))
        page = min(page, pages - 1)
        embed = discord.Embed(title=clip(tr("Leaderboard: {variant}", variant=tr(
            find_rules(variant).title)), EMBED_TITLE), colour=COLOUR)
        embed.description = "\n".join(board_lines(tr, standings, page)) or tr(
            "No finished games yet.")
        footer = tr(SKILL_MEANING)
        if pages > 1:
            footer += "\n" + tr("Page {page} of {pages}", page=page + 1, pages=pages)
        embed.set_footer(text=footer)
        if pages == 1:
            return embed, None
        view = discord.ui.View(timeout=None)
        view.add_item(BoardButton(f"{guild_id}:{variant}:{max(page - 1, 0)}:prev",
                                  "◀ " + tr("Previous"), disabled=page == 0))
        view.add_item(BoardButton(f"{guild_id}:{variant}:{min(page + 1, pages - 1)}:next",
                                  tr("Next") + " ▶", disabled=page == pages - 1))
        return embed, Components.of(view)

    async def on_board_page(self, interaction: discord.Interaction, rest: str) -> None:
        """A page button: the board it names, redrawn in place, if it is this server's."""
        guild_id, _ = place(interaction)
        parts = rest.split(":")
        if (len(parts) != 4 or not GUILD.fullmatch(parts[0]) or int(parts[0]) != guild_id
                or parts[1] not in variant_names() or not PAGE.fullmatch(parts[2])
                or parts[3] not in ("prev", "next")):
            raise ForeignBoard()
        embed, view = await self.board(user_tr(interaction), guild_id, parts[1], int(parts[2]))
        await interaction.response.edit_message(
            **Payload(embed=embed, view=view or Components()).kwargs(edit=True))

    @app_commands.describe(user="Whose record (default: yours)")
    async def stats(
        self, interaction: discord.Interaction, user: discord.User | None = None
    ) -> None:
        guild_id, _ = place(interaction)
        if user is not None and not isinstance(user, discord.abc.User):  # a forged option
            raise BotError(N_("{option} must be a member of this server."), option="user")
        who = user or interaction.user
        # the first chart of a process loads the charts' library: deferred (privately) if slow
        embed, files = await in_time(interaction, self._record(interaction, guild_id, who),
                                     private=True)
        try:
            await send_message(interaction, ephemeral=True,
                               **Payload(embed=embed, files=files).kwargs())
        except discord.HTTPException as error:
            if not (files and refused_upload(error)):
                raise
            embed.set_image(url=None)  # Discord refused the picture: the text says it all
            embed.remove_field(len(embed.fields) - 1)  # and its legend
            await send_message(interaction, ephemeral=True, **Payload(embed=embed).kwargs())

    async def _record(self, interaction: discord.Interaction, guild_id: int,
                      who: discord.abc.User) -> tuple[discord.Embed, list[discord.File]]:
        """``who``'s record in this server: its text and (pictures allowed) its chart."""
        tr = user_tr(interaction)
        games = await self.bot.store.player_games(guild_id, who.id)
        boards = {v: await self.bot.store.standings(guild_id, v)
                  for v in rule_sets() if any(g.variant == v for g in games)}
        embed = stats_embed(tr, who.display_name, games, boards, who.id)
        series = chart_series(games)
        files: list[discord.File] = []
        if (series and images_on(self.bot.sessions.guild_settings, guild_id)
                and interaction.app_permissions.attach_files):
            data = await drawn_chart(ratings_chart, series, tick_figures(tr.language))
            alt = clip(chart_alt(tr, tr.plain(who.display_name), series), ALT_TEXT)
            files = [discord.File(io.BytesIO(data), filename=CHART_FILE, description=alt)]
            embed.set_image(url=f"attachment://{CHART_FILE}")
            add_chart_legend(tr, embed, series)
        return embed, files

async def setup(bot: LamaBot) -> None:
    await bot.add_cog(Stats(bot))
