"""What the channel is shown: the outbox's composer and courier (bot/sessions/outbox.py).

A committed change owes the table (one message per round, edited in place; posted
anew at a new round, or when it is about an hour old: Discord limits edits to older
messages, error 30046), the round summaries, notes and pings, the lobby, the final
table and standings. A table posted anew notifies the humans whose hand the bot does not
follow (its allowed mentions; bot/policies/timers.py decides whom when the post is owed,
cogs/notified.py renders them); a new round dealt while the previous round's post was under
way gets a post of its own. A table found deleted is posted again under a nonce derived from
the item's (Discord answers a deleted post's nonce with Unknown Message). A ping is never
deleted while it mentions anyone: once its turn is over it is folded into a short line
without the mention (no ghost notification). Answered pings leave one such line per round:
the latest is folded into a line naming everyone pinged then played this round, and the
round's earlier line (folded already, its mention long gone, its player having answered it)
is deleted.
"""

from __future__ import annotations

import io
import json
import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.sessions.outbox import EVENT, STATE, ChannelGone, Owed, derived_nonce
from bot.sessions.sessions import Change, Session, Status
from bot.sessions.state import Pace
from bot.words.i18n import Translator
from cogs import threads
from cogs.buttons import RematchButton
from cogs.charts import add_chart, chart_body, without_files
from cogs.common import public_tr
from cogs.direct import DirectMessages, dm_body
from cogs.discord_compat import edit_message
from cogs.endings import final_standings, round_summary
from cogs.layout import shown_text
from cogs.liveness import channel_gone, lose_channel, note_payload
from cogs.lobby import lobby_payload, pace_text
from cogs.notified import on_post, round_post_owed, told
from cogs.render import Components, Payload, table_message
from cogs.uploads import images_on, refused_upload
from game import EventKind, PlayerView, visible_to
from game.record import to_dict

if TYPE_CHECKING:
    from bot.process.client import LamaBot

log = logging.getLogger(__name__)

TOO_OLD_TO_EDIT = 30046  # Discord: "Maximum number of edits to messages older than 1 hour"
EDITABLE_FOR = 3600.0 - 60.0  # seconds: a table this old is posted anew rather than edited
MAX_PINGS_KEPT = 1000


