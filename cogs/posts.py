"""What the channel is shown: the outbox's composer and courier (bot/sessions/outbox.py).

A committed change owes the table, the round summaries, notes and pings, the lobby, the
final table and standings (composed by cogs/compose.py); this module delivers them: events
(the standings with their chart and record), the lobby, and the dispatch to the table's
courier (cogs/table_posts.py) and the pings' folds (cogs/pings.py). The owed bodies are
plain data (cogs/bodies.py).
"""

from __future__ import annotations

import io
import json
import logging
from typing import TYPE_CHECKING

import discord

from bot.sessions.outbox import EVENT, ChannelGone, Owed
from bot.sessions.sessions import Session, Status
from cogs import threads
from cogs.bodies import event_payload, payload_from_body
from cogs.charts import add_chart, without_files
from cogs.common import public_tr
from cogs.compose import Composer
from cogs.direct import DirectMessages
from cogs.discord_compat import edit_by_token
from cogs.liveness import channel_gone, lose_channel
from cogs.lobby import lobby_payload
from cogs.pings import Pings
from cogs.render import Payload
from cogs.table_posts import TablePosts
from cogs.uploads import refused_upload

if TYPE_CHECKING:
    from bot.process.client import LamaBot

log = logging.getLogger(__name__)


class Posts(Composer, TablePosts, Pings):
    """Composes what a change owes the channel (cogs/compose.py), and delivers it."""

    def __init__(self, bot: LamaBot) -> None:
        self.bot = bot
        self._pings: dict[str, int] = {}  # a ping's nonce -> its message (to fold it)
        self._traces: dict[str, int] = {}  # a folded ping's nonce -> its message (to retire)
        self._frozen: dict[int, list[int]] = {}  # per channel: posts of rounds gone by
        self.direct = DirectMessages(bot)  # cogs/direct.py

    async def deliver(self, item: Owed, session: Session | None) -> int | None:
        """Show ``item``; the id of the message it made or edited. A refused channel is gone."""
        try:
            return await self._deliver(item, session)
        except discord.HTTPException as error:
            if (error.code != threads.ARCHIVED or session is None or session.parent_id is None
                    or item.channel_id != session.channel_id):
                raise
        await threads.unarchive(self.bot, item.channel_id)  # (a moderator archived it)
        return await self._deliver(item, session)

    async def _deliver(self, item: Owed, session: Session | None) -> int | None:
        try:
            if item.kind == EVENT:
                return await self._deliver_event(item, session)
            live = session if session is not None and self.bot.sessions.get(
                item.channel_id) is session else None
            if item.key == "table":
                if item.body.get("final"):
                    channel = self._channel(item.channel_id, item.guild_id)
                    return await self._final_table(channel, item, session)
                if live is not None and live.status is Status.PLAYING:
                    return await self._table(item, live)  # (by ids: no channel object)
            elif item.key == "lobby" and live is not None:
                channel = self._channel(item.channel_id, item.guild_id)
                return await self._lobby(channel, item, live)
            return None  # the session ended meanwhile: nothing left to show
        except discord.HTTPException as error:
            if channel_gone(error):
                raise ChannelGone(str(error)) from error
            raise

    async def _deliver_event(self, item: Owed, session: Session | None) -> int | None:
        if item.key in ("moved", "archive"):
            return await threads.deliver_event(self.bot, item, payload_from_body(item.body))
        if item.key == "dm":  # (never raised: a DM cannot lose the game's channel)
            return await self.direct.deliver(item, session)
        channel = self._channel(item.channel_id, item.guild_id)
        if item.key == "fold":
            return await self._fold(channel, item, session)
        return await self._event(channel, item, session)

    async def _event(self, channel: discord.PartialMessageable, item: Owed,
                     session: Session | None) -> int:
        """A posted event; the final standings with their chart, or as text where the
        channel refuses files (no Attach Files). A ping's message is kept to fold it."""
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
        if item.body.get("frozen"):  # a round's table that never had its post: retired
            self._frozen.setdefault(item.channel_id, []).append(message.id)  # by the next
        if item.body.get("ping"):
            self._keep_ping(item, session, message.id)
        return message.id

    def _may_attach(self, channel_id: int) -> bool:
        """Attach Files in this channel, as far as the cache knows (unknown: try, and fall
        back to text on Discord's refusal)."""
        channel = self.bot.get_channel(channel_id)
        if not isinstance(channel, discord.abc.GuildChannel | discord.Thread):
            return True
        me = channel.guild.me
        return me is None or channel.permissions_for(me).attach_files

    async def _lobby(self, channel: discord.PartialMessageable, item: Owed, session: Session
                     ) -> int:
        tr = public_tr(session)
        closed = threads.started_text(tr, no_thread=bool(item.body.get("no_thread"))) if (
            item.body.get("closed")) else None
        payload = lobby_payload(tr, session, closed)
        answer = item.body.get("answer")
        if session.lobby_message_id is None and answer:
            session.lobby_message_id = await self._answered(answer)
            if session.lobby_message_id is not None and len(answer) > 2:
                session.lobby_answer = (*answer[:3], session.lobby_message_id)
        if session.lobby_message_id is not None:
            try:
                await channel.get_partial_message(session.lobby_message_id).edit(
                    **payload.kwargs(edit=True))
                return session.lobby_message_id
            except discord.NotFound:
                log.info("the lobby of channel %s is gone; posting it again", session.channel_id)
        message = await channel.send(nonce=item.nonce, **payload.kwargs())
        session.lobby_message_id = message.id
        return message.id

    async def edit_lobby(self, session: Session, payload: Payload) -> bool:
        """Edit the lobby through the token of the interaction it answered (exempt from the
        global limit) while that token lives; False: not done (the channel edits it)."""
        answer = session.lobby_answer
        if (answer is None or answer[3] != session.lobby_message_id
                or self.bot.sessions.clock.now() >= answer[2]):
            return False
        try:
            await edit_by_token(self.bot, answer[0], answer[1], **payload.kwargs(edit=True))
        except discord.HTTPException:
            log.info("could not edit the lobby of channel %s through its answer's token",
                     session.channel_id, exc_info=True)
            return False
        return True

    async def channel_lost(self, channel_id: int, session: Session | None,
                           error: BaseException) -> None:
        if session is not None:
            await lose_channel(self.bot, session, error)
