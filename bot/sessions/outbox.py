"""What a committed change owes the channel, and its delivery.

A change and the messages it owes are written in one transaction (``Write``):
nothing a player was shown can be lost, and nothing committed goes unshown.
Two kinds of owed item (``Owed``):

- *state* (``table``, ``lobby``): only the latest matters. A newer one replaces
  the older in the store and in the queue (several AI moves become one edit);
  it is rendered at delivery from the session, which is what the store holds.
- *event* (``summary``, ``standings``, ``note``): each is posted once, in
  order, before anything newer of that channel. Its body is the message itself,
  rendered when it was committed, so a restarted process posts exactly it.

Every post carries the item's ``nonce`` with ``enforce_nonce`` (discord.py sets
it whenever a nonce is given): a post retried after a crash returns the first
message instead of showing a second one. Delivered items are marked done
without a commit of their own: the marks ride on the next write, or on one
batched flush soon after (:meth:`Outbox.flush_soon`); a crash before that only
redelivers, which edits in place or meets the nonce.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Awaitable, Callable, Iterable
from typing import Protocol

from bot.common import faults
from bot.sessions.state import Change, Status
from bot.store.owed import EVENT as EVENT
from bot.store.owed import STATE as STATE
from bot.store.owed import Owed as Owed
from bot.store.owed import Write as Write
from bot.store.owed import derived_nonce as derived_nonce
from bot.store.owed import new_nonce as new_nonce

log = logging.getLogger(__name__)

FLUSH_AFTER = 0.5  # seconds: marks not carried by a write are committed this soon after
RETRY_AFTER = (0.5, 1.0, 2.0, 5.0, 15.0, 30.0)  # seconds between delivery attempts
PARALLEL_CHANNELS = 8  # channels delivered at once at start-up


class ChannelGone(Exception):
    """Discord refuses the channel (deleted, or no permission): its owed items are void."""


class Pacer(Protocol):
    """Discord's rate limits for the channels' messages (bot/process/budget.py)."""

    async def slot(self, channel_id: int) -> None: ...
    def settle(self) -> None: ...


class Served(Protocol):
    def get(self, channel_id: int) -> object: ...


class Owing(Protocol):
    """A session as the outbox sees it (:class:`bot.sessions.sessions.Session` is one; the outbox
    sits below the sessions and does not import them)."""

    guild_id: int
    channel_id: int
    version: int
    status: Status
    sessions: Served  # the live sessions: the one ``channel_id`` serves may be another


class OutboxStore(Protocol):
    async def owed(self) -> list[Owed]: ...
    def note_delivered(self, item: Owed) -> None: ...
    def note_message(self, guild_id: int, channel_id: int, key: str, message_id: int) -> None: ...
    async def flush_notes(self) -> None: ...


Composer = Callable[["Owing", "list[Change]"], list[Owed]]
Courier = Callable[[Owed, "Owing | None"], Awaitable["int | None"]]
GoneHandler = Callable[[int, "Owing | None", BaseException], Awaitable[None]]
Exempt = Callable[[Owed, "Owing | None"], bool]


def default_compose(session: Owing, changes: list[Change]) -> list[Owed]:
    """Without the Discord side (unit tests, benchmarks): owe the session's message only."""
    key = "lobby" if session.status is Status.LOBBY else "table"
    return [Owed(session.guild_id, session.channel_id, STATE, key, session.version)]


def take_over(item: Owed, old: Owed) -> None:
    """``item`` replaces ``old``: it owes ``old``'s repost, the same one (its nonce: one post,
    whoever makes it, a crash's retry included; and the message it ``replaces``: the courier
    posts only while that message is still the current one, and edits the post once it is
    made). Once ``old``'s post was made, an ``item`` owed since replaces that post: it is a
    repost of its own only if it asks for one itself (e.g. a new round), with its own nonce.
    ``old`` under way when ``item`` was owed, that is known only at delivery: the round the
    nonce's post shows (``nonce_round``) tells the courier whether ``item``, a table of a
    later round, still owes a post of its own (under a nonce derived from this one)."""
    if item.body.get("repost") and item.body.get("replaces") != old.body.get("replaces"):
        return
    item.body["repost"] = True
    item.body["replaces"] = old.body.get("replaces")
    item.nonce = old.nonce
    nonce_round = old.body.get("nonce_round", old.body.get("round"))
    if nonce_round is not None:
        item.body["nonce_round"] = nonce_round


