"""One session per channel: the lobby, then the game; the only in-memory state.

Every change goes through a session method that takes the session's lock,
checks who asks, changes the game through the engine, bumps ``version``
(so buttons drawn for an older state are recognised) and commits it before
returning: one transaction holds the change (a snapshot at lobby and game
start and round boundaries, else one appended move row) and the messages it
owes (bot/sessions/outbox.py). If the commit fails, the session is reloaded from the
store, so memory never holds what the store does not. :meth:`Sessions.publish`
then delivers what is owed (game time, AI seats and timers, hands it to the
channel's own delivery task and never waits for it).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from bot.common.clock import Clock, SystemClock
from bot.sessions.ai_players import Player, make_player
from bot.sessions.errors import (
    BotError,
    NoGame,
    NotAllowed,
    NotAMove,
    NotSeated,
    SaveFailed,
    StaleButton,
)
from bot.sessions.guild_settings import GuildSettings
from bot.sessions.outbox import Outbox, Write
from bot.sessions.persistence import Persistence, shared
from bot.sessions.seating import MAX_SEATS, Seating
from bot.sessions.state import (
    MAX_RELAXED_TIMEOUT,
    MIN_RELAXED_TIMEOUT,
    Change,
    Pace,
    Seat,
    Status,
    TimerState,
    require_turn_timeout,
    server_pace,
    server_turn_timeout,
)
from bot.sessions.user_prefs import DmPrefs
from bot.store.sqlite import SeatResult, Store
from bot.words.i18n import N_
from game import Action, Event, EventKind, Game, Phase, PlayerView, player_view, rng
from game.errors import MalformedRecord

log = logging.getLogger(__name__)

SNAPSHOT_FORMAT = 1
SHORT_ID = 12
"""Hex digits of the game id that components carry (48 bits: no two games of a channel meet)."""
ROUND_EDGES = (EventKind.ROUND_OVER, EventKind.ROUND_STARTED, EventKind.GAME_OVER)


@dataclass
class Session(Seating, Persistence):
    """A channel's lobby and game. Mutate only through the async methods."""

    sessions: Sessions
    guild_id: int
    channel_id: int
    host_id: int
    variant: str
    options: dict[str, int]
    locale: str | None = None
    seats: list[Seat] = field(default_factory=list)
    status: Status = Status.LOBBY
    seed: int | str = 0
    game: Game | None = None
    version: int = 0
    game_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    started_at: float = field(default_factory=time.time)
    lobby_message_id: int | None = None
    table_message_id: int | None = None
    pending: list[Change] = field(default_factory=list)
    recent: list[Event] = field(default_factory=list)
    players: dict[int, Player] = field(default_factory=dict)
    pinged: int | None = None  # the user the current table message mentions
    _views: dict[int | None, PlayerView] = field(default_factory=dict, repr=False,
                                                 compare=False)
    _views_of: tuple[int, int] | None = field(default=None, repr=False, compare=False)
    answer: tuple[Any, ...] | None = None  # the interaction that answers with the message
    # the next commit owes: a new lobby's (app id, token, usable until), or the Start click's
    # (app id, token, the clicked lobby's id: cogs/posts.py); kept with that owed item only
    lobby_answer: tuple[int, str, float, int] | None = None  # the lobby's answer (app id,
    # token, usable until, its message): its edits go through that token (not saved)
    parent_id: int | None = None  # a game in its own thread: the channel its lobby was in
    moving_from: int | None = None  # the channel it is leaving (until that change is saved)
    no_thread: bool = False  # it should have moved to a thread, the bot may not make one
    timers: TimerState = field(default_factory=TimerState)  # bot/sessions/state.py; saved
    pace: Pace = Pace.LIVE  # live or relaxed (bot/policies/relaxed.py); saved with the game
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    # ---- questions -------------------------------------------------------
    @property
    def short_id(self) -> str:
        """The id this lobby's and game's buttons carry (:mod:`cogs.buttons`)."""
        return self.game_id[:SHORT_ID]

    def seat_of(self, user_id: int) -> int | None:
        return next((i for i, s in enumerate(self.seats) if s.user_id == user_id), None)

    def require_seat(self, user_id: int) -> int:
        seat = self.seat_of(user_id)
        if seat is None:
            raise NotSeated()
        return seat

    def require_game(self) -> Game:
        if self.game is None or self.status is not Status.PLAYING:
            raise BotError(N_("The game has not started yet."))
        return self.game

    def view(self, seat: int | None) -> PlayerView:
        """What ``seat`` may see (``None``: the public table)."""
        if self.game is None:
            raise BotError(N_("The game has not started yet."))
        # one move is shown several times (its answer, the hands that follow, the table):
        # the views of a state are computed once
        state = (id(self.game), len(self.game.history))
        if self._views_of != state:
            self._views.clear()
            self._views_of = state
        view = self._views.get(seat)
        if view is None:  # (another seat's view of this state lends its public part)
            same = next(iter(self._views.values()), None)
            view = self._views[seat] = player_view(self.game, seat, same)
        return view

    def ai_to_act(self) -> int | None:
        """The AI seat whose turn it is, if any."""
        if self.status is not Status.PLAYING or self.game is None:
            return None
        seat = self.game.to_act
        return seat if seat is not None and self.seats[seat].is_ai else None

    def user_to_act(self) -> int | None:
        if self.status is not Status.PLAYING or self.game is None or self.game.to_act is None:
            return None
        return self.seats[self.game.to_act].user_id

    # ---- lobby (the seating: bot/sessions/seating.py) -------------------------------
    async def start(self, user_id: int, home: Home | None = None,
                    answer: tuple[int, str, int, float] | None = None) -> None:
        """Start the game; ``home``, once the start is allowed, makes the thread it is played
        in (None: in this channel, as is), awaited in the lock: nothing else changes the lobby
        meanwhile. The game leaves the channel in the same commit (:meth:`Sessions.move`).
        ``answer``: the Start click (app id, token, the clicked message, until when its token
        may be used), which may answer with the game's first table (kept with that owed item:
        a restart finds it)."""
        async with self.lock:
            self._require_lobby()
            self._require_host(user_id)
            if self.seat_of(user_id) is None:
                raise NotAllowed(N_("You left this lobby: join it again to start the game."))
            if not 2 <= len(self.seats) <= MAX_SEATS:
                raise BotError(N_("A game needs 2 to 6 players; {n} seated."), n=len(self.seats))
            thread = await home(self) if home is not None else None
            names = [s.name for s in self.seats]
            self.game = Game(self.variant, names, self.options, seed=self.seed)
            self._make_players()
            self.status = Status.PLAYING
            self.started_at = time.time()
            self.pending.append(Change(list(self.game.opening_events)))
            if thread is not None:
                self.sessions.move(self, thread)
            self.answer = answer  # (taken by the commit's composer, cogs/compose.py)
            try:
                await self._changed(snapshot=True)
            except SaveFailed:
                if self.moving_from is not None:  # back in its channel, as the store holds it
                    self.channel_id, self.parent_id = self.moving_from, None
                    self.moving_from = None
                    await self._reload()
                raise
            finally:
                self.answer = None  # (the default composer leaves it)

    # ---- play ------------------------------------------------------------
    async def act(self, user_id: int, version: int | None, text: str) -> list[Event]:
        """A human's action from a button: checked, applied, saved. Returns its events."""
        async with self.lock:
            game = self.require_game()
            seat = self.require_seat(user_id)
            if version is not None and version != self.version:
                raise StaleButton()
            try:
                action = shared(Action.parse(text))  # (kept in the history: one object)
            except MalformedRecord:
                raise NotAMove() from None
            events = await self._apply(game, seat, action)
            while (forced := self._forced(seat)) is not None:  # one click per turn
                events += await self._apply(game, seat, forced)
            return events

    def _forced(self, seat: int) -> Action | None:
        """The only way ``seat`` can resolve the roll it just made (dice: a single possible
        discard or take), applied with the roll: a choice of one is no choice to click."""
        game = self.game
        if (game is None or self.status is not Status.PLAYING or game.to_act != seat
                or game.state.phase is not Phase.RESOLVE):
            return None
        legal = game.legal_actions()
        return legal[0] if len(legal) == 1 else None

    async def ai_step(self) -> bool:
        """Let the AI to act choose and act; False if it is no AI's turn any more.

        The choice is made without the lock (a hard AI thinks in the pool); it is
        applied only if nothing changed meanwhile (else the caller asks again).
        """
        async with self.lock:
            seat = self.ai_to_act()
            if seat is None or self.game is None:
                return False
            view, version, player = player_view(self.game, seat), self.version, self.players[seat]
        action = await self.sessions.ai.choose(player, view)
        async with self.lock:
            if self.version == version and self.ai_to_act() == seat and self.game is not None:
                await self._apply(self.game, seat, action)
            return True

    async def stop(self, user_id: int, moderator: bool, name: str = "") -> bool:
        """``/lama stop``: the host or a moderator ends the game; it counts for nobody.
        Owes the table closed with a note naming ``name``. True if a game (not a lobby) was
        stopped. Checked in the lock: a stop that waited on a game ending meanwhile (its last
        move, a cancel, another stop) finds no game, and never records it again."""
        async with self.lock:
            if self.sessions.get(self.channel_id) is not self or self.status not in (
                    Status.LOBBY, Status.PLAYING):
                raise NoGame()
            if user_id != self.host_id and not moderator:
                raise NotAllowed(N_("Only the host or a moderator can stop the game."))
            playing = self.status is Status.PLAYING
            self.pending.append(Change([], note=("stopped", {"name": name})))
            await self.end(None)
            return playing

    # ---- internals -------------------------------------------------------
    async def _apply(self, game: Game, seat: int, action: Action) -> list[Event]:
        before = self.view(None)  # (computed once per state, like every view)
        events = game.apply(seat, action)  # a RulesError changes nothing
        self.pending.append(Change(events, before))
        if game.finished:
            self.status = Status.FINISHED
            await self.end(self.results())
        else:
            edge = any(e.kind in ROUND_EDGES for e in events)  # a round ends: snapshot
            await self._changed(move=(seat, str(action)), snapshot=edge)
        return events

    async def end(self, results: list[SeatResult] | None, reason: str | None = None) -> None:
        """The session ends (caller holds the lock): a finished game with ``results``, else
        abandoned (a running game is recorded, a lobby just goes). Commits what it owes."""
        playing = self.game is not None and self.status in (Status.PLAYING, Status.FINISHED)
        if results is None:
            self.status = Status.ABANDONED
        self.version += 1
        finish = ({"game": self._game_document(), "results": results, "reason": reason}
                  if playing else None)
        await self._commit(Write(self.guild_id, self.channel_id, finish=finish, end=True))
        self.sessions.forget(self)

    def results(self) -> list[SeatResult]:
        view = self.view(None)
        return [
            SeatResult(s.seat, self.seats[s.seat].user_id, s.name, s.score, s.seat in view.winners)
            for s in view.seats
        ]

    def _make_players(self) -> None:
        self.players = {
            i: make_player(f"{self.seed}:{i}", None if s.away else s.difficulty)
            for i, s in enumerate(self.seats)
            if s.is_ai
        }


