"""``/lama privacy``, ``/lama mydata``, ``/lama forget-me`` (which asks first), and deletion
without being asked: a server the bot left loses its data after a grace period, finished
games older than the retention setting go (bot/policies/forgetting.py, bot/store/privacy.py)."""

from __future__ import annotations

import asyncio
import io
import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.policies.forgetting import DAY, forget_in_sessions, housekeeping
from bot.sessions.errors import NotAllowed
from bot.sessions.sessions import Session
from bot.store.privacy import packed
from bot.words.i18n import N_, Translator
from cogs.buttons import ForgetButton
from cogs.common import add_commands, public_tr, remove_commands
from cogs.lobby import lobby_payload
from cogs.render import COLOUR, Components, Payload
from cogs.replies import user_tr

if TYPE_CHECKING:
    from bot.process.client import LamaBot

log = logging.getLogger(__name__)

MYDATA_FILE = "lama-mydata.json.gz"


def privacy_embed(tr: Translator, contact: str | None, grace_days: float,
                  retention_days: float | None) -> discord.Embed:
    """What lama keeps, why, how long, and how to have it deleted."""
    embed = discord.Embed(title=tr("Privacy: what lama keeps about you"), colour=COLOUR)
    kept = (tr.plural("Finished games are deleted {n} day after they end.",
                      "Finished games are deleted {n} days after they end.",
                      round(retention_days)) if retention_days is not None
            else tr("Finished games, results and ratings are kept until you (or the "
                    "operator) delete them."))
    embed.description = "\n\n".join([
        tr("**What:** your Discord user id and the name you play under; the lobbies and "
           "games you join, with every move (a game's record); your results and ratings "
           "in each server. Servers' settings (language, turn timer, pictures). lama reads "
           "no messages and keeps no message content."),
        tr("**Why:** to run the games and continue them after a restart, to let anyone "
           "replay a finished game, and for {cmd_leaderboard} and {cmd_stats}."),
        "**" + tr("How long:") + "** " + kept + " " + tr.plural(
            "When the bot leaves a server, that server's data is deleted {n} day later.",
            "When the bot leaves a server, that server's data is deleted {n} days later.",
            round(grace_days)) + " " + tr(
            "Logs and backups the operator keeps hold data until they rotate or expire; "
            "the contact below can tell you how long that is."),
        tr("**Your choices:** {cmd_mydata} sends you a file with everything lama keeps "
           "about you. {cmd_forget-me} deletes it: your id and names leave every table, your "
           "results and ratings go, the games you played stay for the others under a "
           "neutral name, and an AI takes your seat in a running game."),
        tr("**Direct messages:** only if you turn them on ({cmd_notify}), lama sends you one "
           "when your turn comes in a relaxed game. It keeps that choice (and, if Discord "
           "refused a message to you, that it did) until you turn them off or ask it to "
           "forget you; turned off, nothing is kept."),
        tr("Messages already posted in Discord are out of lama's reach: delete your own "
           "messages in Discord."),
        "**" + tr("Contact:") + "** " + (discord.utils.escape_markdown(contact) if contact else tr(
            "this bot's operator has not given a contact: ask this server's owner to reach "
            "them.")),
    ])
    return embed


