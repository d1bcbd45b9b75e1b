"""``/lama notify`` (a member's DM choice for relaxed games) and ``/lama games`` (my games).

Both answer only the member who asks (ephemeral); the list of games is a card (Components V2,
as the bot's other cards), the notify answers plain one-line notes. The choice is kept per
member, in every server (bot/sessions/user_prefs.py); ``/lama mydata`` and
``/lama forget-me`` cover it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.sessions.errors import BotError
from bot.sessions.sessions import Session, Status
from bot.sessions.user_prefs import DM_ON, DM_REFUSED
from bot.words.i18n import N_, Translator
from cogs.common import add_commands, place, remove_commands
from cogs.direct import game_link
from cogs.render import Payload
from cogs.replies import user_tr
from game import find_rules

if TYPE_CHECKING:
    from bot.process.client import LamaBot

ON_OFF = [app_commands.Choice(name="on", value="on"),
          app_commands.Choice(name="off", value="off")]
MAX_GAMES_SHOWN = 15  # a card holds 4,000 characters of text: 15 lines of about 220 fit


def game_line(tr: Translator, session: Session, user_id: int) -> str:
    """One of the member's games: its rules, its channel, whose turn, the deadline, a link."""
    params = {"game": tr(find_rules(session.variant).title),
              "channel": f"<#{session.channel_id}>",
              "link": game_link(session.guild_id, session.channel_id, session.table_message_id)}
    to_act = session.user_to_act()
    deadline = session.timers.deadline
    if to_act is not None and deadline is not None:
        when = f"<t:{round(deadline)}:R>"
        if to_act == user_id:
            return tr("**{game}** in {channel}: your turn; the bot plays for you {deadline}. "
                      "{link}", deadline=when, **params)
        return tr("**{game}** in {channel}: <@{user}> to play, until {deadline}. {link}",
                  user=to_act, deadline=when, **params)
    if to_act == user_id:
        return tr("**{game}** in {channel}: your turn. {link}", **params)
    if to_act is not None:
        return tr("**{game}** in {channel}: <@{user}> to play. {link}", user=to_act,
                  **params)
    return tr("**{game}** in {channel}: an AI is playing. {link}", **params)


class Relaxed(commands.Cog):
    """A member's notifications and their running games."""

    def __init__(self, bot: LamaBot) -> None:
        self.bot = bot
        self._commands = [
            app_commands.Command(name="notify", description="A direct message when your turn "
                                 "comes in a relaxed game (off by default)",
                                 callback=self.notify),
            app_commands.Command(name="games", description="Your running games in this "
                                 "server, whose turn it is and until when",
                                 callback=self.games),
        ]

    async def cog_load(self) -> None:
        add_commands(self.bot, self._commands)

    async def cog_unload(self) -> None:
        remove_commands(self.bot, self._commands)

    @app_commands.describe(dm="on or off; leave out to see your current choice")
    @app_commands.choices(dm=ON_OFF)
    async def notify(self, interaction: discord.Interaction, dm: str | None = None) -> None:
        tr = user_tr(interaction)
        prefs = self.bot.sessions.dm_prefs
        user_id = interaction.user.id
        if dm is None:
            current = prefs.get(user_id)
            text = (tr("Direct messages are on: lama sends you one when your turn comes in a "
                       "relaxed game.") if current == DM_ON
                    else tr("Direct messages are off: Discord refused the last one (you do "
                            "not accept direct messages here). Allow them, then turn them "
                            "on again.") if current == DM_REFUSED
                    else tr("Direct messages are off. {cmd_notify} with dm on turns them on."))
            await interaction.response.send_message(text, ephemeral=True)
            return
        if dm not in ("on", "off"):  # a forged option
            raise BotError(N_("Choose on or off."))
        await prefs.set(user_id, DM_ON if dm == "on" else None)
        text = (tr("Direct messages on: lama sends you one when your turn comes in a relaxed "
                   "game, at most one per turn.") if dm == "on"
                else tr("Direct messages off: lama keeps nothing about this choice."))
        await interaction.response.send_message(text, ephemeral=True)

    async def games(self, interaction: discord.Interaction) -> None:
        guild_id, _ = place(interaction)
        tr = user_tr(interaction)
        user_id = interaction.user.id
        mine = [s for s in self.bot.sessions.served()
                if s.guild_id == guild_id and s.status is Status.PLAYING
                and s.seat_of(user_id) is not None]
        if not mine:
            await interaction.response.send_message(
                tr("You have no running game in this server. {cmd_start} opens one."),
                ephemeral=True)
            return
        # whose turn it is first, soonest deadline first
        mine.sort(key=lambda s: (s.user_to_act() != user_id,
                                 s.timers.deadline or float("inf"), s.channel_id))
        lines = [game_line(tr, s, user_id) for s in mine[:MAX_GAMES_SHOWN]]
        if len(mine) > MAX_GAMES_SHOWN:
            lines.append(tr.plural("…and {n} more game.", "…and {n} more games.",
                                   len(mine) - MAX_GAMES_SHOWN))
        card = discord.Embed(title=tr("Your running games"), description="\n".join(lines))
        # (a card, laid out as the bot's other cards are; mentions nobody: no mention is set)
        await interaction.response.send_message(ephemeral=True, **Payload(embed=card).kwargs())


async def setup(bot: LamaBot) -> None:
    await bot.add_cog(Relaxed(bot))
