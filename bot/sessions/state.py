"""The plain data a session is made of: its status, seats, the changes it owes, its timers.

It sits below :mod:`bot.sessions.sessions`, the session's store half (bot/sessions/persistence.py),
the
outbox and the policies over sessions (bot/policies/timers.py, bot/policies/takeover.py,
bot/policies/ai_runner.py),
so each of them can import it without importing the others. ``bot.sessions.sessions`` and
``bot.policies.timers`` re-export these names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

from bot.sessions.errors import BotError
from bot.words.i18n import N_
from game import Event, PlayerView


class Pace(Enum):
    """How long a turn lasts: ``live`` (seconds to an hour, everyone at the table) or
    ``relaxed`` (hours to days: a mention at each turn, a reminder, an opt-in DM;
    bot/policies/relaxed.py). A value of the game's options, stored with the game."""

    LIVE = "live"
    RELAXED = "relaxed"


class Status(Enum):
    LOBBY = "lobby"
    PLAYING = "playing"
    FINISHED = "finished"
    ABANDONED = "abandoned"


@dataclass
class Seat:
    """A seat: a Discord user, or an AI (``user_id`` None, or ``away``: an AI plays for them)."""

    user_id: int | None
    name: str
    away: bool = False  # the user left or timed out; /lama hand takes the seat back
    difficulty: str | None = None  # an AI seat's: easy, normal, hard (None: normal)

    @property
    def is_ai(self) -> bool:
        return self.user_id is None or self.away


@dataclass(frozen=True)
class Change:
    """One accepted action's events, and the public view just before it (for round summaries)."""

    events: list[Event]
    before: PlayerView | None = None
    note: tuple[str, dict[str, Any]] | None = None  # a public note it owes (kind, params)


DEFAULT_TURN_TIMEOUT = 120
DEFAULT_PING_PART = 0.5  # of the turn time a followed hand waits before its one ping
DEFAULT_PING_DELAY = 60.0  # seconds it waits instead when the game has no turn timer
NOTIFIED_PING_DELAY = 10.0  # seconds a player the round's post told, hand not open, waits
MIN_TURN_TIMEOUT = 30
MAX_TURN_TIMEOUT = 3600
TURN_TIMEOUT_SETTING = "turn_timeout"
HOUR = 3600
DEFAULT_RELAXED_TIMEOUT = 24 * HOUR
MIN_RELAXED_TIMEOUT = HOUR
MAX_RELAXED_TIMEOUT = 7 * 24 * HOUR
MAX_RELAXED_HOURS = MAX_RELAXED_TIMEOUT // HOUR
PACE_SETTING = "pace"  # the server's default pace for new games: live | relaxed
RELAXED_HOURS_SETTING = "relaxed_hours"  # the server's relaxed turn, in hours


def require_relaxed_hours(hours: int) -> int:
    """A relaxed turn's length in hours, 1 to 168 (7 days), else a clear refusal."""
    if type(hours) is not int or not 1 <= hours <= MAX_RELAXED_HOURS:
        raise BotError(N_("A relaxed turn lasts {low} to {high} hours."),
                       low=1, high=MAX_RELAXED_HOURS)
    return hours


def parse_pace(value: str | None) -> Pace | None:
    """The pace named ``value`` (a stored setting, an option), None if it names none."""
    try:
        return Pace(value) if value is not None else None
    except ValueError:
        return None


async def server_pace(store: SettingStore, guild_id: int) -> tuple[Pace, int]:
    """The server's default pace for new games and its relaxed turn in seconds."""
    pace = parse_pace(await store.guild_setting(guild_id, PACE_SETTING)) or Pace.LIVE
    hours = await store.guild_setting(guild_id, RELAXED_HOURS_SETTING)
    try:
        seconds = require_relaxed_hours(int(hours)) * HOUR if hours is not None else None
    except (ValueError, BotError):
        seconds = None
    return pace, seconds or DEFAULT_RELAXED_TIMEOUT


def valid_turn_timeout(seconds: int) -> bool:
    """0 (no turn timer) or MIN_TURN_TIMEOUT..MAX_TURN_TIMEOUT seconds."""
    if type(seconds) is not int:  # a forged option of another type
        return False
    return seconds == 0 or MIN_TURN_TIMEOUT <= seconds <= MAX_TURN_TIMEOUT


def require_turn_timeout(seconds: int) -> int:
    """``seconds`` if valid, else a clear refusal (nothing is changed)."""
    if not valid_turn_timeout(seconds):
        raise BotError(N_("A turn timeout is 0 (no timer) or {low} to {high} seconds."),
                       low=MIN_TURN_TIMEOUT, high=MAX_TURN_TIMEOUT)
    return seconds


class SettingStore(Protocol):
    """The one thing the turn timeout needs of the store (bot/store/sqlite.py's ``Store`` is
    one): a session's plain data reads a setting and nothing else."""

    async def guild_setting(self, guild_id: int, key: str) -> str | None: ...


