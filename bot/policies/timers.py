"""Nobody can freeze a game: turn timers, lobby expiry and idle abandonment.

A policy over sessions (it imports :mod:`bot.sessions.sessions`, never the reverse: the
sessions call it through :class:`bot.sessions.sessions.Timers`). Each session carries a
:class:`~bot.session_state.TimerState` (saved in its snapshot, so deadlines
survive a restart). :meth:`Watchdog.observe` updates it on every change of the
session, before the session is saved; :meth:`Watchdog.arm` runs one task per
session that sleeps (on the injectable :class:`~bot.clock.Clock`) until the next
deadline and then fires it. A change that only pushes the deadline back (every move does)
leaves the task asleep: it wakes at the old time, sees nothing due and sleeps on; only a
sooner deadline cancels it (a cancellation per move left a ``CancelledError``, its traceback
and frames in a cycle for the collector, about 1,900 a minute under load):

- lobby: a lobby nobody started expires ``LOBBY_TTL`` after it opened;
- notify: when a round's table is owed as a new message (game start, new round),
  :meth:`Watchdog.observe` records in ``TimerState.notified`` the human seats whose hand
  does not follow the game then (at game start: every human); that post mentions them
  (Discord notifies on new messages only; its later edits mention nobody). A table posted
  anew mid-round (too old to edit, or deleted) mentions and adds who is unfollowed then;
- remind: the one ping policy. A player whose open hand follows the game sees their turn
  there at once: one short public message mentions them only once ``ping_part`` of the turn
  time has passed (``LAMA_PING_AFTER``, default half: 60 s of a 120 s turn; with no turn
  timer, ``ping_delay`` seconds, ``LAMA_PING_DELAY``, default 60) without them acting, or
  when their hand's token stops being used. A player whose hand cannot follow the game
  (never opened, or its token too old: ``hand_until``) is pinged at once, unless the
  round's table post notified them (e.g. their token expired mid-round): then after
  ``NOTIFIED_PING_DELAY`` (10 s);
- turn: at the deadline the rule set's default action (bot/policies/defaults.py); a seat
  that timed out ``HAND_OVER_AFTER`` turns in a row is handed to an AI;
- idle: a game without a human action for ``IDLE_TTL`` is abandoned.

A relaxed game (hours per turn) has its own notes, reminder, hand-over count and idle time:
bot/policies/relaxed.py.

The Discord side (messages) is the :class:`Announcer`, set by the liveness cog.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from bot.common.clock import Clock
from bot.policies import relaxed, takeover
from bot.sessions.sessions import Session, Sessions, Status

# the turn timer's data and checks live with the session's data; re-exported here
from bot.sessions.state import DEFAULT_PING_DELAY as DEFAULT_PING_DELAY
from bot.sessions.state import DEFAULT_PING_PART as DEFAULT_PING_PART
from bot.sessions.state import DEFAULT_TURN_TIMEOUT as DEFAULT_TURN_TIMEOUT
from bot.sessions.state import MAX_TURN_TIMEOUT as MAX_TURN_TIMEOUT
from bot.sessions.state import MIN_TURN_TIMEOUT as MIN_TURN_TIMEOUT
from bot.sessions.state import NOTIFIED_PING_DELAY as NOTIFIED_PING_DELAY
from bot.sessions.state import TURN_TIMEOUT_SETTING as TURN_TIMEOUT_SETTING
from bot.sessions.state import TimerState as TimerState
from bot.sessions.state import require_turn_timeout as require_turn_timeout
from bot.sessions.state import server_turn_timeout as server_turn_timeout
from bot.sessions.state import valid_turn_timeout as valid_turn_timeout
from bot.store.sql_store import END_IDLE

if TYPE_CHECKING:
    from game import Event

log = logging.getLogger(__name__)

LOBBY_TTL = 10 * 60.0
IDLE_TTL = 30 * 60.0
HAND_OVER_AFTER = 2  # timeouts in a row before an AI takes the seat


HandUntil = Callable[["Session", int], "float | None"]
"""When a seat's open hand stops following the game (None: no open hand)."""


class Announcer(Protocol):
    """The public messages of the watchdog (implemented by the liveness cog)."""

    async def remind(self, session: Session, seat: int, seconds_left: int | None) -> None: ...

    async def timed_out(
        self, session: Session, seat: int, events: list[Event], handed_over: bool
    ) -> None: ...

    async def lobby_expired(self, session: Session) -> None: ...

    async def abandoned_idle(self, session: Session) -> None: ...