def freezes(item: Owed, old: Owed) -> bool:
    """``item``, a table of a new round, comes while ``old``, the post of the round before,
    was never made nor is under way (its channel was held: the game does not wait for it;
    under way, its nonce is the flying item's: see :func:`take_over`). That round keeps
    its table: ``old`` becomes a post of that round's last state, which ``item`` carries
    (``previous``, rendered by the composer when the round ended), posted in its place in the
    queue (before the round's summary); ``item`` is the new round's own post. True if so."""
    previous = item.body.get("previous")
    if (previous is None or old.answering or old.body.get("round") is None
            or old.body.get("round") != item.body.get("previous_round")
            or old.body.get("replaces") != item.body.get("replaces")):
        return False  # (not the round before's, or its post was made meanwhile)
    old.kind, old.body = EVENT, {**previous, "frozen": True}
    return True


class Outbox:
    """Queues of owed items per channel, mirrored from the store; delivers them in order."""

    def __init__(self, store: OutboxStore) -> None:
        self.store = store
        self.composer: Composer = default_compose
        self.courier: Courier | None = None
        self.on_gone: GoneHandler | None = None
        self.pacer: Pacer | None = None  # waits for Discord's limits before an item is drawn
        self.exempt: Exempt | None = None  # an item whose request the pacer does not count
        self._queues: dict[int, list[Owed]] = {}
        self._sessions: dict[int, Owing] = {}
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = (
            weakref.WeakValueDictionary())  # a channel's, while a delivery holds or awaits it
        self._in_flight: dict[int, Owed] = {}
        self._retries: dict[int, int] = {}
        self._timers: dict[int, asyncio.TimerHandle] = {}
        self._flush: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._couriers: dict[int, asyncio.Task[None]] = {}  # a channel's own delivery task
        self._again: set[int] = set()  # owed more while its task was delivering
        self.closing = False

    # ---- committing ------------------------------------------------------
    def compose(self, session: Owing, changes: list[Change]) -> list[Owed]:
        """What this change owes. A state item replaces the older one of its key (queued,
        or under delivery right now: that one is spared in the store, so a crash redelivers
        both in order) and takes over its repost (:func:`take_over`). The older one may be
        drawn and delivered after this item was composed, before it is committed (the
        commit awaits the store): whether its post was made is known only at delivery."""
        items = self.composer(session, changes)
        queued = self._queues.get(session.channel_id, [])
        flying = self._in_flight.get(session.channel_id)
        for item in items:
            if item.kind != STATE:
                continue
            if flying is not None and flying.key == item.key and (
                    flying.kind == STATE or flying.body.get("frozen")):
                item.spare = flying.id
            old = next((q for q in reversed(queued) if q.kind == STATE and q.key == item.key
                        and q.body.get("repost")), None)  # (the newest; after a restart a
            if old is None:  # refresh may follow it; one under delivery is at the head)
                continue
            if (flying is None or old.nonce != flying.nonce) and freezes(item, old):
                item.spare = old.id  # (its row stays: it is delivered as it is now)
            else:
                take_over(item, old)
        return items

    def committed(
        self, session: Owing | None, channel_id: int, items: Iterable[Owed], *, end: bool = False,
        moved_from: int | None = None,
    ) -> None:
        """``items`` are in the store now: queue them (state items replace their older self),
        each in its own channel's queue (a game in a thread owes its parent channel a few).

        ``end``: the session ended; the state items owed before are void (as in the store).
        ``moved_from``: the session left that channel (for its thread): the same there.
        """
        queue = self._queues.setdefault(channel_id, [])
        if end:
            queue[:] = [q for q in queue if q.kind != STATE]
        if moved_from is not None:
            left = self._queues.get(moved_from, [])
            left[:] = [q for q in left if q.kind != STATE or q is self._in_flight.get(moved_from)]
        for item in items:
            target = queue if item.channel_id == channel_id else self._queues.setdefault(
                item.channel_id, [])
            if item.kind == STATE:
                target[:] = [q for q in target if not (q.kind == STATE and q.key == item.key)]
            target.append(item)
        if session is not None:
            self._sessions[channel_id] = session

    def claim(self, channel_id: int, key: str, kind: str = STATE) -> Owed | None:
        """Take the owed item ``key`` (a state; or the event of ``kind``) to deliver it
        through an interaction's answer."""
        queue = self._queues.get(channel_id, [])
        item = next((q for q in queue if q.kind == kind and q.key == key), None)
        if item is not None:
            queue.remove(item)
        return item

    def void(self, channel_id: int, nonce: str) -> bool:
        """The queued event posted under ``nonce`` is not wanted any more (a ping whose turn
        ended before it went out: posted now, it would notify for nothing). True if it was
        still queued, not under delivery; it is marked done (with the next write)."""
        queue = self._queues.get(channel_id, [])
        item = next((q for q in queue if q.kind == EVENT and q.nonce == nonce), None)
        if item is None or item is self._in_flight.get(channel_id):
            return False
        queue.remove(item)
        self.store.note_delivered(item)
        return True

    def give_back(self, item: Owed) -> None:
        """A claimed item could not be delivered by the interaction: the channel gets it."""
        item.answering = False
        queue = self._queues.setdefault(item.channel_id, [])
        if not any(q.kind == STATE and q.key == item.key for q in queue):
            queue.insert(0, item)

    def refresh(self, session: Owing, key: str) -> None:
        """Owe ``key`` again without a write (after a restart: bring the message up to date)."""
        queue = self._queues.setdefault(session.channel_id, [])
        self._sessions[session.channel_id] = session
        if not any(q.kind == STATE and q.key == key and q.id is None for q in queue):
            queue.append(Owed(session.guild_id, session.channel_id, STATE, key, session.version))

    async def load(self, owns: Callable[[int], bool] = lambda guild_id: True) -> None:
        """Start-up: everything the store says is owed (before this process owes anything) in
        the guilds this process ``owns`` (its shards; other processes deliver the rest)."""
        known = {q.id for queue in self._queues.values() for q in queue}
        for item in await self.store.owed():
            if item.id not in known and owns(item.guild_id):
                self._queues.setdefault(item.channel_id, []).append(item)

    def attach(self, session: Owing) -> None:
        self._sessions[session.channel_id] = session

    def owed_channels(self) -> list[int]:
        return [c for c, q in self._queues.items() if q]

    def pending(self, channel_id: int) -> list[Owed]:
        return list(self._queues.get(channel_id, []))

    # ---- delivering ------------------------------------------------------
    def done(self, item: Owed, message_id: int | None = None) -> None:
        """``item`` is shown (``message_id``: the message it made); marked with the next write."""
        self.store.note_delivered(item)
        if message_id is not None and item.kind == STATE:
            self.store.note_message(item.guild_id, item.channel_id, item.key, message_id)
        faults.point(f"delivered:{item.key}", item.channel_id)
        self.flush_soon()

    async def deliver(self, channel_id: int) -> None:
        """Deliver the channel's owed items, oldest first; stop at a failure and retry later.

        With a pacer, each item is drawn only once its request may go (:meth:`_draw`)."""
        lock = self._locks.get(channel_id)
        if lock is None:
            lock = self._locks[channel_id] = asyncio.Lock()
        async with lock:
            queue = self._queues.get(channel_id, [])
            while queue and self.courier is not None and not queue[0].answering:
                if not await self._draw(channel_id, queue):
                    break
                item = queue[0]
                self._in_flight[channel_id] = item
                session = self._sessions.get(channel_id)
                faults.point(f"deliver:{item.key}", channel_id)
                try:
                    try:
                        message_id = await self.courier(item, session)
                    finally:  # (before a retry is scheduled: its task starts unpaid)
                        self._in_flight.pop(channel_id, None)
                        if self.pacer is not None:
                            self.pacer.settle()
                except ChannelGone as gone:
                    self._drop_channel(channel_id, gone)
                    if self.on_gone is not None:
                        await self.on_gone(channel_id, session, gone.__cause__ or gone)
                    return
                except Exception:
                    log.warning("could not deliver %s %s to channel %s; will retry", item.kind,
                                item.key, channel_id, exc_info=True)
                    self._retry_later(channel_id)
                    return
                if item in queue:
                    queue.remove(item)
                self._retries.pop(channel_id, None)
                self.done(item, message_id)
            if not queue:
                self._queues.pop(channel_id, None)
                session = self._sessions.get(channel_id)
                if session is not None and session.sessions.get(channel_id) is not session:
                    self._sessions.pop(channel_id, None)

    def kick(self, channel_id: int) -> None:
        """Deliver the channel's owed items in a task of its own (at most one per channel):
        game time (AI seats, timers) never waits on channel time. Owed while that task
        delivers, they are delivered by it too (a newer table replaces the queued one: several
        moves become one edit); after a failure, the retry delivers them."""
        if self.closing:
            return
        self._again.add(channel_id)
        task = self._couriers.get(channel_id)
        if task is None or task.done():
            task = asyncio.ensure_future(self._courier_task(channel_id))
            self._couriers[channel_id] = task
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def delivered(self, channel_id: int) -> None:
        """Until the channel's delivery task (:meth:`kick`) is done: what was owed is shown,
        or failed and waits for its retry (not attempted again at once here). Without a
        running task (it ended, or the outbox is closing), what is owed is delivered here."""
        task = self._couriers.get(channel_id)
        if task is not None and not task.done():
            await asyncio.shield(task)
        elif channel_id not in self._timers:  # (a failure's retry delivers it in its time)
            await self.deliver(channel_id)

    async def _courier_task(self, channel_id: int) -> None:
        try:
            while channel_id in self._again:
                self._again.discard(channel_id)
                await self.deliver(channel_id)
                if channel_id in self._timers:  # failed: its retry delivers the rest
                    break
        except Exception:
            log.exception("the delivery task of channel %s failed", channel_id)
        finally:
            self._again.discard(channel_id)
            if self._couriers.get(channel_id) is asyncio.current_task():
                del self._couriers[channel_id]

    async def _draw(self, channel_id: int, queue: list[Owed]) -> bool:
        """Wait for the channel's slot *before* drawing its next item (False: none is left).

        Nothing is drawn while it waits: a table owed meanwhile replaces the queued one as
        any newer state does (taking over its repost and nonce, its row deleted in the same
        commit), and an event owed meanwhile keeps its place, so the item drawn after the
        wait is the queue's head, in order, showing the latest state. (A drawn item would
        be rendered from the session at delivery anyway: drawn before an event owed during
        the wait, it would show what follows that event, e.g. the next round on the old
        round's table before its summary.)"""
        if self.pacer is None:
            return True
        if queue and self.exempt is not None and self.exempt(queue[0],
                                                            self._sessions.get(channel_id)):
            return True  # (an interaction token's request: not the budget's; drawn at once)
        await self.pacer.slot(channel_id)
        if queue and self.courier is not None and not queue[0].answering:
            return True
        self.pacer.settle()  # (claimed, voided or being answered meanwhile: the slot goes unused)
        return False

    async def deliver_all(self, channels: Iterable[int] | None = None) -> None:
        gate = asyncio.Semaphore(PARALLEL_CHANNELS)

        async def one(channel_id: int) -> None:
            async with gate:
                await self.deliver(channel_id)

        await asyncio.gather(*(one(c) for c in list(channels or self.owed_channels())))

    def _drop_channel(self, channel_id: int, error: BaseException) -> None:
        dropped = self._queues.pop(channel_id, [])
        for item in dropped:
            self.store.note_delivered(item)
        self.flush_soon()
        log.warning("channel %s cannot be used (%s): dropped %d owed messages", channel_id,
                    error.__cause__ or error, len(dropped))

    def _retry_later(self, channel_id: int) -> None:
        if self.closing or channel_id in self._timers:
            return
        attempt = self._retries.get(channel_id, 0)
        self._retries[channel_id] = attempt + 1
        delay = RETRY_AFTER[min(attempt, len(RETRY_AFTER) - 1)]
        loop = asyncio.get_running_loop()
        self._timers[channel_id] = loop.call_later(delay, self._retry, channel_id)

    def _retry(self, channel_id: int) -> None:
        self._timers.pop(channel_id, None)
        self._spawn(self.deliver(channel_id))

    def _spawn(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ---- marks -----------------------------------------------------------
    def flush_soon(self) -> None:
        """Commit the marks within :data:`FLUSH_AFTER` unless a write carries them first."""
        if self._flush is None or self._flush.done():
            self._flush = asyncio.ensure_future(self._flush_later())

    async def _flush_later(self) -> None:
        await asyncio.sleep(FLUSH_AFTER)
        try:
            await self.store.flush_notes()
        except Exception:
            log.warning("could not save delivery marks; they go with the next write",
                        exc_info=True)

    async def close(self) -> None:
        """Shutdown: deliver what is owed (bounded by the caller), then save the marks."""
        self.closing = True
        for handle in self._timers.values():
            handle.cancel()
        self._timers.clear()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._flush is not None and not self._flush.done():
            self._flush.cancel()
        await self.store.flush_notes()