async def server_turn_timeout(store: SettingStore, guild_id: int) -> int:
    """The server's turn timeout (``/lama config turn_timeout``), or the default."""
    value = await store.guild_setting(guild_id, TURN_TIMEOUT_SETTING)
    try:
        seconds = int(value) if value is not None else DEFAULT_TURN_TIMEOUT
    except ValueError:
        return DEFAULT_TURN_TIMEOUT
    return seconds if valid_turn_timeout(seconds) else DEFAULT_TURN_TIMEOUT


@dataclass
class TimerState:
    """A session's timers; plain data so the snapshot can hold it."""

    turn_timeout: int = DEFAULT_TURN_TIMEOUT  # seconds; 0: no turn timer
    opened_at: float | None = None
    last_human_at: float | None = None
    turn_seat: int | None = None  # the human whose turn is being timed
    turn_key: int | None = None  # len(game.history) when that turn began
    turn_started: float | None = None
    reminded: bool = False
    timeouts: dict[int, int] = field(default_factory=dict)  # seat -> timeouts in a row
    seen: int | None = None  # actions already looked at (None: all of them, after a restore)
    ping: dict[str, Any] | None = None  # the ping of this turn: seat, key, round, nonce, message
    trace: dict[str, Any] | None = None  # the round's one line of answered pings: round,
    # seats, and the ping (nonce, message) it was folded into (cogs/pings.py)
    table_posted: float | None = None  # when the table message was posted (edits age out)
    notified: dict[str, Any] | None = None  # the round's table post mentions: round, seats,
    # posted (bot/policies/timers.py decides them when the post is owed; cogs/table_posts.py
    # renders them)
    told: int | None = None  # relaxed: the turn (its key) whose start was announced
    table_answer: list[Any] | None = None  # the table was the Start click's answer: that
    # click's app id, token, until when it may be used, the table (its edits go through it)
    defaulting: bool = False  # the watchdog is acting for a player (not saved)

    def ping_at(self, part: float, delay: float, live_until: float | None = None,
                followed: bool = False, told_wait: float = NOTIFIED_PING_DELAY
                ) -> float | None:
        """When this turn's one ping is due (None: no human turn).

        A hand that follows the game shows the turn at once: its player is pinged only
        once ``part`` of the turn time has passed (with no turn timer: ``delay`` seconds),
        or when its token stops being used (``live_until``), whichever comes first; also
        when the bot does not know the hands (``followed`` False). ``followed``: the bot
        knows which hands are open (cogs/hands.py); a player whose hand is not live (None:
        not open) cannot see their turn come: pinged at once, unless the round's table post
        notified them (:meth:`notified_seat`): then after ``told_wait`` (at most the wait
        of an open hand)."""
        if self.turn_started is None or self.turn_seat is None:
            return None
        wait = part * self.turn_timeout if self.turn_timeout > 0 else delay
        start = self.turn_started
        if not followed:
            return start + wait
        if live_until is not None and live_until > start:
            return min(start + wait, live_until)
        if self.notified_seat(self.turn_seat):
            return start + min(told_wait, wait)
        return start

    def notify(self, round_no: int, seats: list[int], posted: bool = False) -> None:
        """The table post owed for round ``round_no`` mentions ``seats`` (``posted``: it is
        out already)."""
        self.notified = {"round": round_no, "seats": sorted(seats), "posted": posted}

    def notified_seat(self, seat: int) -> bool:
        """Whether the current round's table post notified ``seat``."""
        return self.notified is not None and seat in self.notified["seats"]

    @property
    def deadline(self) -> float | None:
        """When the bot plays for the human to act (None: no turn timer, or an AI's turn)."""
        if self.turn_started is None or self.turn_seat is None or self.turn_timeout <= 0:
            return None
        return self.turn_started + self.turn_timeout

    def clear_turn(self) -> None:
        self.turn_seat = self.turn_key = self.turn_started = None
        self.reminded = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "turn_timeout": self.turn_timeout,
            "opened_at": self.opened_at,
            "last_human_at": self.last_human_at,
            "turn_seat": self.turn_seat,
            "turn_key": self.turn_key,
            "turn_started": self.turn_started,
            "reminded": self.reminded,
            "timeouts": {str(k): v for k, v in self.timeouts.items()},
            "seen": self.seen,
            "ping": self.ping,
            "trace": self.trace,
            "table_posted": self.table_posted,
            "notified": self.notified,
            "told": self.told,
            "table_answer": self.table_answer,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> TimerState:
        """The saved state (``None``, from a snapshot older than timers: fresh timers)."""
        if not data:
            return cls()
        return cls(
            turn_timeout=int(data.get("turn_timeout", DEFAULT_TURN_TIMEOUT)),
            opened_at=data.get("opened_at"),
            last_human_at=data.get("last_human_at"),
            turn_seat=data.get("turn_seat"),
            turn_key=data.get("turn_key"),
            turn_started=data.get("turn_started"),
            reminded=bool(data.get("reminded", False)),
            timeouts={int(k): int(v) for k, v in (data.get("timeouts") or {}).items()},
            seen=data.get("seen"),
            ping=data.get("ping"),
            trace=data.get("trace"),
            table_posted=data.get("table_posted"),
            told=data.get("told"),
            table_answer=data.get("table_answer"),
            notified=data.get("notified"),  # (absent in older snapshots: nobody notified;
            # Session.restore records that for the round it restores, bot/sessions/persistence.py)
        )
