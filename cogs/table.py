"""The public table, ``/lama hand`` and the My hand button, the hand's action buttons."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.errors import GameGone, StaleButton
from bot.restore import public_history, remember_messages
from bot.sessions import Change, Session, Status
from bot.takeover import take_back
from cogs.cards import event_text
from cogs.common import place, public_tr
from cogs.endings import final_standings, round_summary
from cogs.liveness import channel_gone, lose_channel
from cogs.render import Payload, hand_message, table_message
from cogs.replies import user_tr
from cogs.timely import in_time, update_message
from game import Event, EventKind, visible_to

if TYPE_CHECKING:
    from bot.client import LamaBot

log = logging.getLogger(__name__)

RECENT = 8


class Table(commands.Cog):
    """Playing: the table everyone sees and the hand only its owner sees."""

    def __init__(self, bot: LamaBot) -> None:
        self.bot = bot
        self._command = app_commands.Command(
            name="hand", description="Show your hand (only you can see it)", callback=self.hand
        )

    async def cog_load(self) -> None:
        self.bot.lama.add_command(self._command)
        self.bot.sessions.publisher = self.publish

    async def cog_unload(self) -> None:
        self.bot.lama.remove_command(self._command.name)
        self.bot.sessions.publisher = None

    # ---- the hand --------------------------------------------------------
    async def hand(self, interaction: discord.Interaction) -> None:
        """``/lama hand``; a player whose seat an AI plays takes it back (cogs.liveness)."""
        _, channel_id = place(interaction)
        session = self.bot.sessions.require(channel_id)
        back = await take_back(session, interaction.user.id)
        tr = user_tr(interaction)
        note = tr("You are back in control of your seat.") if back else None
        await self._show_hand(interaction, session, note)
        if back:
            await self.bot.sessions.publish(session)

    def drawn_for(self, interaction: discord.Interaction, game: str) -> Session:
        """The session a button acts on: this channel's (from the interaction, never from the
        custom_id), and only if it is the game the button was drawn for."""
        guild_id, channel_id = place(interaction)
        session = self.bot.sessions.get(channel_id)
        if session is None or session.guild_id != guild_id or session.short_id != game:
            raise GameGone()
        return session

    async def on_hand_button(self, interaction: discord.Interaction, game: str) -> None:
        await self._show_hand(interaction, self.drawn_for(interaction, game))

    async def _show_hand(
        self, interaction: discord.Interaction, session: Session, note: str | None = None
    ) -> None:
        seat = session.require_seat(interaction.user.id)
        payload = self.hand_payload(interaction, session, seat, note)
        await interaction.response.send_message(ephemeral=True, **payload.kwargs())

    async def on_action(
        self, interaction: discord.Interaction, game: str, version: int, action: str
    ) -> None:
        """A click on a hand's action: apply, answer by editing the hand, then the table.

        The action is saved before the answer; a slow save defers the answer (cogs.timely).
        """
        session = self.drawn_for(interaction, game)
        tr = user_tr(interaction)
        try:
            events = await in_time(interaction, session.act(interaction.user.id, version, action))
        except StaleButton as stale:
            seat = session.require_seat(interaction.user.id)
            note = tr(stale.message)
            payload = self.hand_payload(interaction, session, seat, note)
            await update_message(interaction, **payload.kwargs())
            return
        seat = session.require_seat(interaction.user.id)
        names = [s.name for s in session.seats]
        private = [e for e in events if e.private_to == seat]
        note = "\n".join(t for e in private if (t := event_text(tr, e, names))) or None
        payload = self.hand_payload(interaction, session, seat, note)
        await update_message(interaction, **payload.kwargs())
        await self.bot.sessions.publish(session)

    def hand_payload(
        self, interaction: discord.Interaction, session: Session, seat: int, note: str | None = None
    ) -> Payload:
        return hand_message(user_tr(interaction), session.view(seat), session.short_id,
                            session.version, note)

    # ---- the public table ------------------------------------------------
    async def open_table(self, session: Session) -> None:
        """The game started: post the table, then let the AIs play."""
        await self.bot.sessions.publish(session)

    def _channel(self, session: Session) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(session.channel_id, guild_id=session.guild_id)

    async def publish(self, session: Session, changes: list[Change]) -> None:
        """Render queued changes: round summaries, the table (reposted each round), the end."""
        try:
            await self._publish(session, changes)
        except discord.HTTPException as error:
            if channel_gone(error):  # deleted, or no permission any more: the game ends
                await lose_channel(self.bot, session, error)
                return
            log.exception("could not update the table in channel %s", session.channel_id)

    async def _publish(self, session: Session, changes: list[Change]) -> None:
        tr = public_tr(session)
        channel = self._channel(session)
        repost = session.table_message_id is None
        for change in changes:
            self._remember(session, visible_to(change.events, None))
            if change.before is not None and any(
                e.kind is EventKind.ROUND_OVER for e in change.events
            ):
                summary = round_summary(tr, change.events, change.before, session.view(None),
                                        change.before.round_no)
                if summary is not None:
                    await channel.send(**summary.kwargs())
                repost = True
        status = session.status  # read once: more actions may arrive while we await Discord
        if status is Status.ABANDONED:
            return
        view = session.view(None)
        users = [None if s.is_ai else s.user_id for s in session.seats]  # away: AI plays
        payload = table_message(tr, view, session.short_id, users, session.recent)
        if status is Status.FINISHED:
            payload.content, payload.mention, payload.view = None, None, discord.ui.View()
            repost = False
        elif payload.mention is not None and payload.mention != session.pinged:
            repost = True  # Discord pings on new messages only, not on edits
        session.pinged = payload.mention
        if repost:
            # retire first: a process killed before the new id is saved then finds the stored
            # table gone and posts a fresh one below any table it could not remember
            old, session.table_message_id = session.table_message_id, None
            if old is not None:
                await self._retire(channel, old)
            message = await channel.send(**payload.kwargs())
            session.table_message_id = message.id
            await remember_messages(session)  # a restart edits this table
        elif session.table_message_id is not None:
            await channel.get_partial_message(session.table_message_id).edit(**payload.kwargs())
        if status is Status.FINISHED:
            end = final_standings(tr, view, session.game_id, users)
            await channel.send(**end.kwargs())

    @staticmethod
    def _remember(session: Session, events: list[Event]) -> None:
        for event in events:
            if event.kind is EventKind.ROUND_STARTED:
                session.recent = []
            if event.kind not in (EventKind.ROUND_OVER, EventKind.GAME_OVER):
                session.recent.append(event)
        del session.recent[:-RECENT]

    @staticmethod
    async def _retire(channel: discord.PartialMessageable, message_id: int) -> None:
        """An older table goes away so the current one stays near the bottom."""
        try:
            await channel.get_partial_message(message_id).delete()
        except discord.HTTPException:
            log.info("could not delete the old table %s", message_id)

    async def refresh(self, session: Session) -> None:
        """After a restart: edit the table in place, or post it again if it is gone."""
        async with session.publish_lock:
            self._remember(session, public_history(session))
            try:
                await self._publish(session, [])
            except discord.NotFound:
                session.table_message_id = None
                await self.publish(session, [])

    async def close_table(self, session: Session, text: str) -> None:
        """After /lama stop: the table keeps its last state, without buttons or ping."""
        if session.table_message_id is None:
            return
        try:
            await self._channel(session).get_partial_message(session.table_message_id).edit(
                content=text, view=None
            )
        except discord.HTTPException:
            log.info("could not close the table %s", session.table_message_id)


async def setup(bot: LamaBot) -> None:
    await bot.add_cog(Table(bot))
