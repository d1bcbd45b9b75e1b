"""Pings and their folds: a ping is never deleted while it mentions anyone.

Once its turn is over a ping is folded into a short line without the mention (no ghost
notification). Answered pings leave one such line per round: the latest is folded into a
line naming everyone pinged then played this round, and the round's earlier line (folded
already, its mention long gone, its player having answered it) is deleted. The composer
(cogs/compose.py) owes the fold; the courier (cogs/posts.py) posts the ping and keeps its
message here to fold it.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.sessions.outbox import Owed
from bot.sessions.sessions import Session, Status
from bot.words.i18n import Translator
from cogs.bodies import payload_body, payload_from_body
from cogs.render import Payload

log = logging.getLogger(__name__)

MAX_PINGS_KEPT = 1000


class Pings:
    """The pings half of :class:`cogs.posts.Posts`: the messages of pings and of their folds
    (``_retire`` is :class:`cogs.table_posts.TablePosts`'s)."""

    _pings: dict[str, int]  # a ping's nonce -> its message (to fold it)
    _traces: dict[str, int]  # a folded ping's nonce -> its message (to retire)

    def _keep_ping(self, item: Owed, session: Session | None, message_id: int) -> None:
        """A ping just posted: its message, kept to fold it once its turn is over."""
        self._pings[item.nonce] = message_id
        while len(self._pings) > MAX_PINGS_KEPT:
            del self._pings[next(iter(self._pings))]
        ping = session.timers.ping if session is not None else None
        if ping is not None and ping.get("nonce") == item.nonce:
            ping["message"] = message_id  # saved with the next write

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