@dataclass
class _Watch:
    task: asyncio.Task[None]
    due: tuple[float, str] | None  # what the task sleeps for
    waiting: bool = True  # False while firing: then it must not be cancelled


class Watchdog:
    """One timer task per session: sleeps until the next deadline, then fires it."""

    def __init__(self, sessions: Sessions, clock: Clock,
                 ping_delay: float = DEFAULT_PING_DELAY,
                 ping_part: float = DEFAULT_PING_PART) -> None:
        self.sessions = sessions
        self.clock = clock
        self.ping_delay = ping_delay
        self.ping_part = ping_part
        self.announcer: Announcer | None = None
        self.hand_until: HandUntil | None = None  # set by the table cog (cogs/hands.py)
        self._watches: dict[int, _Watch] = {}

    # ---- bookkeeping (synchronous: called inside the session's lock) -------
    def observe(self, session: Session) -> None:
        """Bring ``session.timers`` up to date after a change; then (re)arm the task."""
        state, now = session.timers, self.clock.now()
        if state.opened_at is None:
            state.opened_at = now
        game = session.game
        if session.status is Status.PLAYING and game is not None:
            history = game.history
            if state.seen is None:
                state.seen = len(history)
            for seat, _action in history[state.seen:]:
                if not state.defaulting and not session.seats[seat].is_ai:
                    state.timeouts[seat] = 0
                    state.last_human_at = now
            state.seen = len(history)
            if state.last_human_at is None:
                state.last_human_at = now
            round_no = game.state.round_no
            if state.notified is None or state.notified.get("round") != round_no:
                # a round just dealt (its table is posted anew); otherwise (a game restored
                # from a snapshot older than the set gets one at restore,
                # bot/sessions/persistence.py:
                # nobody notified) its post notified nobody
                dealt = game.round_start == len(history)
                state.notify(round_no, self.unfollowed(session) if dealt else [], not dealt)
            seat = game.to_act
            if seat is None or session.seats[seat].is_ai:
                state.clear_turn()
            elif (seat, len(history)) != (state.turn_seat, state.turn_key):
                state.turn_seat, state.turn_key = seat, len(history)
                state.turn_started, state.reminded = now, False
            if relaxed.relaxed(session):
                relaxed.tell_turn(session)  # one mention per turn, at its start
        self.arm(session)

    def unfollowed(self, session: Session) -> list[int]:
        """The human seats whose hand does not follow the game now (never opened, another
        game's, or its token too old): a new table post notifies them. Without the table
        cog (no ``hand_until``) nobody is known to follow. A relaxed game's table notifies
        nobody: each turn has its own mention (bot/policies/relaxed.py)."""
        if relaxed.relaxed(session):
            return []
        now = self.clock.now()
        seats = []
        for index, seat in enumerate(session.seats):
            if seat.is_ai:
                continue
            until = self.hand_until(session, index) if self.hand_until is not None else None
            if until is None or until <= now:
                seats.append(index)
        return seats

    def next_due(self, session: Session) -> tuple[float, str] | None:
        """The next deadline of ``session`` and what it is, or None."""
        state = session.timers
        due: list[tuple[float, str]] = []
        if session.status is Status.LOBBY and state.opened_at is not None:
            due.append((state.opened_at + LOBBY_TTL, "lobby"))
        elif session.status is Status.PLAYING and relaxed.relaxed(session):
            if state.last_human_at is not None:
                due.append((state.last_human_at + relaxed.IDLE_TTL, "idle"))
            if state.deadline is not None:
                due.append((state.deadline, "turn"))
            remind = relaxed.remind_at(state)
            if remind is not None:
                due.append((remind, "remind"))
        elif session.status is Status.PLAYING:
            if state.last_human_at is not None:
                due.append((state.last_human_at + IDLE_TTL, "idle"))
            if state.deadline is not None:
                due.append((state.deadline, "turn"))
            until, followed = None, self.hand_until is not None
            if self.hand_until is not None and state.turn_seat is not None:
                until = self.hand_until(session, state.turn_seat)
            ping_at = state.ping_at(self.ping_part, self.ping_delay, until, followed)
            if not state.reminded and ping_at is not None:
                due.append((ping_at, "remind"))
        return min(due) if due else None

    def arm(self, session: Session) -> None:
        """Start (or restart) the session's timer task unless it is firing right now."""
        if self.sessions.get(session.channel_id) is not session:
            return
        due = self.next_due(session)
        watch = self._watches.get(session.channel_id)
        if watch is not None and not watch.task.done():
            if not watch.waiting:
                return  # it recomputes its next deadline when the firing is over
            if watch.due == due:
                return  # already sleeping until exactly that
            if due is not None and watch.due is not None and due[0] >= watch.due[0]:
                return  # later (a move pushes the turn's deadlines back): the task wakes at
                # its earlier time, finds nothing due and sleeps on, no cancellation
            watch.task.cancel()  # sooner, or nothing left: restart
        if due is None:
            self._watches.pop(session.channel_id, None)
            return
        task = asyncio.create_task(self._run(session), name=f"lama-timer-{session.channel_id}")
        self._watches[session.channel_id] = _Watch(task, due)

    def cancel(self, channel_id: int) -> None:
        """No more timers in the channel; one firing now ends after its step."""
        watch = self._watches.pop(channel_id, None)
        if watch is not None and watch.waiting and watch.task is not asyncio.current_task():
            watch.task.cancel()

    async def close(self) -> None:
        """Stop: waiting timers are cancelled; a timer firing finishes its step (a change and
        its commit are never cut in half) and stops."""
        watches = list(self._watches.values())
        self._watches.clear()
        for watch in watches:
            if watch.waiting:
                watch.task.cancel()
        await asyncio.gather(*(w.task for w in watches), return_exceptions=True)

    # ---- the task --------------------------------------------------------
    async def _run(self, session: Session) -> None:
        watch = self._watches.get(session.channel_id)
        try:
            while (due := self.next_due(session)) is not None:
                when, kind = due
                if watch is not None:
                    watch.due = due
                await self.clock.sleep_until(when)
                watch = self._watches.get(session.channel_id)
                if watch is None or watch.task is not asyncio.current_task():
                    return
                if self.next_due(session) != due:
                    continue  # re-armed for later while it slept (arm): sleep on
                watch.waiting = False
                await self._fire(session, kind)
                watch.waiting = True
                if (self._watches.get(session.channel_id) is not watch
                        or self.sessions.get(session.channel_id) is not session):
                    return  # cancelled or closed while firing
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("timer of channel %s failed", session.channel_id)
        finally:
            current = self._watches.get(session.channel_id)
            if current is not None and current.task is asyncio.current_task():
                del self._watches[session.channel_id]
            # a cancelled task keeps its CancelledError, whose traceback keeps this frame:
            # its locals must not lead back to the task (a cycle only a full collection frees)
            watch = current = None

    async def _fire(self, session: Session, kind: str) -> None:
        now, announcer = self.clock.now(), self.announcer
        if kind == "lobby":
            if await takeover.expire_lobby(session) and announcer is not None:
                await announcer.lobby_expired(session)
        elif kind == "idle":
            last = session.timers.last_human_at
            ttl = relaxed.IDLE_TTL if relaxed.relaxed(session) else IDLE_TTL
            if last is not None and now >= last + ttl and await takeover.abandon(
                    session, END_IDLE, ("idle", {})):
                log.info("channel %s: no human action for %ss; abandoned",
                         session.channel_id, ttl)
                if announcer is not None:
                    await announcer.abandoned_idle(session)
        elif kind == "remind":
            seat, deadline = session.timers.turn_seat, session.timers.deadline
            late = deadline is not None and now >= deadline  # e.g. after a restart
            seconds = None if deadline is None else round(deadline - now)
            ping = not late and seat is not None
            reminded = await takeover.mark_reminded(
                session, seat, seconds, ping=ping,
                kind="nudge" if relaxed.relaxed(session) else "remind")
            if reminded and ping and seat is not None and announcer is not None:
                await announcer.remind(session, seat, seconds)
        elif kind == "turn":
            await self._time_out(session)

    async def _time_out(self, session: Session) -> None:
        state = session.timers
        seat, key = state.turn_seat, state.turn_key
        if seat is None or key is None:
            return
        after = relaxed.HAND_OVER_AFTER if relaxed.relaxed(session) else HAND_OVER_AFTER
        outcome = await takeover.apply_default(session, seat, key, after)
        if outcome is None:
            return
        events, handed_over = outcome
        if self.announcer is not None:
            await self.announcer.timed_out(session, seat, events, handed_over)
        await self.sessions.publish(session, wait=False)  # the game never waits on the channel