class Posts:
    """Composes what a change owes the channel, and delivers it."""

    def __init__(self, bot: LamaBot) -> None:
        self.bot = bot
        self._pings: dict[str, int] = {}  # a ping's nonce -> its message (to fold it)
        self._traces: dict[str, int] = {}  # a folded ping's nonce -> its message (to retire)
        self._frozen: dict[int, list[int]] = {}  # per channel: posts of rounds gone by
        self.direct = DirectMessages(bot)  # cogs/direct.py

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
        previous: tuple[int, dict[str, Any]] | None = None  # a round's last table (freezes)
        fold = fold_ping(tr, session)
        if fold is not None and not (fold["fold"]["message"] is None and fold["fold"]["nonce"]
                                     and self.bot.sessions.outbox.void(session.channel_id,
                                                                       fold["fold"]["nonce"])):
            items.append(self._owe(session, EVENT, "fold", fold))  # (a ping not out yet
            # when its turn ended is never posted: no notification for nothing, no trace)
        for change in changes:
            if change.note is not None:
                note = note_payload(tr, session, *change.note)
                if note is not None and change.note[0] in ("stopped", "idle"):
                    closing = note
                if note is not None and change.note[0] != "stopped":  # (stop: the answer)
                    item = self._owe(session, EVENT, "note", payload_body(note))
                    if change.note[0] == "thread_gone":  # (said where it can be read)
                        item.channel_id = session.parent_id or session.channel_id
                    if change.note[0] == "remind":  # folded into an edit once they act
                        item.body["ping"] = True
                        session.timers.ping = {
                            "seat": change.note[1]["seat"], "key": session.timers.turn_key,
                            "round": (session.game.state.round_no if session.game is not None
                                      else None),
                            "nonce": item.nonce, "message": None}
                    items.append(item)
                if change.note[0] == "turn" and change.note[1].get("dm"):
                    items.append(self._owe(session, EVENT, "dm", dm_body(tr, session,
                                                                        change.note[1])))
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
                previous = (change.before.round_no,
                            self._round_table(tr, session, change.before))
        status = session.status
        if status is Status.LOBBY:
            answer, session.answer = session.answer, None
            lobby = self._owe(session, STATE, "lobby", {"answer": answer} if answer else {})
            lobby.answering = answer is not None  # (its interaction's answer posts it: a
            # channel delivery meanwhile would post it too, the answer not made yet)
            return [lobby]
        if status is Status.ABANDONED:
            gone = any(c.note is not None and c.note[0] == "thread_gone" for c in changes)
            if session.parent_id is not None and not gone:  # stopped, idle: put away
                items.append(threads.archive(session))
            if closing is None or session.game is None or session.table_message_id is None:
                return [i for i in items if i.key != "fold"]  # (a lost channel: no edits)
            users = [None if s.is_ai else s.user_id for s in session.seats]
            closed = table_message(tr, session.view(None), session.short_id, users,
                                   session.recent)
            closed.content, closed.mention = closing.content, None
            return [self._owe(session, STATE, "table", {
                "final": payload_body(closed), "message_id": session.table_message_id,
                "game_id": session.game_id}), *items]
        if opening and status is Status.PLAYING and session.moving_from is not None:
            items.append(self._moved_lobby(tr, session))  # (in the channel it left)
        elif opening and status is Status.PLAYING:
            items.append(self._owe(session, STATE, "lobby", {"closed": "started"} | (
                {"no_thread": True} if session.no_thread else {})))
        view = session.view(None)
        users = [None if s.is_ai else s.user_id for s in session.seats]  # away: AI plays
        if status is Status.FINISHED:
            payload = table_message(tr, view, session.short_id, users, session.recent)
            payload.content = "🏁 " + tr("The game is over.")  # its buttons go too
            payload.mention = None
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
            if session.parent_id is not None:  # a game in a thread: its channel hears too,
                items += [threads.parent_standings(tr, session, body),  # and the thread is
                          threads.archive(session)]  # put away after its standings
            return items
        if all(c.note is not None and c.note[0] in ("remind", "nudge") and not c.events
               for c in changes):
            return items  # a ping changes nothing on the table
        table = self._owe(session, STATE, "table", {
            "repost": repost, "replaces": session.table_message_id,
            "round": session.game.state.round_no if session.game is not None else None})
        if previous is not None:  # (the round before keeps a table if its post never went)
            table.body["previous_round"], table.body["previous"] = previous
        items.append(table)
        return items

    @staticmethod
    def _moved_lobby(tr: Translator, session: Session) -> Owed:
        """The lobby in the channel its game left, started, with a link to the game's
        thread (the Start click's answer shows it; else that channel's delivery)."""
        payload = threads.moved_payload(
            lobby_payload(tr, session, threads.started_text(tr, moved=True)), tr, session)
        body = {**payload_body(payload), "message_id": session.lobby_message_id}
        return threads.owe(session, session.parent_id or session.channel_id, "moved", body)

    @staticmethod
    def _round_table(tr: Translator, session: Session, before: PlayerView) -> dict[str, Any]:
        """The table of a round that just ended, as it stood before its last move (posted
        only if the round's own post never went out: bot.outbox.freezes); no buttons, no
        turn line, it mentions nobody."""
        users = [None if s.is_ai else s.user_id for s in session.seats]
        payload = table_message(tr, before, session.short_id, users, session.recent)
        payload.content, payload.mention, payload.mentions = None, None, []
        return payload_body(payload)

    @staticmethod
    def _owe(session: Session, kind: str, key: str, body: dict[str, Any]) -> Owed:
        return Owed(session.guild_id, session.channel_id, kind, key, session.version, body)

    # ---- delivering (bot.outbox courier) ---------------------------------
    def _channel(self, channel_id: int, guild_id: int) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id, guild_id=guild_id)

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
            self._pings[item.nonce] = message.id
            while len(self._pings) > MAX_PINGS_KEPT:
                del self._pings[next(iter(self._pings))]
            ping = session.timers.ping if session is not None else None
            if ping is not None and ping.get("nonce") == item.nonce:
                ping["message"] = message.id  # saved with the next write
        return message.id

    async def _fold(self, channel: discord.PartialMessageable, item: Owed,
                    session: Session | None) -> int | None:
        """The pinged player's turn is over: their ping becomes a short line without the
        mention (a ping is never deleted: Discord would leave a ghost notification)."""
        fold = item.body["fold"]
        message_id = fold.get("message") or self._pings.pop(fold.get("nonce"), None)
        if message_id is None:
            log.info("the ping to fold in channel %s is unknown; left as it is",
                     item.channel_id)
            return None
        try:
            await channel.get_partial_message(message_id).edit(
                **payload_from_body(item.body).edit_kwargs())
        except discord.NotFound:
            log.info("the ping %s of channel %s is gone", message_id, item.channel_id)
        trace = session.timers.trace if session is not None else None
        if trace is not None and trace.get("nonce") == fold.get("nonce"):
            trace["message"] = message_id  # saved with the next write
        if fold.get("nonce"):
            self._traces[fold["nonce"]] = message_id
            while len(self._traces) > MAX_PINGS_KEPT:
                del self._traces[next(iter(self._traces))]
        retire = fold.get("retire")
        if retire is not None:  # the round's earlier line: this one names its players too
            old = retire.get("message") or self._traces.get(retire.get("nonce"))
            self._traces.pop(retire.get("nonce"), None)
            if old is not None and old != message_id:
                await self._retire(channel, old)
        return message_id

    def _may_attach(self, channel_id: int) -> bool:
        """Attach Files in this channel, as far as the cache knows (unknown: try, and fall
        back to text on Discord's refusal)."""
        channel = self.bot.get_channel(channel_id)
        if not isinstance(channel, discord.abc.GuildChannel | discord.Thread):
            return True
        me = channel.guild.me
        return me is None or channel.permissions_for(me).attach_files

    async def _table(self, item: Owed, session: Session) -> int:
        """The table, edited in place (by ids: no channel object is made for it); posted
        anew when it must be."""
        tr = public_tr(session)
        users = [None if s.is_ai else s.user_id for s in session.seats]
        payload = table_message(tr, session.view(None), session.short_id, users, session.recent,
                                session.timers.deadline)
        if session.pace is Pace.RELAXED and payload.embed is not None:
            payload.embed.set_footer(text=f"{payload.embed.footer.text} · {pace_text(tr, session)}")
        old = session.table_message_id
        nonce = item.nonce
        # posted only while the table is still the one the repost replaces: once that post
        # was made (by an item this one replaced, under delivery when this was owed), edit it
        repost = item.body.get("repost") and (old is None or old == item.body.get(
            "replaces", old))
        owed = round_post_owed(session)  # (this round's post is not out yet)
        if (not repost and item.body.get("repost") and owed is not None
                and item.body.get("nonce_round", owed["round"]) != owed["round"]):
            # the post its nonce stands for was made for the round before (under way when
            # this round was dealt): this round's own post (it notifies), under its own nonce
            repost, nonce = True, derived_nonce(item.nonce, f"round {owed['round']}")
        posted = session.timers.table_posted
        aged = posted is not None and self.bot.sessions.clock.now() - posted >= EDITABLE_FOR
        if aged and not repost and old is not None:
            log.info("the table of channel %s is an hour old; posting it again",
                     session.channel_id)
        elif not repost and old is not None:
            try:
                await edit_message(self.bot, item.channel_id, old,
                                   **payload.kwargs(edit=True))
                return old
            except discord.NotFound:
                log.info("the table of channel %s is gone; posting it again", session.channel_id)
                # (not under this item's nonce: it may be the deleted post's, which Discord
                # answers with Unknown Message for minutes; the same for every retry)
                nonce, old = derived_nonce(item.nonce, f"gone {old}"), None
            except discord.HTTPException as error:
                if error.code != TOO_OLD_TO_EDIT:
                    raise
                log.info("the table of channel %s is too old to edit; posting it again",
                         session.channel_id)
        sent_at = self.bot.sessions.clock.now()  # (Discord dates it on arrival: not later)
        first = on_post(tr, session, payload, self.bot.sessions.timers)
        channel = self._channel(item.channel_id, item.guild_id)
        message = await channel.send(nonce=nonce, **payload.kwargs())
        session.table_message_id = message.id
        session.timers.table_posted = sent_at  # saved with the next write
        found = stale(message, payload)  # the nonce returned a post made for an earlier state
        if first is not None and first is session.timers.notified:  # (not a newer round's)
            told(session, first, found, self.bot.sessions.timers)  # saved with the next write
        if found:
            payload.mentions = []  # (an edit notifies nobody; it pings nobody either)
            await message.edit(**payload.kwargs(edit=True))
        if old is not None and old != message.id:
            await self._retire(channel, old)
        await self._retire_frozen(channel, item.channel_id)
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
            await channel.get_partial_message(message_id).edit(**payload.kwargs(edit=True))
        except discord.NotFound:
            log.info("the finished table of channel %s is gone", item.channel_id)
        await self._retire_frozen(channel, item.channel_id)
        return message_id

    async def _retire_frozen(self, channel: discord.PartialMessageable, channel_id: int
                             ) -> None:
        """The tables of rounds that went by unseen go once a newer table is shown."""
        for message_id in self._frozen.pop(channel_id, []):
            await self._retire(channel, message_id)

    async def _lobby(self, channel: discord.PartialMessageable, item: Owed, session: Session
                     ) -> int:
        tr = public_tr(session)
        closed = threads.started_text(tr, no_thread=bool(item.body.get("no_thread"))) if (
            item.body.get("closed")) else None
        payload = lobby_payload(tr, session, closed)
        if session.lobby_message_id is None and item.body.get("answer"):
            session.lobby_message_id = await self._answered(item.body["answer"])
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


