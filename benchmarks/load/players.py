"""The simulated players: they open a lobby, join, and play what their hand offers.

A player acts on what Discord shows them: their ephemeral hand when it shows their turn
(answered to their click, or edited by the bot when their turn comes), else the public table
naming them (then they press My hand). A newly posted table that notifies them (an allowed
mention of their id: ``Message.pinged`` in the fake; lama's table post at a game's or round's
start, for whoever has no hand open) makes them press My hand at once, as a notified player
would, whether or not it is their turn; the baseline's table notifies nobody. Before each
move they think for an exponentially distributed time (``--think-mean``, seeded per game).
Both bots (lama and the baseline) draw the same custom_ids and labels, so the same players
play both.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import random
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from benchmarks.load.answer_trace import HarnessTrace
from fakediscord import FakeDiscordError, Member, Message, TextChannel
from fakediscord.base import Notifier, WaitTimeout

T = TypeVar("T")
MENTION = re.compile(r"<@(\d+)>, it is your turn")
HAND, ACT, PICK, REMATCH = "lama:v2:hand:", "lama:v2:act:", "lama:v2:pick:", "lama:v2:rematch:"
ASK = "lama:v2:ask:"  # Quit asks first: the hand turns into a confirmation (its act button)
TURN_WAIT = 30.0  # a game where nothing moves for this long is counted as stuck
QUIET = 5.0  # no move for this long: a player the table names presses My hand again
DEFERRED_UPDATE, UPDATE = 6, 7  # interaction callback types that accept a click


class KeyedNotifier(Notifier):
    """The fake's notifier without the thundering herd (its own wakes every waiter per change).

    The driver's generic waits (an interaction's answer, login, sync) are checked on
    message-less notifications only, which is where the fake signals them; message changes go
    to ``watch`` (per-channel tracking of the games).
    """

    def __init__(self, watch: Callable[[str, Message], None]) -> None:
        super().__init__()
        self.watch = watch
        self._waiters: dict[asyncio.Future[Any], Callable[[], Any]] = {}

    def notify(self, kind: str = "", message: Message | None = None) -> None:
        if message is not None:
            self.watch(kind, message)
            return
        for future, check in list(self._waiters.items()):
            if future.done():
                continue
            try:
                result = check()
            except Exception as exc:  # e.g. the interaction failed: the driver raises
                future.set_exception(exc)
                continue
            if result is not None:
                future.set_result(result)

    async def wait_for(self, check: Callable[[], T | None], timeout: float, what: str) -> T:
        result = check()
        if result is not None:
            return result
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._waiters[future] = check

        def expire() -> None:
            if not future.done():
                future.set_exception(WaitTimeout(f"timed out after {timeout}s waiting for {what}"))

        handle = loop.call_later(timeout, expire)
        try:
            return await future
        finally:
            handle.cancel()
            self._waiters.pop(future, None)


@dataclass
class Stats:
    lobby: list[float] = field(default_factory=list)  # the burst: every lobby at once
    lobby_at: list[float] = field(default_factory=list)  # (perf_counter) each /lama start sent
    play: list[float] = field(default_factory=list)  # moves and My hand, once games run
    play_wall: list[float] = field(default_factory=list)  # the same, click to player resumed
    play_at: list[float] = field(default_factory=list)  # (time.time()) when each was clicked
    move_play: list[float] = field(default_factory=list)  # of ``play``, the moves' alone (not
    # My hand): a card played or drawn, a quit, to the mover's updated hand
    moves: int = 0
    opens: int = 0
    errors: list[str] = field(default_factory=list)
    over_limit: int = 0
    unstamped: int = 0  # answers timed by the harness's clock alone (the fake had no stamps)
    table_lag: list[float] = field(default_factory=list)
    turn_wait: list[float] = field(default_factory=list)  # a move answered -> the next one playable


@dataclass
class Seat:
    member: Member
    hand: Message | None = None  # the ephemeral hand last answered to this player
    acted_on: tuple[int, int] | None = None  # the hand state they last clicked from


def stamp(message: Message | None) -> tuple[int, int] | None:
    return None if message is None else (message.id, message.edits)


@dataclass
class Table:
    """One game's channel as its players see it."""

    index: int
    channel: TextChannel
    members: list[Member]
    seats: list[Seat] = field(default_factory=list)
    table: Message | None = None
    posted: float | None = None  # (time.time()) when the game's first table reached Discord
    final: Message | None = None
    wake: asyncio.Future[None] | None = None
    opened_from: tuple[int, int] | None = None  # the table state we last pressed My hand for
    told_from: int | None = None  # the table post whose notified players pressed My hand
    actions: int = 0
    playing: bool = False
    outcome: str = "unstarted"
    unshown: list[float] = field(default_factory=list)  # accepted moves the table lacks
    lag: list[float] = field(default_factory=list)
    lag_moved: list[float] = field(default_factory=list)  # when each lagged move was made
    progress: float = field(default_factory=time.monotonic)  # when a move was last accepted
    unpictured: dict[int, float] = field(default_factory=dict)  # hand message -> its click
    pictured: list[float] = field(default_factory=list)  # (perf_counter) until its picture
    pictured_late: int = 0  # My hand answers whose picture came in a later edit

    def __post_init__(self) -> None:
        self.seats = [Seat(m) for m in self.members]

    def see(self, kind: str, message: Message) -> None:
        if message.ephemeral_to is None:
            if kind == "create" and any(b.custom_id and b.custom_id.startswith(REMATCH)
                                        for b in message.buttons):
                self.final = message
            elif kind == "create" and any(b.custom_id and b.custom_id.startswith(HAND)
                                          for b in message.buttons):
                self.table = message
                if self.posted is None:
                    self.posted = time.time()
            if message is self.table and kind in ("create", "edit"):
                self.shown(message)
        elif message.id in self.unpictured and pictured(message):  # the picture followed
            self.pictured.append(time.perf_counter() - self.unpictured.pop(message.id))
            self.pictured_late += 1
        if self.wake is not None and not self.wake.done():
            self.wake.set_result(None)

    def shown(self, message: Message) -> None:
        """The table arrived: the moves accepted before it was drawn are shown (an embed's
        timestamp says when it was drawn; a V2 table has none: when it reached Discord,
        which counts a move accepted while it was under way as shown, a little early)."""
        stamp_text = (message.embed_dicts[0].get("timestamp") if message.embed_dicts
                      else message.edited_timestamp or message.timestamp)
        if not stamp_text or not self.unshown:
            return
        drawn = datetime.datetime.fromisoformat(stamp_text).timestamp()
        now = time.time()
        while self.unshown and self.unshown[0] <= drawn:
            moved = self.unshown.pop(0)
            self.lag.append(now - moved)
            self.lag_moved.append(moved)

    async def changed(self) -> None:
        async with asyncio.timeout(QUIET):
            self.wake = asyncio.get_running_loop().create_future()
            await self.wake


