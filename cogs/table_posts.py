"""Delivering the table: posted or edited through the channel, or through an interaction's
token (the Start click answered with round 1's table, and edits it while its token lives).

The table is one message per round, edited in place; posted anew at a new round, or when it
is about an hour old (Discord limits edits to older messages, error 30046). A table posted
anew notifies the humans whose hand the bot does not follow (its allowed mentions;
bot/policies/timers.py decides whom when the post is owed, cogs/notified.py renders them); a
new round dealt while the previous round's post was under way gets a post of its own. A table
found deleted is posted again under a nonce derived from the item's (Discord answers a
deleted post's nonce with Unknown Message). The tables of rounds that went by unseen are
retired once a newer table shows.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.sessions.outbox import STATE, Owed, Owing, derived_nonce
from bot.sessions.sessions import Session, Status
from bot.sessions.state import Pace
from bot.words.i18n import Translator
from cogs.bodies import payload_from_body
from cogs.common import public_tr
from cogs.discord_compat import edit_by_token, edit_message
from cogs.layout import shown_text
from cogs.lobby import pace_text
from cogs.notified import on_post, round_post_owed, told
from cogs.render import Payload, table_message

if TYPE_CHECKING:
    from bot.process.client import LamaBot

log = logging.getLogger(__name__)

TOO_OLD_TO_EDIT = 30046  # Discord: "Maximum number of edits to messages older than 1 hour"
EDITABLE_FOR = 3600.0 - 60.0  # seconds: a table this old is posted anew rather than edited
UNKNOWN_MESSAGE = 10008  # Discord: the message was deleted
TOKEN_LIFE = 15 * 60.0  # seconds an interaction's token lives (Discord)


class TablePosts:
    """The table's half of :class:`cogs.posts.Posts`' courier (and the interaction lookups
    and deletions its other deliveries share)."""

    bot: LamaBot
    _frozen: dict[int, list[int]]  # per channel: posts of rounds gone by

    def _channel(self, channel_id: int, guild_id: int) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id, guild_id=guild_id)

    def _answer_token(self, session: Session) -> list[Any] | None:
        """The Start click's token while it may edit the current table (it answered with
        it: round 1's table), else None (and it is forgotten: saved with the next write)."""
        token = session.timers.table_answer
        if token is None:
            return None
        if token[3] != session.table_message_id or self.bot.sessions.clock.now() >= token[2]:
            session.timers.table_answer = None
            return None
        return token

    def exempt(self, item: Owed, session: Owing | None) -> bool:
        """``item``'s request goes through an interaction's token, outside the global budget
        (bot.outbox draws it without a slot): an edit of the table the Start click answered
        with. (Should the token fail, the channel's edit takes its slot then.)"""
        return (item.kind == STATE and item.key == "table" and not item.body.get("repost")
                and not item.body.get("final") and isinstance(session, Session)
                and session.status is Status.PLAYING and self._answer_token(session) is not None)

    async def _edit_by_answer(self, session: Session, message_id: int, payload: Payload
                              ) -> bool:
        """Edit the table through the Start click's token while it lives; False: not done
        (no token, or refused: the channel edits it)."""
        token = self._answer_token(session)
        if token is None or token[3] != message_id:
            return False
        try:
            await edit_by_token(self.bot, token[0], token[1], **payload.kwargs(edit=True))
        except discord.HTTPException as error:
            if error.code == UNKNOWN_MESSAGE:
                raise  # (the table is gone: posted again, as after the channel's refusal)
            log.info("could not edit the table of channel %s through the Start click's token",
                     session.channel_id, exc_info=True)
            session.timers.table_answer = None
            return False
        return True

    @staticmethod
    def _table_payload(tr: Translator, session: Session) -> Payload:
        """The public table as it stands (no hand: the public view)."""
        users = [None if s.is_ai else s.user_id for s in session.seats]
        payload = table_message(tr, session.view(None), session.short_id, users, session.recent,
                                session.timers.deadline)
        if session.pace is Pace.RELAXED and payload.embed is not None:
            payload.embed.set_footer(text=f"{payload.embed.footer.text} · {pace_text(tr, session)}")
        return payload

    async def _table(self, item: Owed, session: Session) -> int:
        """The table, edited in place (by ids: no channel object is made for it); posted
        anew when it must be."""
        tr = public_tr(session)
        payload = self._table_payload(tr, session)
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
        answer = item.body.get("answer")
        if repost and old is None and answer is not None:  # (its click may have shown it)
            found = await self._answered(answer, not_id=answer[2])
            if found is not None:
                old, repost = self._adopt(session, found, answer), False
        posted = session.timers.table_posted
        aged = posted is not None and self.bot.sessions.clock.now() - posted >= EDITABLE_FOR
        if aged and not repost and old is not None:
            log.info("the table of channel %s is an hour old; posting it again",
                     session.channel_id)
        elif not repost and old is not None:
            try:
                if not await self._edit_by_answer(session, old, payload):
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

    def _adopt(self, session: Session, message_id: int, answer: list[Any]) -> int:
        """The Start click answered with the table (found after a crash, or an answer that
        raised though Discord made it): it is the round's post, mentions included."""
        log.info("the table of channel %s was the Start click's answer", session.channel_id)
        session.table_message_id = message_id
        # (found only while the click's token lives: it is no older than that)
        session.timers.table_posted = self.bot.sessions.clock.now() - TOKEN_LIFE
        session.timers.table_answer = _token_of(answer, message_id)
        first = round_post_owed(session)
        if first is not None:
            told(session, first, False, self.bot.sessions.timers)  # (saved with the next write)
        return message_id

    def opening_table(self, session: Session) -> tuple[Payload, dict[str, Any] | None]:
        """The game's first table as the Start click's answer shows it (a new message: it
        notifies as the channel's post would); the round's mentions, to pass to
        :meth:`table_answered`."""
        tr = public_tr(session)
        payload = self._table_payload(tr, session)
        return payload, on_post(tr, session, payload, self.bot.sessions.timers)

    def table_answered(self, session: Session, first: dict[str, Any] | None, message_id: int,
                       sent_at: float, answer: list[Any]) -> None:
        """The Start click's answer is the table (marks saved with the next write); its
        edits go through the click's token while it lives (:meth:`exempt`)."""
        session.table_message_id = message_id
        session.timers.table_posted = sent_at
        session.timers.table_answer = _token_of(answer, message_id)
        if first is not None and first is session.timers.notified:
            told(session, first, False, self.bot.sessions.timers)

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

    async def _answered(self, answer: list[Any], not_id: int | None = None) -> int | None:
        """The message that answered an interaction before a crash, if any (its token lives
        15 minutes; an unanswered or expired one is a 404). ``not_id``: the clicked message,
        which a click's deferred or updating answer leaves as its original: not an answer."""
        app_id, token = answer[0], answer[1]
        route = discord.http.Route("GET", "/webhooks/{webhook_id}/{webhook_token}/messages/"
                                   "@original", webhook_id=app_id, webhook_token=token)
        try:
            data = await self.bot.http.request(route)
        except discord.NotFound:
            return None
        except discord.HTTPException:
            log.info("could not look up the answer of an interaction", exc_info=True)
            return None
        found = int(data["id"])
        return None if found == not_id else found

    @staticmethod
    async def _retire(channel: discord.PartialMessageable, message_id: int) -> None:
        """An older table goes away so the current one stays near the bottom."""
        try:
            await channel.get_partial_message(message_id).delete()
        except discord.HTTPException:
            log.info("could not delete the old table %s", message_id)


def _token_of(answer: list[Any], message_id: int) -> list[Any] | None:
    """What edits the table through the Start click's answer: app id, token, until, the
    table (None from an owed row written before the answer carried its time)."""
    return [answer[0], answer[1], answer[3], message_id] if len(answer) > 3 else None


def stale(message: discord.Message, payload: Payload) -> bool:
    """``message`` does not show ``payload`` (a post a crashed process made earlier)."""
    card = payload.layout()
    if card is not None:  # (V2: its text displays; a post made before the upgrade differs)
        return shown_text(message) != "\n".join(card.texts())
    return (message.content or None) != payload.content or bool(message.embeds)
