"""The table's notification in the corners of its delivery, through the fake Discord on a
manual clock: whoever cannot see their turn is told promptly (the round's post that goes out
mentions them, or their ping comes at once), whatever the order of a busy machine.

- a new round dealt while the previous round's post is under way (the request held by the
  test, :class:`HeldPost`): its own post goes out, mentioning whom it is to notify;
- a round's post whose nonce finds an earlier post (its answer lost, the round before's):
  nobody counts as notified;
- a game restored from a snapshot older than the notified set: nobody counts as notified;
- a table deleted right after its post, while the item that edits it carries that post's
  nonce: the post made instead has a nonce of its own (Discord answers a nonce whose message
  was deleted with Unknown Message).
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

from bot import create_bot
from bot.common.clock import ManualClock
from cogs.hands import TOKEN_TTL
from fakediscord import FakeDiscord, Member, Message
from tests.bot.conftest import World, make_settings
from tests.bot.helpers import answered, click_and_confirm, current, offers, settled
from tests.bot.test_faults import GatedSaves, deferring_at_once
from tests.bot.test_liveness import WAIT, Club, club, members
from tests.bot.test_table_notifies import table_of_round
from tests.bot.test_table_repost import (
    HeldDeliveries,
    a_move,
    ana_quit_round_one,
    table_posts,
)
from tests.bot.traffic import table_round

__all__ = ["club"]  # the fixture, shared with test_liveness.py


class HeldPost:
    """The bot's post of round ``round_no``'s table, held by the test before it is sent: it
    is under way (the courier awaits Discord's answer) until the test lets it go."""

    def __init__(self, club: Club, round_no: int) -> None:
        http = club.bot.http
        self.inner: Any = http.send_message
        http.send_message = self.send  # type: ignore[method-assign]
        self.round_no = round_no
        self.held = asyncio.Event()
        self.gate = asyncio.Event()

    async def send(self, channel_id: int, *, params: Any) -> Any:
        if table_round(params.payload) == self.round_no and not self.gate.is_set():
            self.held.set()
            await self.gate.wait()
        return await self.inner(channel_id, params=params)


async def open_hands(club: Club, table: Message) -> dict[int, Message]:
    hands = {}
    for member in (club.ana, club.ben):
        hand = (await member.click(table, "My hand")).message
        assert hand is not None
        hands[member.id] = hand
    return hands


async def to_act(club: Club, hands: dict[int, Message]) -> tuple[Member, Member]:
    """(whose turn it is, the other), as their hands show it."""
    def check() -> Member | None:
        return next((m for m in (club.ana, club.ben) if offers(hands[m.id])()), None)

    mover = await club.fake.notifier.wait_for(check, WAIT, "a hand offering moves")
    return mover, (club.ben if mover is club.ana else club.ana)


async def test_a_round_dealt_while_the_last_rounds_post_is_under_way_gets_its_own_post(
    club: Club,
) -> None:
    """Round 2's post is under way when round 3 is dealt (round 3's table then took over
    that post's nonce, not knowing it would be made). Round 3 is to notify the player whose
    hand went stale; its own post goes out and mentions them (it was an edit of round 2's
    post, mentioning nobody, while the ping policy counted them as notified)."""
    table = await club.start_game(turn_timeout=0)
    hands = await open_hands(club, table)
    await click_and_confirm(club.ana, hands[club.ana.id], "Quit")
    await club.fake.notifier.wait_for(offers(hands[club.ben.id]), WAIT, "ben's turn")
    held = HeldPost(club, 2)
    try:
        await round_dealt_while_held(club, hands, held)
    finally:
        held.gate.set()  # (a failure above must not leave the bot's courier stuck)


async def round_dealt_while_held(club: Club, hands: dict[int, Message], held: HeldPost
                                 ) -> None:
    since = len(club.fake.entries)
    await click_and_confirm(club.ben, hands[club.ben.id], "Quit")  # round 1 is over
    await asyncio.wait_for(held.held.wait(), WAIT)  # round 2's post is under way
    first, second = await to_act(club, hands)
    await click_and_confirm(first, hands[first.id], "Quit")
    await club.fake.notifier.wait_for(offers(hands[second.id]), WAIT, "the second's turn")
    club.advance(TOKEN_TTL)  # the first one's hand is too old to follow the game now
    await click_and_confirm(second, hands[second.id], "Quit")  # round 3 is dealt meanwhile
    session = club.bot.sessions.get(club.channel.id)
    assert session is not None and session.game is not None
    assert session.game.state.round_no == 3
    seat = next(i for i, s in enumerate(session.seats) if s.user_id == first.id)
    assert session.timers.notified == {"round": 3, "seats": [seat], "posted": False}
    held.gate.set()
    third = await club.fake.notifier.wait_for(lambda: table_of_round(club.channel, 3), WAIT,
                                              "round 3's table")
    assert third.pinged == [first.id], "round 3's post notifies whom it was owed to"
    assert f"<@{first.id}>: your game is on." in third.text
    await club.fake.notifier.wait_for(  # (once made, the post retires round 2's)
        lambda: all(m.deleted for m in club.channel.messages
                    if table_round(m.payload()) == 2) or None, WAIT, "round 2's post retired")
    assert session.timers.notified == {"round": 3, "seats": [seat], "posted": True}
    posts = [e for e in club.fake.entries[since:] if e["kind"] == "rest"
             and e["method"] == "POST" and table_round(e.get("body")) is not None]
    assert [table_round(e["body"]) for e in posts] == [2, 3], "one post per round's table"
    assert len({e["body"]["nonce"] for e in posts}) == 2
    assert not club.fake.late_nonces


async def ping_of(club: Club, member: Member, since: int) -> Message:
    """The ping of ``member`` created or edited since the fake's event ``since``."""
    def check() -> Message | None:
        return next((m for _, m in club.fake.notifier.events[since:]
                     if m.channel is club.channel and m.content.startswith(f"⏰ <@{member.id}>")),
                    None)

    return await club.fake.notifier.wait_for(check, WAIT, f"{member.name}'s ping")


def strip_notified(db: str) -> None:
    """Make the stored game look as if saved before the notified set existed."""
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE sessions SET state = json_remove(state, '$.timers.notified')")
        conn.execute("UPDATE moves SET meta = json_remove(meta, '$.timers.notified')")
    conn.close()


async def test_a_game_restored_from_an_older_snapshot_counts_nobody_as_notified(
    tmp_path: Path,
) -> None:
    """Saved at a round's first move by a bot without the notified set: the round's post
    was made; whom it mentioned is unknown. The restarted bot follows no hand. ben leaves
    (an AI plays his seat: a change at the round's first move, which once counted every
    human then as notified); after ana's move, boss is pinged at once: nothing told him."""
    clock = ManualClock()
    settings = make_settings(tmp_path)
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Lama Club")
        channel = guild.add_text_channel("lama")
        ana, ben, boss, _ = members(guild)
        club = Club(fake, create_bot(settings, clock=clock), clock, guild, channel, ana, ben,
                    boss, boss)
        async with fake.run(club.bot):
            lobby = await answered(await ana.slash(channel, "lama start", target=300,
                                                   turn_timeout=0))
            assert lobby is not None
            await ben.click(lobby, "Join")
            await boss.click(lobby, "Join")
            await ana.click(lobby, "Start")
            await club.turn_of(ana)  # nobody moved yet
        strip_notified(settings.lama_db)
        club.bot = create_bot(settings, clock=clock)
        async with fake.run(club.bot, sync=False):
            restored = club.bot.sessions.get(channel.id)
            assert restored is not None and restored.game is not None
            assert restored.game.round_start == len(restored.game.history)
            await ping_of(club, ana, 0)  # at once: nobody counts as notified
            await ben.slash(channel, "lama leave")
            assert restored.seats[1].away and restored.game.round_start == len(
                restored.game.history)
            since = len(fake.notifier.events)
            await club.act(ana, "Draw")  # then ben's AI, then boss
            note = await ping_of(club, boss, since)  # the clock did not move: at once
            assert note.content == f"⏰ <@{boss.id}>, it is your turn."
            assert restored.timers.notified is not None
            assert restored.timers.notified["round"] == 1
        assert not fake.failures


async def test_a_table_deleted_after_its_post_is_posted_again_under_a_nonce_of_its_own(
    world: World,
) -> None:
    """Round 2's post is made while the next move's table is being committed (it took over
    that post's nonce); a moderator deletes the post at once. The move's table finds it gone
    and posts the table again: not under the deleted post's nonce (Discord answers Unknown
    Message to it for minutes, and the bot retried in vain, showing no table), under one
    derived from it."""
    ana, ben, fake = world.ana, world.ben, world.fake
    _, hands = await ana_quit_round_one(world)
    deliveries = HeldDeliveries(world)
    deliveries.hold()
    await click_and_confirm(ben, hands[ben.id], "Quit")  # round 2's table waits
    await asyncio.wait_for(deliveries.waiting.wait(), WAIT)
    first = await fake.notifier.wait_for(
        lambda: next((m for m in (ana, ben) if offers(hands[m.id])()), None), WAIT,
        "round 2's first player")
    saves = GatedSaves(world)
    with deferring_at_once():
        move = await first.click(hands[first.id], a_move(hands[first.id]))
    await asyncio.wait_for(saves.entered.wait(), WAIT)  # composed, not yet committed
    deliveries.release()
    posted = await fake.notifier.wait_for(
        lambda: t.table if (t := current(world.table)) and t.table is not None
        and table_round(t.table.payload()) == 2 else None, WAIT, "round 2's table posted")
    fake.publish_delete(posted)  # a moderator cleans the channel
    saves.gate.set()
    await settled(move)
    # (round 2's table, not round 1's: with the post deleted, round 1's table is the newest
    # in the channel until the bot posts again; a check without the round passed at once on
    # it when the move settled before the new post, and failed)
    again = await fake.notifier.wait_for(
        lambda: t.table if (t := current(world.table)) and t.table is not None
        and t.table is not posted and not t.table.deleted
        and table_round(t.table.payload()) == 2 else None, WAIT,
        "round 2's table posted again")
    assert again.id != posted.id and table_round(again.payload()) == 2
    [made, remade] = [e["body"]["nonce"] for e in table_posts(world, 0, 2)]
    assert made != remade and len(remade) <= 25
    assert not fake.late_nonces
    [gone] = fake.refusals  # the edit of the deleted post (expected: it told the bot)
    assert gone.method == "PATCH" and gone.code == 10008
    fake.refusals.remove(gone)


class LostAnswer:
    """Round ``round_no``'s table is posted, but the bot never hears Discord's answer (a
    dropped connection): its retry then waits at the held slot until the test releases it."""

    def __init__(self, club: Club, round_no: int, deliveries: HeldDeliveries) -> None:
        http = club.bot.http
        self.inner: Any = http.send_message
        http.send_message = self.send  # type: ignore[method-assign]
        self.round_no, self.deliveries = round_no, deliveries
        self.lost = asyncio.Event()

    async def send(self, channel_id: int, *, params: Any) -> Any:
        answer = await self.inner(channel_id, params=params)
        if table_round(params.payload) == self.round_no and not self.lost.is_set():
            self.lost.set()
            self.deliveries.hold()
            raise ConnectionResetError("the answer was lost")
        return answer


async def test_a_round_post_whose_answer_was_lost_stays_that_rounds_and_the_next_gets_its_own(
    club: Club,
) -> None:
    """Round 2's post was made but its answer lost; round 3 is dealt before the retry. The
    retry (its nonce finds round 2's post) stays round 2's table, as it stood at its end (a
    round keeps its table: bot.outbox.freezes); round 3 gets a post of its own, which notifies
    the player the bot cannot follow; once it is out, round 2's is retired."""
    table = await club.start_game(turn_timeout=0)
    hands = await open_hands(club, table)
    await click_and_confirm(club.ana, hands[club.ana.id], "Quit")
    await club.fake.notifier.wait_for(offers(hands[club.ben.id]), WAIT, "ben's turn")
    deliveries = HeldDeliveries(club)  # type: ignore[arg-type]
    lost = LostAnswer(club, 2, deliveries)
    await click_and_confirm(club.ben, hands[club.ben.id], "Quit")  # round 1 is over
    await asyncio.wait_for(lost.lost.wait(), WAIT)
    first, second = await to_act(club, hands)
    await click_and_confirm(first, hands[first.id], "Quit")
    await club.fake.notifier.wait_for(offers(hands[second.id]), WAIT, "the second's turn")
    club.clock.advance(TOKEN_TTL)  # the bot's clock only: the first one's hand is too old
    # to follow the game now, and Discord's nonce window is still open (its first hand
    # may have been about that old already; the fake's clock stands for the window here)
    await click_and_confirm(second, hands[second.id], "Quit")  # round 3 is dealt
    session = club.bot.sessions.get(club.channel.id)
    assert session is not None and session.game is not None
    seat = next(i for i, s in enumerate(session.seats) if s.user_id == first.id)
    assert session.timers.notified == {"round": 3, "seats": [seat], "posted": False}
    deliveries.release()
    third = await club.fake.notifier.wait_for(lambda: table_of_round(club.channel, 3), WAIT,
                                              "round 3's table")
    assert third.pinged == [first.id], "round 3's own post notifies whom it was owed to"
    await club.fake.notifier.wait_for(
        lambda: all(m.deleted for m in club.channel.messages
                    if table_round(m.payload()) == 2) or None, WAIT, "round 2's post retired")
    assert session.timers.notified == {"round": 3, "seats": [seat], "posted": True}
