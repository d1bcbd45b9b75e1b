"""Relaxed games (issue 31): turns of hours or days, and the notifications people chose.

A policy over sessions, called by the watchdog (bot/policies/timers.py) for a session whose
pace is :attr:`~bot.sessions.state.Pace.RELAXED`; a live game keeps the live ping policy.

- the start of each human turn owes one note in the game's channel mentioning the player
  (``turn``), committed with the change that began the turn, so it is posted once, even
  across a restart (``TimerState.told`` holds the turn it was owed for); with it, a direct
  message if the player opted in (bot/sessions/user_prefs.py), delivered by the outbox
  after the note, never by the game's own code path (cogs/posts.py re-checks the choice and
  that the turn is still theirs when it is sent);
- one reminder (``nudge``) once a quarter of the turn's time is left, unless the turn is over
  (fired by the watchdog, marked in the same commit: ``TimerState.reminded``; a reminder due
  while the bot was down goes out once after the restart, if the turn is still running);
- a missed turn is played by the bot (the rule set's default, as in a live game); after
  :data:`HAND_OVER_AFTER` missed turns in a row an AI takes the seat until the player
  presses My hand;
- a game is abandoned only after :data:`IDLE_TTL` without a human action (a live game: 30
  minutes).
"""

from __future__ import annotations

from bot.sessions.sessions import Change, Session
from bot.sessions.state import Pace, TimerState

HAND_OVER_AFTER = 3  # missed turns in a row before an AI takes the seat
REMIND_LEFT = 0.25  # the reminder goes when this part of the turn is left
IDLE_TTL = 30 * 24 * 3600.0  # seconds without a human action before the game is abandoned


def relaxed(session: Session) -> bool:
    return session.pace is Pace.RELAXED


def tell_turn(session: Session) -> None:
    """The turn just timed began: owe its one mention (and DM) unless it was owed already
    (caller holds the lock, before the commit)."""
    state = session.timers
    seat, key = state.turn_seat, state.turn_key
    if seat is None or key is None or state.told == key or state.deadline is None:
        return
    state.told = key
    user_id = session.seats[seat].user_id
    dm = session.sessions.dm_prefs.wants(user_id)
    session.pending.append(Change([], note=("turn", {
        "seat": seat, "user": user_id, "key": key, "deadline": round(state.deadline),
        "dm": dm})))


def remind_at(state: TimerState) -> float | None:
    """When this turn's reminder is due (None: no human turn, or it went out)."""
    deadline = state.deadline
    if deadline is None or state.reminded:
        return None
    return deadline - REMIND_LEFT * state.turn_timeout
