"""One budget for the requests Discord's global limit counts (bot/budget.py), and the outbox
waiting for its slot before it draws: a newer table takes the slot of one that waited."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.backends import make_store
from bot.budget import Budget
from bot.outbox import EVENT, STATE, Outbox, Owed, Write
from bot.store import Store

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


class Route:
    def __init__(self, path: str) -> None:
        self.path = path


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


async def commit(store: Store, outbox: Outbox, *items: Owed) -> None:
    write = Write(GUILD, CHANNEL, owed=list(items))
    await store.write(write)
    outbox.committed(None, CHANNEL, write.owed)


async def test_a_table_that_waited_for_its_slot_is_replaced_by_the_newer_one(
    store: Store,
) -> None:
    outbox = Outbox(store)
    gate = Gate()
    outbox.pacer = gate
    shown: list[tuple[str, int]] = []

    async def courier(item: Owed, session: object) -> int | None:
        shown.append((item.key, item.version))
        return None

    outbox.courier = courier
    await commit(store, outbox, Owed(GUILD, CHANNEL, STATE, "table", 1))
    delivery = asyncio.ensure_future(outbox.deliver(CHANNEL))
    await gate.waiting.wait()
    await commit(store, outbox, Owed(GUILD, CHANNEL, STATE, "table", 2))
    await commit(store, outbox, Owed(GUILD, CHANNEL, STATE, "table", 3))
    gate.open.set()
    await delivery
    assert shown == [("table", 3)], "one edit, drawn after the wait, shows the newest state"
    assert gate.settled == 1 and not outbox.pending(CHANNEL)
    await outbox.close()


async def test_an_event_owed_meanwhile_keeps_its_place(store: Store) -> None:
    outbox = Outbox(store)
    gate = Gate()
    outbox.pacer = gate
    shown: list[tuple[str, int]] = []

    async def courier(item: Owed, session: object) -> int | None:
        shown.append((item.key, item.version))
        return None

    outbox.courier = courier
    await commit(store, outbox, Owed(GUILD, CHANNEL, STATE, "table", 1))
    delivery = asyncio.ensure_future(outbox.deliver(CHANNEL))
    await gate.waiting.wait()
    await commit(store, outbox, Owed(GUILD, CHANNEL, EVENT, "summary", 2),
                 Owed(GUILD, CHANNEL, STATE, "table", 2))
    gate.open.set()
    await delivery
    assert shown == [("table", 1), ("summary", 2), ("table", 2)], "not past the summary"
    await outbox.close()
