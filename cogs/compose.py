"""What a committed change owes the channel: the outbox's composer (bot/sessions/outbox.py).

It runs inside the commit, so it only decides and renders what must not wait: the round
summaries, notes, pings and their folds (cogs/pings.py), direct messages, the lobby, the
final table and standings. The table itself is owed as a state, rendered when delivered
(cogs/table_posts.py): one message per round, edited in place, posted anew at a new round.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bot.sessions.outbox import EVENT, STATE, Owed
from bot.sessions.sessions import Change, Session, Status
from bot.words.i18n import Translator
from cogs import threads
from cogs.bodies import payload_body
from cogs.charts import chart_body
from cogs.common import public_tr
from cogs.direct import dm_body
from cogs.endings import final_standings, round_summary
from cogs.liveness import note_payload
from cogs.lobby import lobby_payload
from cogs.pings import fold_ping
from cogs.render import Payload, table_message
from cogs.uploads import images_on
from game import EventKind, PlayerView, visible_to
from game.record import to_dict

if TYPE_CHECKING:
    from bot.process.client import LamaBot


class Composer:
    """The composing half of :class:`cogs.posts.Posts` (its courier delivers what this owes)."""

    bot: LamaBot

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
        answer, session.answer = session.answer, None  # (the Start click's, cogs/lobby.py)
        if answer is not None and opening and repost and session.moving_from is None:
            table.body["answer"] = list(answer)  # its answer shows this table, or is looked
            table.answering = True  # up after a crash (:meth:`_answered`); the channel waits
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
