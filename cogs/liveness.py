"""Keeping games alive: the watchdog's public messages, ``/lama leave``, lost channels.

The timers themselves are in bot/policies/timers.py; this cog says what they did.
A channel that was deleted, or where the bot may no longer post (403
50001/50013, 404 10003), ends its game as abandoned (recorded with the end
reason ``channel_gone``, counts for nobody) so the channel is free for a new
``/lama start``.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.policies import takeover
from bot.policies.timers import IDLE_TTL, LOBBY_TTL
from bot.sessions.errors import BotError
from bot.sessions.sessions import Session, Status
from bot.store.sql_store import END_CHANNEL_GONE
from bot.words.i18n import Translator
from cogs.cards import event_text
from cogs.common import place, public_tr
from cogs.lobby import lobby_payload
from cogs.render import Payload
from game import Event, visible_to

if TYPE_CHECKING:
    from bot.process.client import LamaBot

log = logging.getLogger(__name__)

MISSING_ACCESS = 50001
MISSING_PERMISSIONS = 50013
UNKNOWN_CHANNEL = 10003


def channel_gone(error: BaseException) -> bool:
    """Discord says the bot can no longer use the channel (deleted, or no permission)."""
    if isinstance(error, discord.Forbidden):
        return error.code in (MISSING_ACCESS, MISSING_PERMISSIONS)
    return isinstance(error, discord.NotFound) and error.code == UNKNOWN_CHANNEL


async def lose_channel(
    bot: commands.Bot, session: Session, error: BaseException | None = None
) -> None:
    """The channel cannot be used any more: end its lobby or game (recorded as abandoned).

    Dispatches ``lama_channel_lost(session)`` once it is recorded (for tests, metrics).
    """
    if await takeover.abandon(session, END_CHANNEL_GONE):
        log.warning("channel %s lost (%s): session abandoned", session.channel_id,
                    error or "deleted")
        bot.dispatch("lama_channel_lost", session)


def note_payload(
    tr: Translator, session: Session, kind: str, params: dict[str, Any]
) -> Payload | None:
    """A public note a committed change owes (rendered as it is committed: bot.outbox)."""
    names = [s.name for s in session.seats]
    if kind == "remind":
        user_id = session.seats[params["seat"]].user_id
        if user_id is None:
            return None
        seconds = params.get("seconds")
        if seconds is None or seconds >= session.timers.turn_timeout - 1:
            # no turn timer, or pinged at once (their hand cannot show the turn coming):
            # the table shows the deadline counting down
            return Payload(content=tr("⏰ <@{user}>, it is your turn.", user=user_id),
                           mention=user_id)
        return Payload(content=tr.plural(
            "⏰ <@{user}>, it is still your turn: {n} second left, then the bot plays for you.",
            "⏰ <@{user}>, it is still your turn: {n} seconds left, then the bot plays for you.",
            params["seconds"], user=user_id), mention=user_id)
    if kind == "timed_out":
        seat = params["seat"]
        lines = [tr("⏰ {name} ran out of time.", name=tr.name(names[seat]))]
        lines += [t for e in visible_to(params["events"], None)
                  if (t := event_text(tr, e, names))]
        if params["handed_over"]:
            lines.append(tr("{name} ran out of time twice in a row: an AI plays their seat "
                            "now. {cmd_hand} takes it back.", name=tr.name(names[seat])))
        return Payload(content="\n".join(lines))
    if kind == "forgotten":
        return Payload(content=tr("A player asked lama to forget them: an AI plays their "
                                  "seat now, as {name}.", name=tr.name(names[params["seat"]])))
    if kind == "idle":
        return Payload(content=tr.plural(
            "Nobody has played for {n} minute: the game is abandoned. It counts for nobody.",
            "Nobody has played for {n} minutes: the game is abandoned. It counts for nobody.",
            round(IDLE_TTL / 60)))
    if kind == "stopped":
        return Payload(content=tr("{name} stopped the game. It counts for nobody.",
                                  name=tr.name(params["name"])))
    return None


class Liveness(commands.Cog):
    """Nobody can freeze a game: reminders, defaults, expiry, leaving, lost channels."""

    def __init__(self, bot: LamaBot) -> None:
        self.bot = bot
        self._command = app_commands.Command(
            name="leave", description="Leave this channel's lobby, or let an AI finish your game",
            callback=self.leave,
        )

    async def cog_load(self) -> None:
        self.bot.lama.add_command(self._command)
        self.bot.sessions.timers.announcer = self

    async def cog_unload(self) -> None:
        self.bot.lama.remove_command(self._command.name)
        self.bot.sessions.timers.announcer = None

    # ---- /lama leave -----------------------------------------------------
    async def leave(self, interaction: discord.Interaction) -> None:
        _, channel_id = place(interaction)
        session = self.bot.sessions.require(channel_id)
        tr = public_tr(session)
        user = interaction.user
        if session.status is Status.LOBBY:
            try:
                await session.leave(user.id)
            except BotError:
                if session.status is not Status.PLAYING:
                    raise
                # the game started while this waited for the lobby: leave the game instead
            else:
                await interaction.response.send_message(tr("{name} left the lobby.",
                                                           name=tr.name(user.display_name)))
                await self.bot.sessions.publish(session)  # the lobby, owed by the commit
                return
        seat = await takeover.hand_to_ai(session, user.id)
        await interaction.response.send_message(tr(
            "{name} left the game: an AI plays their seat now. {cmd_hand} takes it back.",
            name=tr.name(session.seats[seat].name)))
        await self.bot.sessions.publish(session)

    # ---- the watchdog's messages (bot.timers.Announcer) ------------------
    async def remind(self, session: Session, seat: int, seconds_left: int | None) -> None:
        """The ping was committed with the reminder (note_payload): deliver it (in the
        channel's own task: the timers never wait on the channel)."""
        await self.bot.sessions.publish(session, wait=False)

    async def timed_out(
        self, session: Session, seat: int, events: list[Event], handed_over: bool
    ) -> None:
        """The note was committed with the default action; the watchdog delivers it."""

    async def lobby_expired(self, session: Session) -> None:
        tr = public_tr(session)
        await self._edit_lobby(session, tr.plural(
            "Nobody started this game within {n} minute: the lobby expired.",
            "Nobody started this game within {n} minutes: the lobby expired.",
            round(LOBBY_TTL / 60)))

    async def abandoned_idle(self, session: Session) -> None:
        """The note and the closed table were committed with the end: deliver them."""
        await self.bot.sessions.publish(session, wait=False)

    # ---- lost channels ---------------------------------------------------
    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        session = self.bot.sessions.get(channel.id)
        if session is not None:
            await lose_channel(self.bot, session)

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        session = self.bot.sessions.get(payload.thread_id)
        if session is not None:
            await lose_channel(self.bot, session)

    # ---- helpers ---------------------------------------------------------
    async def _edit_lobby(self, session: Session, closed: str | None) -> None:
        if session.lobby_message_id is None:
            return
        payload = lobby_payload(public_tr(session), session, closed=closed)
        channel = self.bot.get_partial_messageable(session.channel_id, guild_id=session.guild_id)
        try:
            await channel.get_partial_message(session.lobby_message_id).edit(
                **payload.kwargs(edit=True))
        except discord.HTTPException:
            log.info("could not update the lobby %s", session.lobby_message_id)


async def setup(bot: LamaBot) -> None:
    await bot.add_cog(Liveness(bot))
