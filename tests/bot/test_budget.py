"""One budget for the requests Discord's global limit counts (bot/process/budget.py), and the outbox
waiting for its slot before it draws: what was owed meanwhile is drawn in order, a newer
table in the place (and with the repost and nonce) of the one it replaced."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any, Literal

import pytest

from bot.process.backends import make_store
from bot.process.budget import Budget
from bot.sessions.outbox import EVENT, STATE, Outbox, Owed, Write
from bot.store.sqlite import Store

GUILD, CHANNEL = 1, 2


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_slots_come_in_order_at_the_rate_after_a_burst() -> None:
    clock = Clock()
    budget = Budget(per_second=10, burst=3, clock=clock)
    waits = [round(budget._reserve(), 3) for _ in range(6)]
    assert waits == [0.0, 0.0, 0.0, 0.1, 0.2, 0.3], "three at once, then one every 0.1 s"
    clock.now += 10  # a quiet spell gives the burst back, not more
    assert [round(budget._reserve(), 3) for _ in range(4)] == [0.0, 0.0, 0.0, 0.1]


def test_requests_whose_slots_came_during_a_stall_leave_spread_out() -> None:
    """The loop stalled while ten slots came: their holders all wake at once, and leave at
    the budget's rate again (two at once, then one every 0.1 s), not as one burst of ten."""
    clock = Clock()
    budget = Budget(per_second=10, burst=2, clock=clock)
    planned = [round(budget._reserve(), 3) for _ in range(10)]
    assert planned == [0.0, 0.0] + [round(0.1 * n, 3) for n in range(1, 9)]
    clock.now += 2.0  # a stall: every slot is due, and more than due
    left = [round(budget._leave_wait(), 3) for _ in range(10)]  # each sleeps this long, once
    assert left == [0.0, 0.0] + [round(0.1 * n, 3) for n in range(1, 9)]
    assert max(sum(1 for t in left if s <= t < s + 1.0) for s in left) <= 10 + 1
    assert round(budget._reserve(), 3) == 0.9, (
        "a slot planned now comes once those still to leave have left: drawn sooner, an owed "
        "table would wait after its drawing, and miss the moves made meanwhile")


def test_requests_leaving_on_time_are_not_held_back() -> None:
    """Without a stall each request leaves when its slot comes: the second check costs nothing."""
    clock = Clock()
    budget = Budget(per_second=10, burst=3, clock=clock)
    start = clock.now
    for wait in [budget._reserve() for _ in range(8)]:
        clock.now = start + wait
        assert budget._leave_wait() == 0.0


class HeldLock(asyncio.Event):
    """discord.py's global lock, held (as after a global 429); it says when one waits."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting = asyncio.Event()

    async def wait(self) -> Literal[True]:
        self.waiting.set()
        return await super().wait()


async def test_after_a_global_429_requests_wait_in_the_budget_then_leave_spaced() -> None:
    """While discord.py holds requests after a global 429, counted ones wait for the lock in
    the budget; once it opens they take their places to leave in order, spaced, instead of
    all going at once as discord.py's own wait would let them."""
    clock, lock = Clock(), HeldLock()
    budget = Budget(per_second=10, burst=2, clock=clock,
                    http=SimpleNamespace(_global_over=lock))  # type: ignore[arg-type]
    sent: list[str] = []

    async def request(route: Route, **_: Any) -> None:
        sent.append(route.path)

    paced = budget.wrap(request)
    await paced(Route("/interactions/1/t/callback"))  # not counted: not held by the budget
    held = asyncio.ensure_future(paced(Route("/channels/1/messages")))
    await lock.waiting.wait()
    assert sent == ["/interactions/1/t/callback"], "the counted request waits for the lock"
    lock.set()
    await held
    assert sent[-1] == "/channels/1/messages"


def slots_within(budget: Budget, clock: Clock, seconds: float) -> int:
    """How many requests the budget lets go from a quiet start until ``seconds`` later."""
    start, count = clock.now, 0
    while budget._reserve() < seconds - 1e-9:
        count += 1
    clock.now = start
    return count


def test_processes_sharing_the_token_together_keep_to_one_budget() -> None:
    """Discord's global limit is per token: three processes, each its share, let no more go
    in a second (or in ten) than one process alone, and each still sends something."""
    clock = Clock()

    def three() -> list[Budget]:
        return [Budget.share(3, per_second=40, burst=5, clock=clock) for _ in range(3)]

    assert three()[0].interval == pytest.approx(3 / 40) and three()[0].burst == 1
    for seconds in (1.0, 10.0):
        alone = slots_within(Budget(per_second=40, burst=5, clock=clock), clock, seconds)
        each = [slots_within(b, clock, seconds) for b in three()]
        assert sum(each) <= alone, (seconds, each, alone)
        assert min(each) >= seconds * 40 / 3 - 1, "each still has its third"
    one = Budget.share(1, per_second=40, burst=5, clock=clock)
    assert (one.interval, one.burst) == (1 / 40, 5), "one process keeps the whole budget"


