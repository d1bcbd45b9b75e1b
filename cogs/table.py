"""Playing: ``/lama hand``, the My hand button and the hand's action buttons.

The hand is an ephemeral message only its owner sees; an open one follows the game
(cogs/hands.py). What the channel is shown (the table, notes, pings) is cogs/posts.py."""

from __future__ import annotations

import asyncio
import logging
import weakref
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.policies.takeover import take_back
from bot.sessions.errors import ForgedClick, GameGone, StaleButton
from bot.sessions.sessions import Session
from bot.sessions.state import Pace
from cogs.cards import event_text
from cogs.common import place
from cogs.hand_view import hand_message, quit_confirmation, symbols_shown
from cogs.hands import LiveHands
from cogs.legend import Explained
from cogs.pictures import predraw
from cogs.posts import Posts
from cogs.render import Payload
from cogs.replies import user_tr
from cogs.timely import in_time, update_message
from cogs.uploads import add_hand_picture, images_on
from game import Phase, PlayerView

if TYPE_CHECKING:
    from bot.process.client import LamaBot

log = logging.getLogger(__name__)

PREDRAWN_KEPT = 4096
"""Channels whose last predrawn state is remembered (the newest): every game running at once."""



class Table(commands.Cog):
    """Playing: the table everyone sees and the hand only its owner sees."""

    def __init__(self, bot: LamaBot) -> None:
        self.bot = bot
        self._answering: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary())
        self._command = app_commands.Command(
            name="hand", description="Show your hand (only you can see it)", callback=self.hand
        )
        self.hands = LiveHands(bot.sessions.clock)
        self._predrawn: dict[int, tuple[str, int]] = {}  # per channel: the state whose
        # pictures were last started (a move's answer, then its publish: once)
        self.explained = Explained()
        self.posts = Posts(bot)

    async def cog_load(self) -> None:
        self.bot.lama.add_command(self._command)
        outbox = self.bot.sessions.outbox
        outbox.composer, outbox.courier, outbox.on_gone = (
            self.posts.compose, self.posts.deliver, self.posts.channel_lost)
        self.bot.sessions.followers.append(self.follow_hands)
        self.bot.sessions.timers.hand_until = self.hand_until

    async def cog_unload(self) -> None:
        self.bot.lama.remove_command(self._command.name)
        outbox = self.bot.sessions.outbox
        outbox.courier = outbox.on_gone = None
        if self.follow_hands in self.bot.sessions.followers:
            self.bot.sessions.followers.remove(self.follow_hands)
        self.bot.sessions.timers.hand_until = None

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

    @staticmethod
    def from_hand(interaction: discord.Interaction) -> None:
        """A hand's buttons act only from a hand: an ephemeral message. Their answer edits
        the clicked message into the hand, and a public message must never become one."""
        message = interaction.message
        if message is None or not message.flags.ephemeral:
            raise ForgedClick()

    async def on_hand_button(self, interaction: discord.Interaction, game: str) -> None:
        """My hand. In a relaxed game it also takes back a seat an AI plays (after missed
        turns: bot/policies/relaxed.py); a live game's player uses ``/lama hand`` for that."""
        session = self.drawn_for(interaction, game)
        back = session.pace is Pace.RELAXED and await take_back(session, interaction.user.id)
        note = user_tr(interaction)("You are back in control of your seat.") if back else None
        await self._show_hand(interaction, session, note)
        if back:
            await self.bot.sessions.publish(session)

    async def _show_hand(
        self, interaction: discord.Interaction, session: Session, note: str | None = None
    ) -> None:
        clicked = self.bot.sessions.clock.now()  # (the token's life starts with the click)
        seat = session.require_seat(interaction.user.id)
        payload, view = self.render_hand(interaction, session, seat, note)
        payload = await self.pictured(interaction, session, seat, payload)
        await interaction.response.send_message(ephemeral=True, **payload.kwargs())
        self.opened(interaction, session, seat, view, clicked)

    async def on_action(
        self, interaction: discord.Interaction, game: str, version: int, action: str
    ) -> None:
        """A click on a hand's action: apply, answer by editing the hand, then the table.

        The action is saved before the answer; a slow save defers the answer (cogs.timely).
        """
        clicked = self.bot.sessions.clock.now()
        self.from_hand(interaction)
        session = self.drawn_for(interaction, game)
        tr = user_tr(interaction)
        try:
            events = await in_time(interaction, session.act(interaction.user.id, version, action))
        except StaleButton as stale:
            seat = session.require_seat(interaction.user.id)
            note = tr(stale.message)
            async with self.answering(interaction.user.id):
                payload, view = self.render_hand(interaction, session, seat, note)
                payload = await self.pictured(interaction, session, seat, payload)
                if await update_message(interaction, **payload.edit_kwargs()):
                    self.opened(interaction, session, seat, view, clicked)
            return
        seat = session.require_seat(interaction.user.id)
        self.predraw(session, interaction, seat)
        names = [s.name for s in session.seats]
        private = [e for e in events if e.private_to == seat]
        if action == "roll" and session.view(seat).phase is not Phase.RESOLVE:
            # the roll was resolved with it (its only choice): the hand says how
            private = [e for e in events if e.private_to == seat or e.seat == seat]
        note = "\n".join(t for e in private if (t := event_text(tr, e, names))) or None
        async with self.answering(interaction.user.id):
            payload, view = self.render_hand(interaction, session, seat, note)
            payload = await self.pictured(interaction, session, seat, payload, waiting_too=False)
            if await update_message(interaction, **payload.edit_kwargs()):
                self.opened(interaction, session, seat, view, clicked)
            else:  # its token is spent: this hand is not followed any more
                self.hands.drop(session.channel_id, interaction.user.id)
                self.bot.sessions.timers.arm(session)
        await self.bot.sessions.publish(session)

    async def on_ask(
        self, interaction: discord.Interaction, game: str, version: int, op: str
    ) -> None:
        """Quit asks first, in the same ephemeral; Back (or a stale ask) shows the hand."""
        clicked = self.bot.sessions.clock.now()
        self.from_hand(interaction)
        session = self.drawn_for(interaction, game)
        seat = session.require_seat(interaction.user.id)
        view = session.view(seat)
        if op == "quit" and version == session.version and view.my_turn:
            payload = quit_confirmation(user_tr(interaction), view, session.short_id,
                                        session.version)
        else:
            payload, view = self.render_hand(interaction, session, seat)
        async with self.answering(interaction.user.id):  # the same picture: kept, not redrawn
            payload = await self.pictured(interaction, session, seat, payload)
            if await update_message(interaction, **payload.edit_kwargs()):
                self.opened(interaction, session, seat, view, clicked)

    def render_hand(
        self, interaction: discord.Interaction, session: Session, seat: int, note: str | None = None
    ) -> tuple[Payload, PlayerView]:
        """A player's hand in their language, and the view it shows; the symbols it shows
        for the first time in this game are explained (cogs/legend.py)."""
        view = session.view(seat)
        legend = self.explained.new(session.channel_id, session.game_id, interaction.user.id,
                                     symbols_shown(view))
        return hand_message(user_tr(interaction), view, session.short_id, session.version,
                            note, legend), view

    def opened(self, interaction: discord.Interaction, session: Session, seat: int,
               view: PlayerView, clicked: float | None = None) -> None:
        """``interaction`` answered with the player's hand: it follows the game from now on,
        so their ping waits (bot/policies/timers.py)."""
        self.hands.answered(interaction, session, seat, view, clicked)
        self.bot.sessions.timers.arm(session)

    def hand_until(self, session: Session, seat: int) -> float | None:
        """For the watchdog: until when ``seat``'s hand follows the game (None: it does not)."""
        return self.hands.until(session.channel_id, session.seats[seat].user_id,
                                session.game_id)

    async def follow_hands(self, session: Session) -> None:
        """After a published change: open hands show what changed for their owners (one that
        could not be edited is dropped, and its owner's ping comes at once)."""
        if session.game is not None and not self.bot.is_closed():  # (closing: no more edits)
            self.predraw(session)
            await self.hands.follow(session, self.followed_hand)
            self.bot.sessions.timers.arm(session)

    async def followed_hand(self, interaction: discord.Interaction, session: Session, seat: int
                            ) -> Payload:
        """A followed hand, with its picture like an answered one."""
        payload, _ = self.render_hand(interaction, session, seat)
        async with self.answering(interaction.user.id):
            return await self.pictured(interaction, session, seat, payload)

    def predraw(self, session: Session, interaction: discord.Interaction | None = None,
                mover: int | None = None) -> None:
        """The pictures a change will show, started in worker threads as soon as it is
        decided (cogs.pictures.predraw), where the server shows pictures and the bot may
        attach files: the hand answers and edits that follow find them drawn instead of
        each waiting for its own render's trip through the event loop."""
        drawn_for = (session.game_id, session.version)
        if mover is None and self._predrawn.get(session.channel_id) == drawn_for:
            return  # its move's answer started them (a hand opened since draws its own)
        self._predrawn.pop(session.channel_id, None)
        self._predrawn[session.channel_id] = drawn_for
        while len(self._predrawn) > PREDRAWN_KEPT:  # the oldest goes
            del self._predrawn[next(iter(self._predrawn))]
        live, views = self.hands.to_draw(session, mover)
        interaction = interaction or live
        if (views and interaction is not None
                and images_on(self.bot.sessions.guild_settings, session.guild_id)
                and interaction.app_permissions.attach_files):
            predraw(views)

    def answering(self, user_id: int) -> asyncio.Lock:
        """One player's hand answers leave in the order their clicks were decided: the
        picture is rendered off the loop, which must not let a later answer overtake."""
        lock = self._answering.get(user_id)
        if lock is None:
            lock = self._answering[user_id] = asyncio.Lock()
        return lock

    async def pictured(self, interaction: discord.Interaction, session: Session, seat: int,
                       payload: Payload, waiting_too: bool = True) -> Payload:
        """The hand with its picture (cogs.pictures), where the server and Discord allow it."""
        return await add_hand_picture(payload, session.view(seat), interaction,
                                      self.bot.sessions.guild_settings, user_tr(interaction),
                                      waiting_too=waiting_too)



async def setup(bot: LamaBot) -> None:
    await bot.add_cog(Table(bot))