def pictured(message: Message) -> bool:
    """The message shows a hand picture (lama's ``hand-<key>.png``, the baseline's
    ``hand.png``)."""
    return any(a.get("filename", "").startswith("hand") for a in message.attachments)


def pick(hand: Message, rng: random.Random) -> tuple[str, str | None] | None:
    """A random legal choice, avoiding "quit" while anything else is possible."""
    choices: list[tuple[str, str | None]] = [
        (b.custom_id, None) for b in hand.buttons
        if b.custom_id and b.custom_id.startswith(ACT) and not b.disabled
    ]
    for select in hand.selects:
        if select.custom_id.startswith(PICK):
            choices += [(select.custom_id, o.value) for o in select.options]
    keep = [c for c in choices if not (c[1] or c[0]).endswith("quit")]
    if not choices:  # quitting is all that is left: ask, then confirm on the hand it turns into
        choices = [(b.custom_id, None) for b in hand.buttons if b.custom_id
                   and b.custom_id.startswith(ASK) and b.custom_id.endswith(":quit")
                   and not b.disabled]
    return rng.choice(keep or choices) if choices else None


class Players:
    """Every game's players."""

    def __init__(self, stats: Stats, args: argparse.Namespace,
                 trace: HarnessTrace | None = None) -> None:
        self.stats = stats
        self.args = args
        self.trace = trace

    async def timed(self, call: Callable[[], Awaitable[T]], into: list[float],
                    also: list[float] | None = None) -> T | None:
        """Run one user action; record how long the bot took to answer it: from the
        interaction's frame written to the bot's socket to the bot's callback reaching the
        fake (the fake's stamps), so the harness's own work before the click goes out and
        after the answer arrives (building the payload, handling the answer, waking this
        player) is not counted. A failed action counts its whole wait; one cut by the end of
        the run (cancelled) counts nothing."""
        started, clicked = time.perf_counter(), time.time()
        try:
            result = await call()
        except FakeDiscordError as exc:
            self.stats.errors.append(str(exc).splitlines()[0])
            result, took = None, time.perf_counter() - started
        else:
            inter = getattr(result, "interaction", None)
            if inter is not None and inter.sent is not None and inter.answered is not None:
                took = inter.answered - inter.sent
            else:
                took = time.perf_counter() - started
                self.stats.unstamped += 1
            if self.trace is not None and into is self.stats.play and inter is not None:
                self.trace.play.append((inter.id, took))
        into.append(took)
        if also is not None:
            also.append(took)
        if into is self.stats.play:  # (what the harness's clock alone would have said)
            self.stats.play_wall.append(time.perf_counter() - started)
            self.stats.play_at.append(clicked)
        if took > self.args.limit:
            self.stats.over_limit += 1
        return result

    async def lobby(self, game: Table) -> bool:
        host, *guests = game.members
        options = {"variant": self.args.variant}
        options["rounds" if self.args.variant == "tutorial" else "target"] = self.args.target
        burst = self.stats.lobby
        self.stats.lobby_at.append(time.perf_counter())
        reply = await self.timed(partial(host.slash, game.channel, "lama start", **options),
                                 burst)
        if reply is None or reply.message is None:
            return False
        lobby = reply.message
        while lobby.loading:  # a deferred answer ("thinking…"): the lobby comes with its edit
            await game.changed()
        for guest in guests:
            if await self.timed(partial(guest.click, lobby, "Join"), burst) is None:
                return False
        for _ in range(self.args.hard_ais):  # they think in the bot's AI pool
            if await self.timed(partial(host.click, lobby, "Add hard AI"), burst) is None:
                return False
        return await self.timed(partial(host.click, lobby, "Start"), burst) is not None

    async def play(self, game: Table, rng: random.Random) -> None:
        by_id = {s.member.id: s for s in game.seats}
        while game.actions < self.args.actions_per_game:
            if game.final is not None:
                game.outcome = "finished"
                return
            seat = next((s for s in game.seats if s.hand is not None
                         and stamp(s.hand) != s.acted_on and pick(s.hand, rng) is not None),
                        None)
            if seat is not None:
                if game.actions:  # how long the game stood still before a player could act
                    self.stats.turn_wait.append(time.monotonic() - game.progress)
                await self.move(game, seat, rng)
                continue
            if game.table is not None and game.table.id != game.told_from:
                game.told_from = game.table.id  # a new post: whom it notified look at once
                told = [by_id[u] for u in game.table.pinged if u in by_id]
                if told:
                    await asyncio.gather(*(self.open_hand(game, s) for s in told))
                    continue
            match = MENTION.search(game.table.content or "") if game.table else None
            named = by_id.get(int(match[1])) if match else None
            quiet = time.monotonic() - game.progress
            if named is not None and stamp(game.table) != game.opened_from and (
                    named.hand is None or quiet > QUIET):  # (a hand the bot stopped following)
                game.opened_from = stamp(game.table)
                await self.open_hand(game, named)
                continue
            if quiet > TURN_WAIT:
                raise TimeoutError
            with contextlib.suppress(TimeoutError):
                await game.changed()
        game.outcome = "capped"

    async def open_hand(self, game: Table, seat: Seat) -> None:
        """Press My hand on the table (the hand is not open, or the bot stopped following it)."""
        assert game.table is not None
        button = next(b for b in game.table.buttons if b.custom_id
                      and b.custom_id.startswith(HAND))
        clicked = time.perf_counter()
        reply = await self.timed(partial(seat.member.click, game.table, button.custom_id),
                                 self.stats.play)
        self.stats.opens += 1
        if reply is not None and reply.message is not None and reply.message.ephemeral:
            seat.hand = reply.message
            if self.args.images == "on":  # the click to its picture: with the answer, or after
                if pictured(reply.message):
                    game.pictured.append(time.perf_counter() - clicked)
                else:
                    game.unpictured[reply.message.id] = clicked

    async def move(self, game: Table, seat: Seat, rng: random.Random) -> None:
        if self.args.think_mean > 0:  # human think time, not synchronisation
            await asyncio.sleep(rng.expovariate(1 / self.args.think_mean))
        hand = seat.hand
        assert hand is not None
        seat.acted_on = stamp(hand)
        choice = pick(hand, rng)
        if choice is None:
            return
        custom_id, value = choice
        call = (partial(seat.member.click, hand, custom_id) if value is None
                else partial(seat.member.select, hand, value, custom_id=custom_id))
        result = await self.timed(call, self.stats.play, self.stats.move_play)
        if result is None or result.type not in (DEFERRED_UPDATE, UPDATE):
            seat.hand = None  # refused or failed: look at the table again
            return
        if custom_id.startswith(ASK):  # not a move yet: the confirmation to click
            seat.hand = result.message if result.type == UPDATE else None
            return
        game.actions += 1
        game.progress = time.monotonic()
        self.stats.moves += 1
        game.unshown.append(time.time())
        if result.type == UPDATE and result.message is not None:
            seat.hand = result.message

    async def run(self, game: Table, seed: int, start_after: float = 0.0) -> None:
        """One game: its lobby (``start_after`` seconds from now: when the host happens to
        open it, with ``--stagger``), then play."""
        try:
            if start_after > 0:  # a game's start time, not synchronisation
                await asyncio.sleep(start_after)
            if not await self.lobby(game):
                game.outcome = "lobby failed"
                return
            game.playing, game.outcome = True, "cut by --seconds"
            game.progress = time.monotonic()
            await self.play(game, random.Random(seed))
        except TimeoutError:
            game.outcome = "stuck"
        finally:
            game.playing = False