class Route:
    """What the budget reads of discord.py's ``Route``."""

    def __init__(self, path: str, method: str = "POST") -> None:
        self.path, self.method = path, method
        self.url = f"https://discord.com/api/v10{path}"


async def test_counted_requests_take_a_slot_and_a_paid_one_goes_at_once() -> None:
    clock = Clock()
    budget = Budget(per_second=10, burst=1, clock=clock)
    sent: list[str] = []

    async def request(route: Route, **_: Any) -> None:
        sent.append(route.path)

    paced = budget.wrap(request)
    await paced(Route("/interactions/1/t/callback"))  # not counted by Discord: no slot
    await paced(Route("/channels/1/messages"))  # the burst's one slot
    assert budget._reserve() > 0, "the next slot is later"
    clock.now += 1  # its time has come
    await budget.slot(CHANNEL)  # pays for the next counted request
    before = budget._next
    await paced(Route("/channels/2/messages/3"))
    assert budget._next == before, "the paid request took no second slot"
    budget.settle()
    assert sent == ["/interactions/1/t/callback", "/channels/1/messages",
                    "/channels/2/messages/3"]


class Gate:
    """A pacer that holds the outbox until the test opens it (a slot that takes a while)."""

    def __init__(self) -> None:
        self.waiting = asyncio.Event()
        self.open = asyncio.Event()
        self.settled = 0

    async def slot(self, channel_id: int) -> None:
        self.waiting.set()
        await self.open.wait()

    def settle(self) -> None:
        self.settled += 1


@pytest.fixture
async def store(tmp_path: Any) -> AsyncIterator[Store]:
    store = make_store(str(tmp_path / "budget.db"))
    await store.open()
    yield store
    await store.close()


SESSION = SimpleNamespace(guild_id=GUILD, channel_id=CHANNEL)  # what compose reads of it


async def owe(store: Store, outbox: Outbox, *items: Owed) -> None:
    """A session's commit: composed (a newer table takes over a queued one), written,
    queued."""
    outbox.composer = lambda session, changes: list(items)
    write = Write(GUILD, CHANNEL, owed=outbox.compose(SESSION, []))  # type: ignore[arg-type]
    await store.write(write)
    outbox.committed(None, CHANNEL, write.owed)


def table(version: int, repost: bool = False, replaces: int = 10) -> Owed:
    return Owed(GUILD, CHANNEL, STATE, "table", version,
                {"repost": repost, "replaces": replaces})


def summary(version: int) -> Owed:
    return Owed(GUILD, CHANNEL, EVENT, "summary", version, {"content": f"round {version}"})


async def gated(store: Store, first: Owed) -> tuple[Outbox, Gate, list[Owed], asyncio.Future[None]]:
    """An outbox owing ``first``, its delivery waiting at the gate; what it shows."""
    outbox, gate, shown = Outbox(store), Gate(), []
    outbox.pacer = gate

    async def courier(item: Owed, session: object) -> int | None:
        shown.append(item)
        return None

    outbox.courier = courier
    await owe(store, outbox, first)
    delivery = asyncio.ensure_future(outbox.deliver(CHANNEL))
    await gate.waiting.wait()
    return outbox, gate, shown, delivery


def seen(items: list[Owed]) -> list[tuple[str, int]]:
    return [(item.key, item.version) for item in items]


async def test_a_table_that_waited_for_its_slot_is_replaced_by_the_newer_one(
    store: Store,
) -> None:
    outbox, gate, shown, delivery = await gated(store, table(1))
    await owe(store, outbox, table(2))
    await owe(store, outbox, table(3))
    gate.open.set()
    await delivery
    assert seen(shown) == [("table", 3)], "one edit, drawn after the wait, shows the newest state"
    assert gate.settled == 1 and not outbox.pending(CHANNEL)
    await outbox.close()
    assert await store.owed() == []


async def test_a_new_rounds_table_replaced_while_it_waited_is_still_posted_anew(
    store: Store,
) -> None:
    """The new round's table (a repost) waits; the next move owes a table edit: the table
    drawn is posted anew, with the waiting one's nonce (one post, whoever makes it)."""
    first = table(1, repost=True)
    outbox, gate, shown, delivery = await gated(store, first)
    await owe(store, outbox, table(2))
    gate.open.set()
    await delivery
    assert seen(shown) == [("table", 2)]
    assert shown[0].body["repost"] and shown[0].nonce == first.nonce, (
        "edited into the old round's table instead of posted below its summary")
    await outbox.close()