def fold_ping(tr: Translator, session: Session) -> dict[str, Any] | None:
    """What the turn's ping becomes once that turn is over (None: no ping to fold yet).

    It says whether the player acted themselves or not (timed out, left, game ended)."""
    ping, state = session.timers.ping, session.timers
    if ping is None:
        return None
    seat, key = ping["seat"], ping["key"]
    game = session.game
    if (session.status is Status.PLAYING and game is not None
            and (state.turn_seat, state.turn_key) == (seat, key)):
        return None  # still their turn
    state.ping = None
    name = tr.name(session.seats[seat].name)
    acted = (game is not None and key is not None and len(game.history) > key
             and game.history[key][0] == seat and not state.defaulting)  # (the watchdog's)
    fold: dict[str, Any] = {"nonce": ping.get("nonce"), "message": ping.get("message")}
    if not acted:
        text = tr("⏰ {name} was pinged; that turn is over.", name=name)
    else:  # one line per round of answered pings: this one, naming the round's earlier too
        round_no, trace = ping.get("round"), state.trace
        seats = [seat]
        if trace is not None and round_no is not None and trace.get("round") == round_no:
            seats = [s for s in trace["seats"] if s != seat] + [seat]
            fold["retire"] = {"nonce": trace.get("nonce"), "message": trace.get("message")}
        state.trace = {"round": round_no, "seats": seats, "nonce": fold["nonce"],
                       "message": fold["message"]}
        text = tr("⏰ {name} was pinged, then played.", name=name) if len(seats) == 1 else tr(
            "⏰ Pinged this round, then played: {names}.",
            names=tr.join([tr.name(session.seats[s].name) for s in seats]))
    body = payload_body(Payload(content=text))
    body["fold"] = fold
    return body


def stale(message: discord.Message, payload: Payload) -> bool:
    """``message`` does not show ``payload`` (a post a crashed process made earlier)."""
    card = payload.layout()
    if card is not None:  # (V2: its text displays; a post made before the upgrade differs)
        return shown_text(message) != "\n".join(card.texts())
    return (message.content or None) != payload.content or bool(message.embeds)


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
        buttons = discord.ui.View(timeout=None)
        buttons.add_item(RematchButton(rematch["game_id"], rematch["label"]))
        payload.view = Components.of(buttons)
    return payload