Home = Callable[[Session], Awaitable[int | None]]
"""Makes the thread a starting game is played in (its id; None: the channel, as is)."""


class AiTurns(Protocol):
    """What the sessions ask of AI turns (bot/policies/ai_runner.py's AiRunner, wired as ``ai``)."""

    async def choose(self, player: Player, view: PlayerView) -> Action: ...
    def wake(self, session: Session) -> None: ...  # after a publish: play if an AI is to act
    def cancel(self, channel_id: int) -> None: ...
    async def close(self) -> None: ...


class Timers(Protocol):
    """What the sessions ask of the timers (bot/policies/timers.py's Watchdog, wired as
    ``timers``)."""

    def observe(self, session: Session) -> None: ...  # a change, in the lock, before its save
    def arm(self, session: Session) -> None: ...  # after a publish or a restore
    def cancel(self, channel_id: int) -> None: ...
    def unfollowed(self, session: Session) -> list[int]: ...  # whom a new table notifies
    async def close(self) -> None: ...


class Unattended:
    """No policies (a session read and tested alone): AIs choose only when asked, no timers."""

    async def choose(self, player: Player, view: PlayerView) -> Action:
        return player.choose(view)

    def _nothing(self, _: object) -> None:
        """Nothing to do without the policy."""

    observe = wake = arm = cancel = _nothing

    def unfollowed(self, session: Session) -> list[int]:
        """Nobody's hand is known to follow the game: every human seat."""
        return [i for i, seat in enumerate(session.seats) if not seat.is_ai]

    async def close(self) -> None:
        """Nothing to stop."""