class Privacy(commands.Cog):
    """A member's data: what is kept, a copy, deletion; a server's, after the bot left."""

    def __init__(self, bot: LamaBot) -> None:
        self.bot = bot
        self._commands = [
            app_commands.Command(name="privacy", description="What lama keeps about you, why, "
                                 "for how long, and how to have it deleted",
                                 callback=self.privacy),
            app_commands.Command(name="mydata", description="A file with everything lama "
                                 "keeps about you", callback=self.mydata),
            app_commands.Command(name="forget-me", description="Delete everything lama keeps "
                                 "about you (asks first)", callback=self.forget_me),
        ]
        self._housekeeping: asyncio.Task[None] | None = None

    async def cog_load(self) -> None:
        add_commands(self.bot, self._commands)

    async def cog_unload(self) -> None:
        remove_commands(self.bot, self._commands)
        if self._housekeeping is not None:
            self._housekeeping.cancel()
            await asyncio.wait([self._housekeeping])
            self._housekeeping = None

    async def privacy(self, interaction: discord.Interaction) -> None:
        settings = self.bot.settings
        embed = privacy_embed(user_tr(interaction), settings.lama_privacy_contact,
                              settings.lama_guild_grace_days, settings.lama_game_retention_days)
        await interaction.response.send_message(ephemeral=True, **Payload(embed=embed).kwargs())

    async def mydata(self, interaction: discord.Interaction) -> None:
        tr = user_tr(interaction)
        document = await self.bot.store.export_user(interaction.user.id)
        blob, left_out = await asyncio.to_thread(packed, document)
        text = tr("Everything lama keeps about you, as compressed JSON (open it with any "
                  "unzip tool). Games still running show only your seat: their cards stay "
                  "hidden until they end.")
        if left_out:
            text += "\n" + tr.plural(
                "⚠️ The file had to be cut to fit Discord's upload limit: {n} entry (the "
                "oldest games' records first) was left out. The bot's operator can export "
                "everything.",
                "⚠️ The file had to be cut to fit Discord's upload limit: {n} entries (the "
                "oldest games' records first) were left out. The bot's operator can export "
                "everything.", left_out)
        await interaction.response.send_message(
            text, file=discord.File(io.BytesIO(blob), filename=MYDATA_FILE), ephemeral=True)

    async def forget_me(self, interaction: discord.Interaction) -> None:
        tr = user_tr(interaction)
        view = discord.ui.View(timeout=None)
        user = interaction.user.id
        view.add_item(ForgetButton(user, "yes", tr("Yes, forget me"),
                                   discord.ButtonStyle.danger))
        view.add_item(ForgetButton(user, "no", tr("No, keep my data")))
        await interaction.response.send_message(
            tr("Delete everything lama keeps about you, in every server? Your results and "
               "ratings go for good; the games you played stay for the others under a "
               "neutral name; an AI takes your seat in a running game. This cannot be "
               "undone."), view=Components.of(view), ephemeral=True)

    async def on_forget(self, interaction: discord.Interaction, user_id: int, op: str) -> None:
        """The confirmation's buttons: only the member who asked may answer."""
        if interaction.user.id != user_id:
            raise NotAllowed(N_("Only the member who asked can answer this."))
        tr = user_tr(interaction)
        if op != "yes":
            await interaction.response.edit_message(content=tr("Nothing was deleted."),
                                                    view=None)
            return
        left = await forget_in_sessions(self.bot.sessions, user_id)
        done = await self.bot.store.forget_user(
            user_id, [(x.session.guild_id, x.session.channel_id) for x in left])
        self.bot.sessions.dm_prefs.forget(user_id)  # (the store's row went with the rest)
        log.info("forgot a member at their request: %s", done.summary())
        await interaction.response.edit_message(content=tr(
            "Done: lama has forgotten you. Messages already posted in Discord stay: delete "
            "your own there."), view=None)
        for x in left:
            if x.closed:
                await self._close_lobby(x.session)
            else:
                await self.bot.sessions.publish(x.session)

    async def _close_lobby(self, session: Session) -> None:
        if session.lobby_message_id is None:
            return
        tr = public_tr(session)
        payload = lobby_payload(tr, session, closed=tr("This lobby was closed."))
        channel = self.bot.get_partial_messageable(session.channel_id, guild_id=session.guild_id)
        try:
            await channel.get_partial_message(session.lobby_message_id).edit(
                **payload.kwargs(edit=True))
        except discord.HTTPException:
            log.info("could not close the lobby %s", session.lobby_message_id)

    # ---- a server the bot left ------------------------------------------------------
    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """Removed, or the server deleted: its data goes after the grace period."""
        await self.bot.store.note_guild_left(guild.id, self.bot.sessions.clock.now())
        log.info("left server %s: its data is deleted in %g days unless the bot comes back",
                 guild.id, self.bot.settings.lama_guild_grace_days)

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        await self._back([guild.id])

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        """Servers the bot is in keep their data; then (once) the hourly sweep starts. Not
        once the bot is stopping: a ready dispatched then would run on a closed store, after
        the cog's unload had stopped the sweep."""
        if self.bot.stopping:
            return
        await self._back([g.id for g in self.bot.guilds])
        if self._housekeeping is None and not self.bot.stopping:
            settings = self.bot.settings
            self._housekeeping = asyncio.create_task(housekeeping(
                self.bot.store, self.bot.sessions.clock, settings.lama_guild_grace_days,
                settings.lama_game_retention_days), name="lama-housekeeping")

    async def _back(self, guild_ids: list[int]) -> None:
        """Servers the bot is in again keep their data."""
        left = await self.bot.store.left_guilds()
        for guild_id in guild_ids:
            if guild_id in left:
                await self.bot.store.note_guild_left(guild_id, None)
                log.info("back in server %s after %.1f days: its data is kept", guild_id,
                         (self.bot.sessions.clock.now() - left[guild_id]) / DAY)


async def setup(bot: LamaBot) -> None:
    await bot.add_cog(Privacy(bot))
