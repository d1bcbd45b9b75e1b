"""The public table, ``/lama hand`` and the My hand button, the hand's action buttons."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import weakref
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.errors import GameGone, StaleButton
from bot.outbox import EVENT, STATE, ChannelGone, Owed
from bot.sessions import Change, Session, Status
from bot.takeover import take_back
from cogs.buttons import RematchButton
from cogs.cards import event_text
from cogs.common import place, public_tr
from cogs.endings import final_standings, round_summary
from cogs.hands import LiveHands
from cogs.liveness import channel_gone, lose_channel, note_payload
from cogs.lobby import lobby_payload
from cogs.pictures import (
    add_chart,
    add_hand_picture,
    chart_body,
    images_on,
    refused_upload,
    without_files,
)
from cogs.render import Payload, hand_message, quit_confirmation, table_message
from cogs.replies import user_tr
from cogs.timely import in_time, update_message
from cogs.wire import edit_message
from game import EventKind, PlayerView, visible_to
from game.record import to_dict

if TYPE_CHECKING:
    from bot.client import LamaBot

log = logging.getLogger(__name__)

TOO_OLD_TO_EDIT = 30046  # Discord: a message older than an hour cannot be edited any more


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

    async def cog_load(self) -> None:
        self.bot.lama.add_command(self._command)
        outbox = self.bot.sessions.outbox
        outbox.composer, outbox.courier, outbox.on_gone = (self.compose, self.deliver,
                                                           self.channel_lost)
        self.bot.sessions.followers.append(self.follow_hands)

    async def cog_unload(self) -> None:
        self.bot.lama.remove_command(self._command.name)
        outbox = self.bot.sessions.outbox
        outbox.courier = outbox.on_gone = None
        if self.follow_hands in self.bot.sessions.followers:
            self.bot.sessions.followers.remove(self.follow_hands)

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
        payload, view = self.render_hand(interaction, session, seat, note)
        payload = await self.pictured(interaction, session, seat, payload)
        await interaction.response.send_message(ephemeral=True, **payload.kwargs())
        self.hands.answered(interaction, session, seat, view)

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
            async with self.answering(interaction.user.id):
                payload, view = self.render_hand(interaction, session, seat, note)
                payload = await self.pictured(interaction, session, seat, payload)
                if await update_message(interaction, **payload.edit_kwargs()):
                    self.hands.answered(interaction, session, seat, view)
            return
        seat = session.require_seat(interaction.user.id)
        names = [s.name for s in session.seats]
        private = [e for e in events if e.private_to == seat]
        note = "\n".join(t for e in private if (t := event_text(tr, e, names))) or None
        async with self.answering(interaction.user.id):
            payload, view = self.render_hand(interaction, session, seat, note)
            payload = await self.pictured(interaction, session, seat, payload, waiting_too=False)
            if await update_message(interaction, **payload.edit_kwargs()):
                self.hands.answered(interaction, session, seat, view)
            else:  # its token is spent: this hand is not followed any more
                self.hands.drop(session.channel_id, interaction.user.id)
        await self.bot.sessions.publish(session)

    async def on_ask(
        self, interaction: discord.Interaction, game: str, version: int, op: str
    ) -> None:
        """Quit asks first, in the same ephemeral; Back (or a stale ask) shows the hand."""
        session = self.drawn_for(interaction, game)
        seat = session.require_seat(interaction.user.id)
        view = session.view(seat)
        if op == "quit" and version == session.version and view.my_turn:
            payload = quit_confirmation(user_tr(interaction), view, session.short_id,
                                        session.version)
        else:
            payload, view = self.render_hand(interaction, session, seat)
        if await update_message(interaction, **payload.edit_kwargs()):
            self.hands.answered(interaction, session, seat, view)

    def render_hand(
        self, interaction: discord.Interaction, session: Session, seat: int, note: str | None = None
    ) -> tuple[Payload, PlayerView]:
        """A player's hand in their language, and the view it shows."""
        view = session.view(seat)
        return hand_message(user_tr(interaction), view, session.short_id, session.version,
                            note), view

    async def follow_hands(self, session: Session) -> None:
        """After a published change: open hands show what changed for their owners."""
        if session.game is not None:
            await self.hands.follow(session, self.followed_hand)

    async def followed_hand(self, interaction: discord.Interaction, session: Session, seat: int
                            ) -> Payload:
        """A followed hand, with its picture like an answered one."""
        payload, _ = self.render_hand(interaction, session, seat)
        async with self.answering(interaction.user.id):
            return await self.pictured(interaction, session, seat, payload)

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
                                      self.bot.sessions.guild_settings, waiting_too=waiting_too)

    # ---- what a change owes (bot.outbox composer: runs inside the commit) --------
    def compose(self, session: Session, changes: list[Change]) -> list[Owed]:
        """The round summaries (rendered now: events are posted as committed), the table
        (a state: rendered when delivered), the lobby, the final table and standings.

        The table is one message per round, edited in place as moves land; it is posted
        anew only at a new round (or when Discord refuses an edit past an hour)."""
        tr = public_tr(session)
        items: list[Owed] = []
        repost = session.table_message_id is None
        opening = False
        closing: Payload | None = None  # the note a game's abandoned table shows
        for change in changes:
            if change.note is not None:
                note = note_payload(tr, session, *change.note)
                if note is not None and change.note[0] in ("stopped", "idle"):
                    closing = note
                if note is not None and change.note[0] != "stopped":  # (stop: the answer)
                    items.append(self._owe(session, EVENT, "note", payload_body(note)))
            session.note_public(visible_to(change.events, None))
            opening = opening or (change.before is None and bool(change.events))
            if change.before is not None and any(
                e.kind is EventKind.ROUND_OVER for e in change.events
            ):
                summary = round_summary(tr, change.events, change.before, session.view(None),
                                        change.before.round_no)
                if summary is not None:
                    items.append(self._owe(session, EVENT, "summary", payload_body(summary)))
                repost = True
        status = session.status
        if status is Status.LOBBY:
            answer, session.answer = session.answer, None
            return [self._owe(session, STATE, "lobby", {"answer": answer} if answer else {})]
        if status is Status.ABANDONED:
            if closing is None or session.game is None or session.table_message_id is None:
                return items
            users = [None if s.is_ai else s.user_id for s in session.seats]
            closed = table_message(tr, session.view(None), session.short_id, users,
                                   session.recent)
            closed.content, closed.mention = closing.content, None
            return [self._owe(session, STATE, "table", {
                "final": payload_body(closed), "message_id": session.table_message_id,
                "game_id": session.game_id}), *items]
        if opening and status is Status.PLAYING:
            items.append(self._owe(session, STATE, "lobby", {"closed": "started"}))
        view = session.view(None)
        users = [None if s.is_ai else s.user_id for s in session.seats]  # away: AI plays
        if status is Status.FINISHED:
            payload = table_message(tr, view, session.short_id, users, session.recent)
            payload.content, payload.mention = None, None
            items.append(self._owe(session, STATE, "table", {
                "final": payload_body(payload), "message_id": session.table_message_id,
                "game_id": session.game_id}))
            end = final_standings(tr, view, session.game_id, users)
            body = payload_body(end)
            body["rematch"] = {"game_id": session.game_id, "label": tr("Rematch")}
            if session.game is not None:  # the whole game, every hand: fine once it is over
                body["record"] = {"name": f"lama-{session.game_id}.json",
                                  "data": to_dict(session.game)}
            if images_on(self.bot.sessions.guild_settings, session.guild_id):
                body["chart"] = chart_body(tr, view)
            items.append(self._owe(session, EVENT, "standings", body))
            return items
        items.append(self._owe(session, STATE, "table", {"repost": repost}))
        return items

    @staticmethod
    def _owe(session: Session, kind: str, key: str, body: dict[str, Any]) -> Owed:
        return Owed(session.guild_id, session.channel_id, kind, key, session.version, body)

    # ---- delivering (bot.outbox courier) ---------------------------------
    def _channel(self, channel_id: int, guild_id: int) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id, guild_id=guild_id)

    async def deliver(self, item: Owed, session: Session | None) -> int | None:
        """Show ``item``; the id of the message it made or edited. A refused channel is gone."""
        channel = self._channel(item.channel_id, item.guild_id)
        try:
            if item.kind == EVENT:
                return await self._event(channel, item)
            live = session if session is not None and self.bot.sessions.get(
                item.channel_id) is session else None
            if item.key == "table":
                if item.body.get("final"):
                    return await self._final_table(channel, item, session)
                if live is not None and live.status is Status.PLAYING:
                    return await self._table(channel, item, live)
            elif item.key == "lobby" and live is not None:
                return await self._lobby(channel, item, live)
            return None  # the session ended meanwhile: nothing left to show
        except discord.HTTPException as error:
            if channel_gone(error):
                raise ChannelGone(str(error)) from error
            raise

    async def _event(self, channel: discord.PartialMessageable, item: Owed) -> int:
        """A posted event; the final standings with their chart, or as text where the
        channel refuses files (no Attach Files)."""
        payload = event_payload(item.body)
        record = item.body.get("record")
        if record is not None and self._may_attach(item.channel_id):  # replayable with
            data = json.dumps(record["data"], ensure_ascii=False).encode()  # python -m game
            payload.files.append(discord.File(io.BytesIO(data), filename=record["name"]))
        if item.body.get("chart") and self._may_attach(item.channel_id):
            payload = await add_chart(payload, item.body["chart"])
        try:
            message = await channel.send(nonce=item.nonce, **payload.kwargs())
        except discord.HTTPException as error:
            if not payload.files or not refused_upload(error):
                raise
            log.info("no Attach Files in channel %s: standings as text", item.channel_id)
            payload = without_files(event_payload(item.body))
            message = await channel.send(nonce=item.nonce, **payload.kwargs())
        return message.id

    def _may_attach(self, channel_id: int) -> bool:
        """Attach Files in this channel, as far as the cache knows (unknown: try, and fall
        back to text on Discord's refusal)."""
        channel = self.bot.get_channel(channel_id)
        if not isinstance(channel, discord.abc.GuildChannel | discord.Thread):
            return True
        me = channel.guild.me
        return me is None or channel.permissions_for(me).attach_files

    async def _table(self, channel: discord.PartialMessageable, item: Owed, session: Session
                     ) -> int:
        tr = public_tr(session)
        users = [None if s.is_ai else s.user_id for s in session.seats]
        payload = table_message(tr, session.view(None), session.short_id, users, session.recent,
                                session.timers.deadline)
        old = session.table_message_id
        if not item.body.get("repost") and old is not None:
            try:
                await edit_message(self.bot, item.channel_id, old, **payload.kwargs())
                return old
            except discord.NotFound:
                log.info("the table of channel %s is gone; posting it again", session.channel_id)
                old = None
            except discord.HTTPException as error:
                if error.code != TOO_OLD_TO_EDIT:
                    raise
                log.info("the table of channel %s is too old to edit; posting it again",
                         session.channel_id)
        message = await channel.send(nonce=item.nonce, **payload.kwargs())
        session.table_message_id = message.id
        if stale(message, payload):  # the nonce returned a post made for an earlier state
            await message.edit(**payload.kwargs())
        if old is not None and old != message.id:
            await self._retire(channel, old)
        return message.id

    async def _final_table(
        self, channel: discord.PartialMessageable, item: Owed, session: Session | None
    ) -> int | None:
        payload = payload_from_body(item.body["final"])
        payload.view = discord.ui.View()  # no buttons any more
        message_id = item.body.get("message_id")
        if session is not None and session.game_id == item.body.get("game_id"):
            message_id = session.table_message_id or message_id  # newer: a repost under way
        if message_id is None:
            return None
        try:
            await channel.get_partial_message(message_id).edit(**payload.kwargs())
        except discord.NotFound:
            log.info("the finished table of channel %s is gone", item.channel_id)
        return message_id

    async def _lobby(self, channel: discord.PartialMessageable, item: Owed, session: Session
                     ) -> int:
        tr = public_tr(session)
        closed = tr("The game has started: see the table below.") if item.body.get(
            "closed") else None
        payload = lobby_payload(tr, session, closed)
        if session.lobby_message_id is None and item.body.get("answer"):
            session.lobby_message_id = await self._answered(item.body["answer"])
        if session.lobby_message_id is not None:
            try:
                await channel.get_partial_message(session.lobby_message_id).edit(
                    **payload.kwargs())
                return session.lobby_message_id
            except discord.NotFound:
                log.info("the lobby of channel %s is gone; posting it again", session.channel_id)
        message = await channel.send(nonce=item.nonce, **payload.kwargs())
        session.lobby_message_id = message.id
        return message.id

    async def _answered(self, answer: list[Any]) -> int | None:
        """The message that answered a new lobby's interaction before a crash, if any
        (its token lives 15 minutes; an unanswered or expired one is a 404)."""
        app_id, token = answer
        route = discord.http.Route("GET", "/webhooks/{webhook_id}/{webhook_token}/messages/"
                                   "@original", webhook_id=app_id, webhook_token=token)
        try:
            data = await self.bot.http.request(route)
        except discord.NotFound:
            return None
        except discord.HTTPException:
            log.info("could not look up the answer of a lobby", exc_info=True)
            return None
        return int(data["id"])

    async def channel_lost(self, channel_id: int, session: Session | None,
                           error: BaseException) -> None:
        if session is not None:
            await lose_channel(self.bot, session, error)

    @staticmethod
    async def _retire(channel: discord.PartialMessageable, message_id: int) -> None:
        """An older table goes away so the current one stays near the bottom."""
        try:
            await channel.get_partial_message(message_id).delete()
        except discord.HTTPException:
            log.info("could not delete the old table %s", message_id)


def stale(message: discord.Message, payload: Payload) -> bool:
    """``message`` does not show ``payload`` (a post a crashed process made earlier)."""
    shown = message.embeds[0].description if message.embeds else None
    wanted = payload.embed.description if payload.embed is not None else None
    return (message.content or None) != payload.content or shown != wanted


def payload_body(payload: Payload) -> dict[str, Any]:
    """A rendered message as plain data (kept in the outbox)."""
    return {"content": payload.content, "mention": payload.mention,
            "mentions": payload.mentions,
            "embed": payload.embed.to_dict() if payload.embed is not None else None}


def payload_from_body(body: dict[str, Any]) -> Payload:
    embed = discord.Embed.from_dict(body["embed"]) if body.get("embed") else None
    return Payload(content=body.get("content"), embed=embed, mention=body.get("mention"),
                   mentions=list(body.get("mentions") or []))


def event_payload(body: dict[str, Any]) -> Payload:
    payload = payload_from_body(body)
    rematch = body.get("rematch")
    if rematch is not None:
        payload.view = discord.ui.View(timeout=None)
        payload.view.add_item(RematchButton(rematch["game_id"], rematch["label"]))
    return payload



async def setup(bot: LamaBot) -> None:
    await bot.add_cog(Table(bot))
