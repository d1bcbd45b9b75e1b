"""How a session is kept: committed with what it owes, rebuilt from snapshot and rows.

A mixin of :class:`bot.sessions.sessions.Session` (its persistence half). Lobby changes, a
game's start, round boundaries and shutdown write the whole session (a snapshot);
every other accepted change appends one move row with the small state that changed
(version, timers, who is away), so a move costs the same early and late in a game.
A session is rebuilt from its snapshot and the rows after it. A commit that fails is
undone in memory by reloading the session from the store.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol, Self

from bot.sessions.errors import SaveFailed
from bot.sessions.outbox import Outbox, Write
from bot.sessions.state import Change, Pace, Seat, Status, TimerState
from bot.store.sqlite import Store
from game import Action, Event, EventKind, Game, from_dict, to_dict, visible_to

log = logging.getLogger(__name__)

RECENT = 8  # public events the table shows
SNAPSHOT_FORMAT = 1
SHARED_ACTIONS = 4096  # distinct actions kept shared (more than every rule set has)
_shared_actions: dict[Action, Action] = {}


def shared(action: Action) -> Action:
    """The one object kept for actions equal to ``action`` (a frozen value): a game's history
    holds its actions for its whole life (days, for a relaxed game), and thousands of waiting
    games hold the same few dozen actions (docs/performance.md, idle relaxed games)."""
    kept = _shared_actions.get(action)
    if kept is None:
        if len(_shared_actions) >= SHARED_ACTIONS:
            return action
        kept = _shared_actions[action] = action
    return kept


class Keeper(Protocol):
    """What a session's store half uses of :class:`bot.sessions.sessions.Sessions` (which is
    one)."""

    store: Store
    outbox: Outbox

    def observe(self, session: Any) -> None: ...
    def forget(self, session: Any) -> None: ...
    def adopt(self, session: Any) -> None: ...


class Persistence:
    """The store side of a session (mixed into :class:`bot.sessions.sessions.Session`)."""

    if TYPE_CHECKING:
        sessions: Keeper
        guild_id: int
        channel_id: int
        host_id: int
        variant: str
        options: dict[str, int]
        locale: str | None
        seats: list[Seat]
        status: Status
        seed: int | str
        game: Game | None
        version: int
        game_id: str
        started_at: float
        lobby_message_id: int | None
        table_message_id: int | None
        parent_id: int | None
        moving_from: int | None
        pending: list[Change]
        recent: list[Event]
        timers: TimerState
        pace: Pace

        def _make_players(self) -> None: ...

    async def store_new(self) -> None:
        """Save the session as it is (a new lobby; the caller holds the lock), with the lobby
        message it owes."""
        await self._commit(Write(self.guild_id, self.channel_id, snapshot=self.snapshot()))

    async def _changed(
        self, *, move: tuple[int | None, str | None] = (None, None), snapshot: bool = False
    ) -> None:
        """Bump the version and commit: a snapshot, or one move row (``move``: seat, action)."""
        self.version += 1
        self.sessions.observe(self)  # new deadlines are saved with the change
        await self.save(move=move, snapshot=snapshot)

    async def save(
        self, *, move: tuple[int | None, str | None] = (None, None), snapshot: bool = False,
        owe: bool = True,
    ) -> None:
        """Commit the session as it is now (the caller holds the lock); ``owe``: with the
        messages the change owes (a shutdown's checkpoint owes none)."""
        write = Write(self.guild_id, self.channel_id, moved_from=self.moving_from)
        if snapshot or self.status is Status.LOBBY or self.moving_from is not None:
            write.snapshot = self.snapshot()
        else:
            write.move = {"seat": move[0], "action": move[1], "meta": self._meta()}
        await self._commit(write, owe=owe)

    async def _commit(self, write: Write, owe: bool = True) -> None:
        """One transaction: the change and what it owes; on failure, back to the stored state."""
        outbox = self.sessions.outbox
        changes, self.pending = self.pending, []
        try:
            write.owed = outbox.compose(self, changes) if owe else []
            await self.sessions.store.write(write)
        except Exception as error:
            log.error("could not save channel %s; reloading it from the store",
                      self.channel_id, exc_info=error)
            await self._reload()
            raise SaveFailed() from error
        outbox.committed(self, self.channel_id, write.owed, end=write.end,
                         moved_from=write.moved_from)
        self.moving_from = None

    async def _reload(self) -> None:
        """Make memory what the store holds (after a failed commit)."""
        try:
            data = await self.sessions.store.session(self.guild_id, self.channel_id)
        except Exception:
            log.exception("could not reload channel %s; its memory may be ahead of the store",
                          self.channel_id)
            return
        if data is None:  # never saved (a new lobby): there is no session
            self.status = Status.ABANDONED
            self.sessions.forget(self)
            return
        stored = type(self).restore(self.sessions, data)
        for name in ("seats", "status", "game", "version", "players", "timers", "game_id",
                     "lobby_message_id", "table_message_id", "started_at", "parent_id"):
            setattr(self, name, getattr(stored, name))
        self.recent = []
        self.note_public(public_history(self))
        self.sessions.adopt(self)

    def note_public(self, events: list[Event]) -> None:
        """Keep the last public events for the table (a new round starts afresh)."""
        for event in events:
            if event.kind is EventKind.ROUND_STARTED:
                self.recent = []
            if event.kind not in (EventKind.ROUND_OVER, EventKind.GAME_OVER):
                self.recent.append(event)
        del self.recent[:-RECENT]

    def _meta(self) -> dict[str, Any]:
        """What a move row keeps besides the action: the small state that changes with it."""
        return {"version": self.version, "timers": self.timers.to_dict(),
                "away": [i for i, s in enumerate(self.seats) if s.away]}

    def _game_document(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "variant": self.variant,
            "seed": self.seed,
            "record": to_dict(self.game) if self.game is not None else None,
            "seats": [
                {"user_id": s.user_id, "name": s.name}
                | ({"difficulty": s.difficulty} if s.difficulty else {})
                for s in self.seats
            ],
            "started_at": self.started_at,
            **({"parent_id": self.parent_id} if self.parent_id is not None else {}),
            "pace": self.pace.value,
        }

    def snapshot(self) -> dict[str, Any]:
        """Everything needed to rebuild this session after a restart (see :meth:`restore`)."""
        return {
            "format": SNAPSHOT_FORMAT,
            "guild_id": self.guild_id,
            "channel_id": self.channel_id,
            "status": self.status.value,
            "host_id": self.host_id,
            "options": self.options,
            "locale": self.locale,
            "version": self.version,
            "lobby_message_id": self.lobby_message_id,
            "table_message_id": self.table_message_id,
            "away": [i for i, s in enumerate(self.seats) if s.away],
            "timers": self.timers.to_dict(),
            **self._game_document(),
        }

    @classmethod
    def restore(cls, sessions: Keeper, data: dict[str, Any]) -> Self:
        """Rebuild a session from :meth:`snapshot` and the move rows after it (``moves``):
        the game from (record, seed) by replay."""
        session = cls(
            sessions,
            data["guild_id"],
            data["channel_id"],
            data["host_id"],
            data["variant"],
            dict(data["options"]),
            locale=data.get("locale"),
            seats=[Seat(s["user_id"], s["name"], i in data.get("away", ()), s.get("difficulty"))
                   for i, s in enumerate(data["seats"])],
            status=Status(data["status"]),
            seed=data["seed"],
            version=data["version"],
            game_id=data["game_id"],
            started_at=data["started_at"],
            lobby_message_id=data.get("lobby_message_id"),
            table_message_id=data.get("table_message_id"),
            timers=TimerState.from_dict(data.get("timers")),
            parent_id=data.get("parent_id"),  # (a game in a thread: the channel it left)
            pace=Pace(data.get("pace", Pace.LIVE.value)),
        )
        if data.get("record") is not None:
            record = from_dict(data["record"])
            game = Game(
                record.variant, record.players, record.options,
                seed=session.seed, chance=record.rounds,
            )
            for seat, action in record.actions:
                game.apply(seat, shared(action))
            for move in data.get("moves", ()):  # the rows appended since the snapshot
                if move.get("action") is not None:
                    game.apply(int(move["seat"]), shared(Action.parse(move["action"])))
            session.game = game
            session._make_players()
        if data.get("moves"):
            meta = data["moves"][-1]["meta"]
            session.version = meta["version"]
            session.timers = TimerState.from_dict(meta.get("timers"))
            for i, seat in enumerate(session.seats):
                seat.away = i in meta.get("away", ())
            session._make_players()
        if session.game is not None and session.timers.notified is None:
            # saved before the notified set: whom the round's post mentioned is unknown, so
            # nobody counts as notified (a human the bot cannot follow is pinged at once); a
            # post of that round still owed mentions whoever does not follow then
            session.timers.notify(session.game.state.round_no, [], posted=True)
        return session


def public_history(session: Persistence) -> list[Event]:
    """The public events of the game so far (the table's recent lines), rebuilt by replay."""
    if session.game is None:
        return []
    record = from_dict(to_dict(session.game))
    game = Game(record.variant, record.players, record.options, seed=session.seed,
                chance=record.rounds)
    events = list(game.opening_events)
    for seat, action in record.actions:
        events.extend(game.apply(seat, action))
    return visible_to(events, None)
