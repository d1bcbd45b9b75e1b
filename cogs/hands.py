"""Open hands follow the game: one click per move.

A player's hand is an ephemeral message; only its interaction's webhook token
can edit it, and only for 15 minutes after the click that made or last edited
it. :class:`LiveHands` keeps, per player, the latest interaction that answered
with their hand and when they clicked. After each published change, a hand
whose content matters now (their turn came, a new round, their cards, the
end) is edited through that token, so the player clicks their next move
directly instead of pressing My hand again. A token is used up to
:data:`TOKEN_TTL` after the click (an expired one answers 401 and counts
toward Discord's invalid-request limit); after that the player presses My
hand (and the ping, bot/policies/timers.py, tells them it is their turn).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import discord

from bot.common.clock import Clock
from cogs.discord_compat import edit_original
from cogs.render import Payload

if TYPE_CHECKING:
    from bot.sessions.sessions import Session
    from game.views import PlayerView

log = logging.getLogger(__name__)

TOKEN_TTL = 14 * 60.0  # seconds: Discord's 15 minutes, less a margin
MAX_LIVE_HANDS = 5000
"""Hands followed at most (each holds its interaction): past it, the oldest click's goes (its
player presses My hand again). Hands whose token expired go as newer ones come."""

Shape = tuple[object, ...]
Render = Callable[[discord.Interaction, "Session", int], Awaitable[Payload]]


def shape(view: PlayerView, finished: bool) -> Shape:
    """What makes a hand worth editing: not other players' moves, only what changes it for
    its owner (their turn, their cards, the round, the end)."""
    return (view.round_no, view.my_turn, view.hand, view.drawn, view.roll, view.legal,
            view.finished or finished)


@dataclass
class LiveHand:
    interaction: discord.Interaction
    clicked_at: float
    game_id: str
    seat: int
    shown: Shape


class LiveHands:
    """The hands that can still be edited, per (channel, user)."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._hands: dict[tuple[int, int], LiveHand] = {}  # oldest click first
        self._users: dict[int, dict[int, None]] = {}  # per channel, in order: a move looks at
        # its own channel's hands only
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary())  # (a channel's, while a follow holds it)

    def answered(self, interaction: discord.Interaction, session: Session, seat: int,
                 view: PlayerView, clicked: float | None = None) -> None:
        """``interaction`` answered with this player's hand (its message is now theirs);
        ``clicked``: when the click came (its token's 15 minutes run from then, not from
        the answer; default now)."""
        key = (session.channel_id, interaction.user.id)
        self._users.setdefault(key[0], {})[key[1]] = None
        self._hands.pop(key, None)  # (re-inserted: the newest click; the older one was let go
        # of when it was answered: cogs.discord_compat.let_go)
        self._hands[key] = LiveHand(interaction, self.clock.now() if clicked is None else clicked,
                                    session.game_id, seat, shape(view, False))
        self._prune()

    def _prune(self) -> None:
        """Drop the oldest hands while their token has expired or there are too many (games
        that ended without following them, players who left, channels gone)."""
        now = self.clock.now()
        while self._hands:
            key, hand = next(iter(self._hands.items()))
            if len(self._hands) <= MAX_LIVE_HANDS and now - hand.clicked_at < TOKEN_TTL:
                return
            self.drop(*key)

    def __len__(self) -> int:
        return len(self._hands)

    def live(self, channel_id: int, user_id: int) -> bool:
        hand = self._hands.get((channel_id, user_id))
        return hand is not None and self.clock.now() - hand.clicked_at < TOKEN_TTL

    def until(self, channel_id: int, user_id: int | None, game_id: str) -> float | None:
        """Until when this player's open hand of ``game_id`` follows the game (None: it
        does not: never opened, another game's, or its token spent)."""
        hand = self._hands.get((channel_id, user_id)) if user_id is not None else None
        if hand is None or hand.game_id != game_id:
            return None
        return hand.clicked_at + TOKEN_TTL

    def to_draw(self, session: Session, mover: int | None = None
                ) -> tuple[discord.Interaction | None, list[PlayerView]]:
        """The hands this change will show, for their pictures to be drawn before anything
        is sent (cogs.pictures.predraw), and a live interaction of the channel (whose
        permissions say whether pictures may be attached there; None: no hand is open).

        A followed hand whose shape changed (what :meth:`follow` edits next); a seat whose
        hand is not open, when it is their turn or a round starts (they are pinged, or
        notified, and open it); ``mover``'s own hand only if the turn stays theirs (its
        answer draws nothing else)."""
        if session.game is None:
            return None, []
        now = self.clock.now()
        live: discord.Interaction | None = None
        views: list[PlayerView] = []
        for seat, player in enumerate(session.seats):
            if player.is_ai or player.user_id is None:
                continue
            view = session.view(seat)
            hand = self._hands.get((session.channel_id, player.user_id))
            if hand is not None and (hand.game_id != session.game_id
                                     or now - hand.clicked_at >= TOKEN_TTL):
                hand = None
            if hand is not None:
                live = hand.interaction
            if seat == mover:
                due = view.my_turn
            elif hand is not None:
                due = shape(view, view.finished) != hand.shown
            else:
                due = view.my_turn or len(view.seen) <= 1
            if due:
                views.append(view)
        return live, views

    async def follow(self, session: Session, render: Render) -> int:
        """Edit every live hand of ``session`` whose shape changed; the number edited (a hand
        that could not be edited is dropped: the caller re-arms the ping,
        bot/policies/timers.py)."""
        lock = self._locks.get(session.channel_id)
        if lock is None:
            lock = self._locks[session.channel_id] = asyncio.Lock()
        edited = 0
        async with lock:
            now = self.clock.now()
            for user in list(self._users.get(session.channel_id, ())):
                key = (session.channel_id, user)
                hand = self._hands.get(key)
                if hand is None:
                    continue
                if hand.game_id != session.game_id or now - hand.clicked_at >= TOKEN_TTL:
                    self.drop(*key)  # another game, or the token is too old to use
                    continue
                view = session.view(hand.seat)
                new = shape(view, session.game is None or view.finished)
                if new == hand.shown:
                    continue
                hand.shown = new
                try:
                    payload = await render(hand.interaction, session, hand.seat)
                    await edit_original(hand.interaction, **payload.edit_kwargs())
                    edited += 1
                except discord.HTTPException as error:
                    log.info("could not follow the hand of %s in channel %s (%s)", key[1],
                             key[0], error)
                    self.drop(*key)
                if view.finished:
                    self.drop(*key)
        return edited

    def drop(self, channel_id: int, user_id: int) -> None:
        self._hands.pop((channel_id, user_id), None)
        users = self._users.get(channel_id)
        if users is not None:
            users.pop(user_id, None)
            if not users:
                del self._users[channel_id]

    def forget(self, channel_id: int) -> None:
        for user in self._users.pop(channel_id, ()):
            self._hands.pop((channel_id, user), None)
