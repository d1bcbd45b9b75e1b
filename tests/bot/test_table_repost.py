"""A new round's table is posted once, then edited: moves owed while its post waits or is
under way never post it again (each such post costs a slot of the bot's scarce global
budget, even when Discord answers it with the message its nonce already made).

The order of a busy machine is made here, deterministically: the outbox's slot is held
(nothing is drawn while it waits, bot/process/budget.py) and the store's write is held
(tests/bot/test_faults.py), so the round's table is posted *between* the composing of the
next move's table and its commit, and the move after that is owed while that one waits.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fakediscord import Member, Message
from tests.bot.conftest import World
from tests.bot.helpers import (
    WAIT,
    action_buttons,
    answered,
    click_and_confirm,
    current,
    offers,
    settled,
)
from tests.bot.test_faults import GatedSaves, deferring_at_once
from tests.bot.traffic import CHANNEL_MESSAGES, table_round


class HeldDeliveries:
    """The bot's pacer, held by the test: an owed message waits for its slot (and is not
    drawn) until the test lets it go, as under a spent global budget."""

    def __init__(self, world: World) -> None:
        outbox = world.bot.sessions.outbox
        self.inner: Any = outbox.pacer
        outbox.pacer = self
        self.open = asyncio.Event()
        self.waiting = asyncio.Event()  # a delivery waits at the held slot
        self.open.set()

    def hold(self) -> None:
        self.waiting.clear()
        self.open.clear()

    def release(self) -> None:
        self.open.set()

    async def slot(self, channel_id: int) -> None:
        if not self.open.is_set():
            self.waiting.set()
        await self.open.wait()
        if self.inner is not None:
            await self.inner.slot(channel_id)

    def settle(self) -> None:
        if self.inner is not None:
            self.inner.settle()


def a_move(hand: Message) -> str:
    """A move that keeps the round going (not Quit)."""
    return next(c for c in action_buttons(hand) if not c.endswith(":quit"))


def table_posts(world: World, since: int, round_no: int) -> list[dict[str, Any]]:
    """The channel posts (POST .../messages) of round ``round_no``'s table since ``since``."""
    return [e for e in world.fake.entries[since:]
            if e["kind"] == "rest" and e["method"] == "POST"
            and CHANNEL_MESSAGES.match(e["path"]) and table_round(e.get("body")) == round_no]


async def ana_quit_round_one(world: World) -> tuple[Message, dict[int, Message]]:
    """ana and ben play a classic game (to 300: no end in sight), their hands open (they
    follow the game), and ana quits round 1: ben's turn, whose quit ends the round. The
    first table and the hands by user id."""
    ana, ben, fake = world.ana, world.ben, world.fake
    lobby = await answered(await ana.slash(world.table, "lama start", variant="classic",
                                           target=300))
    assert lobby is not None
    await ben.click(lobby, "Join")
    await ana.click(lobby, "Start")
    turn = await fake.notifier.wait_for(
        lambda: t if (t := current(world.table)) and t.user_id == ana.id else None,
        WAIT, "ana's turn")
    assert turn.table is not None
    hands: dict[int, Message] = {}
    for member in (ana, ben):  # kept open: they follow the game
        hand = (await member.click(turn.table, "My hand")).message
        assert hand is not None
        hands[member.id] = hand
    await click_and_confirm(ana, hands[ana.id], "Quit")
    await fake.notifier.wait_for(offers(hands[ben.id]), WAIT, "ben's turn")
    return turn.table, hands


async def test_a_new_rounds_table_is_posted_once_then_edited_whatever_is_owed_meanwhile(
    world: World,
) -> None:
    ana, ben, fake = world.ana, world.ben, world.fake
    outbox = world.bot.sessions.outbox
    first_table, hands = await ana_quit_round_one(world)

    deliveries = HeldDeliveries(world)
    deliveries.hold()
    since = len(fake.entries)
    await click_and_confirm(ben, hands[ben.id], "Quit")  # round 1 is over
    await asyncio.wait_for(deliveries.waiting.wait(), WAIT)
    owed = outbox.pending(world.table.id)
    assert "summary" in [q.key for q in owed], owed
    assert owed[-1].key == "table" and owed[-1].body["repost"], "the new round's table waits"

    def to_act() -> Member | None:
        return next((m for m in (ana, ben) if offers(hands[m.id])()), None)

    first = await fake.notifier.wait_for(to_act, WAIT, "round 2's first player")
    second = ben if first is ana else ana
    saves = GatedSaves(world)
    with deferring_at_once():
        move = await first.click(hands[first.id], a_move(hands[first.id]))
    await asyncio.wait_for(saves.entered.wait(), WAIT)  # composed, not yet committed
    deliveries.release()  # the round's table is posted meanwhile
    await fake.notifier.wait_for(lambda: first_table.deleted or None, WAIT,
                                 "round 2's table posted, round 1's gone")
    new_table = current(world.table)
    assert new_table is not None and new_table.table is not None
    assert table_round(new_table.table.payload()) == 2
    deliveries.hold()
    saves.gate.set()  # the move is committed; its table waits for its slot
    await settled(move)
    await asyncio.wait_for(deliveries.waiting.wait(), WAIT)
    await fake.notifier.wait_for(offers(hands[second.id]), WAIT, "the second move's turn")
    await settled(await second.click(hands[second.id], a_move(hands[second.id])))
    deliveries.release()
    shown = await fake.notifier.wait_for(
        lambda: t if (t := current(world.table)) and t.user_id == first.id
        and t.stamp != new_table.stamp else None, WAIT, "the table to show both moves")

    posts = table_posts(world, since, 2)
    assert len(posts) == 1, f"round 2's table is posted once, then edited: {posts}"
    assert shown.table is new_table.table and shown.table.edits >= 1
    assert not fake.late_nonces
