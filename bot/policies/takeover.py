"""Session changes made by the bot rather than a player: defaults, AI take-over, abandoning.

A policy over sessions (it imports :mod:`bot.sessions.sessions`, never the reverse). Each
takes the session's lock and re-checks the state it was called for (a
player may have acted in between), exactly like the player-facing methods of
:class:`bot.sessions.sessions.Session`, and saves the session before returning.
"""

from __future__ import annotations

import logging
from typing import Any

from bot.policies.defaults import continues_turn, default_action
from bot.sessions.ai_players import make_player
from bot.sessions.errors import BotError
from bot.sessions.sessions import Change, Session, Status
from bot.words.i18n import N_
from game import ActionType, Event, player_view

log = logging.getLogger(__name__)

MAX_DEFAULT_STEPS = 3  # a tutorial draw, then its pass


def _alive(session: Session) -> bool:
    return session.sessions.get(session.channel_id) is session


def _hand_over(session: Session, seat: int) -> None:
    """An AI plays ``seat`` from now on (the seat keeps its user, for /lama hand)."""
    session.seats[seat].away = True
    session.players[seat] = make_player(f"{session.seed}:{seat}")
    session.timers.timeouts[seat] = 0


def _touch_table(session: Session) -> None:
    """Queue an empty change: the commit owes a redrawn table (who plays, who is pinged)."""
    session.pending.append(Change([]))


async def apply_default(
    session: Session, seat: int, key: int, hand_over_after: int
) -> tuple[list[Event], bool] | None:
    """The timed-out turn ``(seat, key)``: its default action(s); maybe an AI takes the seat.

    Returns the events and whether the seat was handed to an AI, or None when the
    turn is not the one that timed out any more.
    """
    async with session.lock:
        game, state = session.game, session.timers
        if (not _alive(session) or session.status is not Status.PLAYING or game is None
                or game.to_act != seat or len(game.history) != key
                or session.seats[seat].is_ai):
            state.clear_turn()
            return None
        events: list[Event] = []
        state.defaulting = True
        try:
            for _ in range(MAX_DEFAULT_STEPS):
                action = default_action(player_view(game, seat))
                if action is None:
                    break
                events += await session._apply(game, seat, action)
                if game.finished or session.status is not Status.PLAYING:
                    break
                if not (continues_turn(action) and game.to_act == seat and any(
                        a.type is ActionType.PASS for a in game.legal_actions())):
                    break
        finally:
            state.defaulting = False
        if not events:
            state.clear_turn()
            return None
        if session.status is Status.PLAYING:
            state.timeouts[seat] = state.timeouts.get(seat, 0) + 1
            if state.timeouts[seat] >= hand_over_after:
                _hand_over(session, seat)
                _touch_table(session)
            session.pending.append(Change([], note=("timed_out", {
                "seat": seat, "events": events, "handed_over": session.seats[seat].away,
                "after": hand_over_after})))
            await session._changed()
        return events, session.seats[seat].away


async def mark_reminded(session: Session, seat: int | None = None,
                        seconds_left: int | None = None, *, ping: bool = False,
                        kind: str = "remind") -> bool:
    """Note that this turn's ping went out (it is not sent twice, even after a restart);
    with ``ping``, commit the ping for ``seat`` with it (``seconds_left``: None without a
    turn timer; ``kind``: ``remind``, a live game's ping, or ``nudge``, a relaxed game's
    reminder, bot/policies/relaxed.py)."""
    async with session.lock:
        if not _alive(session):
            return False
        session.timers.reminded = True
        if seat is not None and ping:
            session.pending.append(Change([], note=(kind, {"seat": seat,
                                                          "seconds": seconds_left})))
        await session.save()
        return session.timers.turn_seat is not None


async def hand_to_ai(session: Session, user_id: int) -> int:
    """``/lama leave`` during a game: an AI plays the user's seat from now on. Returns the seat."""
    async with session.lock:
        session.require_game()
        seat = session.require_seat(user_id)
        if session.seats[seat].away:
            raise BotError(N_("An AI already plays your seat. Use {cmd_hand} to take it back."))
        _hand_over(session, seat)
        _touch_table(session)
        await session._changed()
        return seat


async def take_back(session: Session, user_id: int) -> bool:
    """``/lama hand`` by a player whose seat an AI plays: they play again. False if it was not."""
    async with session.lock:
        seat = session.seat_of(user_id)
        if seat is None or session.status is not Status.PLAYING or not session.seats[seat].away:
            return False
        session.seats[seat].away = False
        session.players.pop(seat, None)
        session.timers.timeouts[seat] = 0
        session.timers.last_human_at = session.sessions.clock.now()
        _touch_table(session)
        await session._changed()
        return True


async def expire_lobby(session: Session) -> bool:
    """Close a lobby nobody started. False if it is no lobby any more."""
    async with session.lock:
        if not _alive(session) or session.status is not Status.LOBBY:
            return False
        await session.end(None)
        return True


async def abandon(session: Session, reason: str,
                  note: tuple[str, dict[str, Any]] | None = None) -> bool:
    """End a lobby or game nobody can finish; a game is recorded with no results (as /lama stop)
    and ``reason`` as its end reason (``END_IDLE``, ``END_CHANNEL_GONE``: bot/store/sql_store.py).
    ``note``: the public note (and closed table) the end owes.

    False if the session had already ended.
    """
    async with session.lock:
        if not _alive(session) or session.status not in (Status.LOBBY, Status.PLAYING):
            return False
        if note is not None:
            session.pending.append(Change([], note=note))
        await session.end(None, reason)
        return True
