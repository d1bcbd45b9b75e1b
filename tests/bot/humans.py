"""Simulated humans at one table, as issue 29's goals describe people: each presses My hand
once when the game starts and keeps that hand message (the bot edits it as the game goes),
acts when it shows their turn (after ``Habits.think``), and presses My hand again only if
their hand has not shown their turn within ``Habits.reopen_after`` of the table naming them.

Shared by the suite's short game at Discord's own pace (tests/bot/test_play_loop_pace.py:
humans act at once and never press again, so it is deterministic) and the play-loop
benchmark (benchmarks/play_loop.py: thinking 0.3-1 s, pressing again after 5 s).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from fakediscord import FakeDiscord, Member, Message, TextChannel
from fakediscord.base import WaitTimeout
from tests.bot.helpers import (
    WAIT,
    Chooser,
    action_buttons,
    current,
    first_button,
    settled,
)

ACT, PICK, ASK = "lama:v2:act:", "lama:v2:pick:", "lama:v2:ask:"
STUCK = 30.0
"""Real seconds without anything to do before a table counts as stuck (a failure)."""


@dataclass(frozen=True)
class Habits:
    """How the humans behave (real seconds)."""

    think: tuple[float, float] = (0.0, 0.0)  # before each click, uniform; (0, 0): at once
    reopen_after: float | None = None  # press My hand again when the table has named you
    # this long and your hand still does not show your turn; None: never (wait for it)
    seed: int = 0


def offering(hand: Message | None) -> bool:
    return hand is not None and bool(action_buttons(hand) or hand.selects)


def random_choice(rng: random.Random) -> Chooser:
    """A chooser picking a random legal choice, quitting only when nothing else is left."""

    def choose(member: Member, hand: Message) -> tuple[str, str | None]:
        choices: list[tuple[str, str | None]] = [
            (b.custom_id, None) for b in hand.buttons
            if b.custom_id.startswith(ACT) and not b.disabled]
        for select in hand.selects:
            if select.custom_id.startswith(PICK):
                choices += [(select.custom_id, o.value) for o in select.options]
        keep = [c for c in choices if not (c[1] or c[0]).endswith("quit")]
        if keep:
            return rng.choice(keep)
        return first_button(member, hand)  # quitting (or its confirmation) is all that is left

    return choose


@dataclass
class Humans:
    """The humans of one game and what they did."""

    fake: FakeDiscord
    channel: TextChannel
    members: list[Member]
    habits: Habits = field(default_factory=Habits)
    choose: Chooser | None = None
    hands: dict[int, Message] = field(default_factory=dict)
    presses: dict[str, int] = field(default_factory=dict)  # My hand, per human
    reopened: int = 0  # presses after the first, because a hand did not show the turn
    think_time: float = 0.0  # real seconds spent thinking (not the bot's)
    on_reopen: Callable[[Member], None] | None = None  # told before each press again

    def __post_init__(self) -> None:
        self.rng = random.Random(self.habits.seed)
        if self.choose is None:
            self.choose = random_choice(self.rng)
        self.by_id = {m.id: m for m in self.members}

    async def press_my_hand(self, member: Member, table: Message) -> None:
        hand = (await member.click(table, "My hand")).message
        assert hand is not None and hand.ephemeral, "My hand answers with an ephemeral hand"
        self.hands[member.id] = hand
        self.presses[member.name] = self.presses.get(member.name, 0) + 1

    async def start(self) -> None:
        """The game has started: each human looks at their cards once."""
        turn = await self.fake.notifier.wait_for(
            lambda: t if (t := current(self.channel)) is not None and t.table is not None
            else None, WAIT, "the first table")
        assert turn.table is not None
        for member in self.members:
            await self.press_my_hand(member, turn.table)

    async def think(self) -> None:
        low, high = self.habits.think
        if high > 0:  # a person's think time, not synchronisation
            pause = self.rng.uniform(low, high)
            self.think_time += pause
            await asyncio.sleep(pause)

    async def act(self, member: Member) -> None:
        """``member``'s hand shows their turn: they click until it no longer offers moves."""
        assert self.choose is not None
        hand = self.hands[member.id]
        while offering(hand):
            await self.think()
            custom_id, value = self.choose(member, hand)
            result = await (member.click(hand, custom_id) if value is None
                            else member.select(hand, value, custom_id=custom_id))
            hand = await settled(result)
            self.hands[member.id] = hand

    def ready(self) -> Member | None:
        return next((m for m in self.members if offering(self.hands.get(m.id))), None)

    async def play(self) -> Message:
        """Play to the end; the final standings."""
        loop = asyncio.get_running_loop()
        named: tuple[int, float] | None = None  # (whom the table names, since when)
        pressed_for: tuple[int, int] | None = None  # the table state pressed again for
        while True:
            member = self.ready()
            if member is not None:
                named = None
                await self.act(member)
                continue
            turn = current(self.channel)
            if turn is not None and turn.final is not None:
                return turn.final
            who = turn.user_id if turn is not None and turn.user_id in self.by_id else None
            if who is None:
                named = None
            elif named is None or named[0] != who:
                named = (who, loop.time())
            stamp = turn.stamp if turn is not None else None
            deadline = STUCK
            if named is not None and self.habits.reopen_after is not None:
                deadline = named[1] + self.habits.reopen_after - loop.time()
                if deadline <= 0 and pressed_for != stamp and turn is not None \
                        and turn.table is not None:
                    pressed_for = stamp  # (once per table state: a person does not hammer)
                    self.reopened += 1
                    if self.on_reopen is not None:
                        self.on_reopen(self.by_id[named[0]])
                    await self.press_my_hand(self.by_id[named[0]], turn.table)
                    named = (named[0], loop.time())
                    continue
                deadline = max(deadline, 0.0) if pressed_for != stamp else STUCK
            await self.wait_change(stamp, max(deadline, 0.01))

    async def wait_change(self, stamp: tuple[int, int] | None, timeout: float) -> None:
        """Until a hand offers moves or the table changes; at most ``timeout`` (then the
        caller looks again: a human waiting for their hand), but never past :data:`STUCK`
        without any change (a stuck game fails)."""
        def changed() -> bool | None:
            turn = current(self.channel)
            return True if self.ready() is not None or (
                turn is not None and turn.stamp != stamp) else None

        try:
            await self.fake.notifier.wait_for(changed, min(timeout, STUCK), "the game to go on")
        except WaitTimeout:
            if timeout >= STUCK:
                raise