async def test_a_table_owed_while_a_repost_is_posted_carries_that_repost(store: Store) -> None:
    """The new round's table is being posted when the next move owes a table: the newer one
    carries the repost, its nonce and the message it replaces (the courier posts only while
    that is still the table, cogs/table_posts.py). Here the post fails: the newer table posts it,
    with the same nonce (one post even if the failed request went through), rather than
    editing the old round's table."""
    first = table(1, repost=True)
    outbox, shown, posting, failed = Outbox(store), [], asyncio.Event(), asyncio.Event()

    async def courier(item: Owed, session: object) -> int | None:
        shown.append(item)
        if item is first:
            posting.set()
            await failed.wait()
            raise RuntimeError("the post failed")
        return None

    outbox.courier = courier
    await owe(store, outbox, first)
    delivery = asyncio.ensure_future(outbox.deliver(CHANNEL))
    await posting.wait()
    await owe(store, outbox, table(2))
    failed.set()
    await delivery
    await outbox.deliver(CHANNEL)  # (the retry, without waiting for its timer)
    assert seen(shown) == [("table", 1), ("table", 2)]
    again = shown[1]
    assert again.body["repost"] and again.nonce == first.nonce and again.body["replaces"] == 10
    await outbox.close()


async def test_a_new_rounds_table_owed_after_the_last_post_is_a_post_of_its_own(
    store: Store,
) -> None:
    """A waiting repost whose post was made meanwhile (the table moved on: the newer item
    replaces another message) is not the new round's post: that one keeps its own nonce."""
    first = table(1, repost=True)
    outbox, gate, shown, delivery = await gated(store, first)
    newer = table(2, repost=True, replaces=20)
    nonce = newer.nonce
    await owe(store, outbox, newer)
    gate.open.set()
    await delivery
    assert seen(shown) == [("table", 2)]
    assert shown[0].nonce == nonce != first.nonce and shown[0].body["replaces"] == 20
    await outbox.close()


async def test_after_a_restart_a_move_takes_over_the_repost_behind_a_refresh(
    store: Store,
) -> None:
    """A restarted process owes the stored repost, then a refresh of the table; a move
    owed before they are delivered replaces both and still owes the repost."""
    first = table(1, repost=True)
    await owe(store, Outbox(store), first)  # the killed process's
    outbox, shown = Outbox(store), []

    async def courier(item: Owed, session: object) -> int | None:
        shown.append(item)
        return None

    await outbox.load()
    restored = SimpleNamespace(guild_id=GUILD, channel_id=CHANNEL, version=1, sessions={})
    outbox.refresh(restored, "table")  # type: ignore[arg-type]
    assert [q.body.get("repost") for q in outbox.pending(CHANNEL)] == [True, None]
    await owe(store, outbox, table(2))
    outbox.courier = courier
    await outbox.deliver(CHANNEL)
    assert seen(shown) == [("table", 2)]
    assert shown[0].body["repost"] and shown[0].nonce == first.nonce
    await outbox.close()


async def test_an_event_owed_meanwhile_is_shown_before_any_newer_table(store: Store) -> None:
    """A round ends while a table edit waits: the summary is posted first, then the new
    round's table; no table is drawn before the summary (rendered at delivery, it would
    show the next round on the old round's table)."""
    outbox, gate, shown, delivery = await gated(store, table(1))
    await owe(store, outbox, summary(2), table(2, repost=True))
    gate.open.set()
    await delivery
    assert seen(shown) == [("summary", 2), ("table", 2)]
    await outbox.close()


async def test_a_restart_after_the_posts_before_their_marks_owes_each_once(
    store: Store, tmp_path: Any
) -> None:
    """Killed once everything was shown but before the marks were committed: the next
    process owes the summary again with its nonce (Discord returns the first post) and the
    newest table; nothing the waiting table stood for comes back."""
    outbox, gate, shown, delivery = await gated(store, table(1))
    await owe(store, outbox, summary(2), table(2, repost=True))
    gate.open.set()
    await delivery
    restarted = make_store(str(tmp_path / "budget.db"))  # (the marks are not in the file)
    await restarted.open()
    try:
        again = await restarted.owed()
    finally:
        await restarted.close()
    assert [(q.key, q.version, q.nonce) for q in again] == [
        (q.key, q.version, q.nonce) for q in shown], "each owed once more, as it was shown"
    assert ("table", 1) not in seen(again), "the replaced table is not redelivered first"
    await outbox.close()