class Sessions:
    """The sessions of every channel this process serves.

    Policies over them (AI turns, timers) depend on this module, not the reverse: the
    sessions call them through :class:`AiTurns` and :class:`Timers` (none by default;
    :func:`bot.policies.wiring.make_sessions` wires both).
    """

    def __init__(
        self, store: Store, *, seed: str | None, clock: Clock | None = None
    ) -> None:
        self.store = store
        self.guild_settings = GuildSettings(store)  # bot/sessions/guild_settings.py
        self.dm_prefs = DmPrefs(store)  # bot/sessions/user_prefs.py
        self.seed = seed
        self._by_channel: dict[int, Session] = {}
        self.ai: AiTurns = Unattended()
        self.clock: Clock = clock or SystemClock()
        self.timers: Timers = Unattended()
        self.outbox = Outbox(store)
        self.followers: list[Callable[[Session], Awaitable[object]]] = []  # after publish

    def get(self, channel_id: int) -> Session | None:
        return self._by_channel.get(channel_id)

    def require(self, channel_id: int) -> Session:
        session = self.get(channel_id)
        if session is None:
            raise NoGame()
        return session

    def __iter__(self) -> Iterator[Session]:
        """Every session served (a copy: sessions may open or end meanwhile)."""
        return iter(list(self._by_channel.values()))

    def __len__(self) -> int:
        return len(self._by_channel)

    def served(self) -> list[Session]:
        """Every lobby and game this process serves now (a copy: they may end meanwhile)."""
        return list(self._by_channel.values())

    async def open(
        self,
        guild_id: int,
        channel_id: int,
        host: tuple[int, str],
        variant: str,
        options: dict[str, int],
        locale: str | None,
        seats: list[Seat] | None = None,
        turn_timeout: int | None = None,
        answer: tuple[Any, ...] | None = None,
        pace: Pace | None = None,
    ) -> Session:
        """A new lobby in ``channel_id``, the host seated (or the given seats, for a rematch).

        Committed with the lobby message it owes: whoever answers (the interaction, or the
        outbox after a late answer or a restart), the channel never holds an unseen lobby.
        ``answer`` (the interaction's application id and token) is kept with the owed item,
        so a restarted process finds an answer that was made before the crash.
        ``pace`` (None: the server's default) with ``turn_timeout`` in seconds (None: the
        server's setting for that pace).

        The channel is taken before anything is awaited (no await between the check and the
        registration): of any number of opens at once, exactly one gets the channel, the
        others are refused. The new session's lock is held until it is stored, so nothing
        acts on a lobby that is not saved yet; if it cannot be, the channel is free again.
        """
        if channel_id in self._by_channel:
            raise BotError(N_("A game is already running in this channel. Use {cmd_stop} first."))
        seed = self.seed if self.seed is not None else rng.new_seed()
        session = Session(
            self, guild_id, channel_id, host[0], variant, options, locale=locale, seed=seed
        )
        session.seats = (list(seats) if seats is not None
                         else [Seat(host[0], session._free_name(host[1]))])
        session.answer = answer
        self._by_channel[channel_id] = session  # taken: a concurrent open is refused above
        try:
            async with session.lock:
                default_pace, relaxed_timeout = await server_pace(self.store, guild_id)
                session.pace = pace or default_pace
                if session.pace is Pace.RELAXED:
                    turn_timeout = turn_timeout or relaxed_timeout
                    if not MIN_RELAXED_TIMEOUT <= turn_timeout <= MAX_RELAXED_TIMEOUT:
                        raise BotError(N_("A relaxed turn lasts {low} to {high} hours."),
                                       low=1, high=MAX_RELAXED_TIMEOUT // 3600)
                    session.timers.turn_timeout = turn_timeout
                else:
                    if turn_timeout is None:
                        turn_timeout = await server_turn_timeout(self.store, guild_id)
                    session.timers.turn_timeout = require_turn_timeout(turn_timeout)
                self.timers.observe(session)  # the lobby's expiry
                await session.store_new()
        except BaseException:
            session.status = Status.ABANDONED  # whoever waited on its lock finds it gone
            self.forget(session)
            raise
        return session

    def move(self, session: Session, thread_id: int) -> None:
        """``session``'s game goes to its thread (lock held; saved by the caller's next
        commit, which frees the channel in the store too): the channel is free at once."""
        old = session.channel_id
        if self._by_channel.get(old) is session:
            del self._by_channel[old]
        self.ai.cancel(old)
        self.timers.cancel(old)  # (its lobby's expiry; the game's timers follow the thread)
        session.moving_from = session.parent_id = old
        session.channel_id = thread_id
        self._by_channel[thread_id] = session

    def moved_from(self, channel_id: int, short_id: str) -> Session | None:
        """The game drawn as ``short_id`` that left ``channel_id`` for its thread, if it runs."""
        return next((s for s in self._by_channel.values()
                     if s.parent_id == channel_id and s.short_id == short_id), None)

    def adopt(self, session: Session) -> None:
        """Serve a session rebuilt from the store (bot.restore, at start-up)."""
        self._by_channel.setdefault(session.channel_id, session)
        self.timers.arm(session)  # deadlines saved before the restart run on

    def observe(self, session: Session) -> None:
        """``session`` changed (lock held, not yet saved): the timers bring theirs up to date."""
        self.timers.observe(session)

    def forget(self, session: Session) -> None:
        if self._by_channel.get(session.channel_id) is session:
            del self._by_channel[session.channel_id]
        self.ai.cancel(session.channel_id)
        self.timers.cancel(session.channel_id)

    async def publish(self, session: Session, *, wait: bool = True) -> None:
        """Wake the AIs, let open hands follow, and deliver what the channel is owed.

        The game goes first: the channel's messages may wait on Discord's rate limits (and
        a table edit not yet sent is replaced by a newer one meanwhile), while hands are
        edited through interaction tokens, which those limits do not slow. So the channel's
        own delivery task (bot/sessions/outbox.py) starts before the hands follow and runs
        alongside them: the table waits for its slot while the hands are drawn and edited,
        not after them (their pictures and round trips would be the table's lag). ``wait``:
        a command or click waits for the channel's messages (its own answer shows them);
        game time does not (AI seats, timers: ``wait=False``): the delivery task shows the
        latest state as soon as its buckets allow."""
        self.ai.wake(session)
        self.timers.arm(session)
        if session.parent_id is not None and self.outbox.pending(session.parent_id):
            self.outbox.kick(session.parent_id)  # (what a game in a thread owes its channel)
        self.outbox.kick(session.channel_id)
        for follow in self.followers:  # e.g. open hands follow the game (cogs/hands.py)
            try:
                await follow(session)
            except Exception:
                log.exception("a follower of channel %s failed", session.channel_id)
        if wait:
            await self.outbox.delivered(session.channel_id)

    async def checkpoint(self) -> None:
        """Shutdown: fold each running game's move rows into one snapshot."""
        for session in list(self._by_channel.values()):
            async with session.lock:
                if self.get(session.channel_id) is session and session.status is Status.PLAYING:
                    try:
                        await session.save(snapshot=True, owe=False)
                    except BotError:
                        log.warning("could not checkpoint channel %s", session.channel_id)

    async def close(self) -> None:
        """AIs and timers stop; the delivery marks not yet committed are (the store stays)."""
        await self.ai.close()
        await self.timers.close()
        await self.outbox.close()
