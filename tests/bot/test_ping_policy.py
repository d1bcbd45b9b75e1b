"""When a turn's one ping is due (bot/policies/timers.py): a hand that follows the game shows the
turn
at once, so its player is pinged only once part of the turn time has passed (half, by
default; with no turn timer, a fixed delay), or when its token stops; a player whose hand
cannot follow (never opened, token too old) at once, unless the round's table post notified
them: then after a short delay."""

from __future__ import annotations

from bot.policies.timers import DEFAULT_TURN_TIMEOUT, NOTIFIED_PING_DELAY, TimerState
from bot.sessions.sessions import Session
from fakediscord import Message
from tests.bot.conftest import World
from tests.bot.helpers import WAIT, answered, click_and_confirm, current, offers
from tests.bot.test_game_time import Held


def turn(timeout: int = 120) -> TimerState:
    return TimerState(turn_timeout=timeout, turn_seat=1, turn_key=4, turn_started=1000.0)


def test_without_knowledge_of_hands_the_ping_waits_part_of_the_turn() -> None:
    assert turn().ping_at(0.5, 60) == 1060.0, "half of 120 s"
    assert turn(timeout=30).ping_at(0.5, 60) == 1015.0
    assert turn(timeout=0).ping_at(0.5, 45) == 1045.0, "no turn timer: the fixed delay"
    assert TimerState().ping_at(0.5, 60) is None, "no human turn: no ping"


def test_a_hand_that_cannot_follow_the_turn_is_pinged_at_once() -> None:
    assert turn().ping_at(0.5, 60, None, followed=True) == 1000.0, "never opened"
    assert turn().ping_at(0.5, 60, 900.0, followed=True) == 1000.0, "its token ran out before"


def test_a_seat_the_table_post_notified_waits_a_short_delay() -> None:
    state = turn()
    state.notify(2, [1])
    assert state.ping_at(0.5, 60, None, followed=True) == 1000.0 + NOTIFIED_PING_DELAY
    assert state.ping_at(0.5, 60, 900.0, followed=True) == 1000.0 + NOTIFIED_PING_DELAY
    state.notify(2, [0])
    assert state.ping_at(0.5, 60, None, followed=True) == 1000.0, "not notified: at once"


def test_an_open_hand_waits_half_the_turn_or_until_its_token_is_too_old() -> None:
    assert turn().ping_at(0.5, 60, 5000.0, followed=True) == 1060.0, "60 s of 120"
    assert turn().ping_at(0.25, 60, 5000.0, followed=True) == 1030.0, "configurable"
    assert turn(timeout=0).ping_at(0.5, 60, 5000.0, followed=True) == 1060.0, "no timer"
    assert turn().ping_at(0.5, 60, 1004.0, followed=True) == 1004.0, "the token stops first"
    state = turn()
    state.notify(2, [1])
    assert state.ping_at(0.5, 60, 5000.0, followed=True) == 1060.0, "open: the hand shows it"


def test_the_ping_and_the_table_age_are_saved_with_the_session() -> None:
    state = turn()
    state.ping = {"seat": 1, "key": 4, "nonce": "n", "message": 77}
    state.table_posted = 999.0
    state.notify(3, [1, 0])
    again = TimerState.from_dict(state.to_dict())
    assert again.ping == state.ping and again.table_posted == 999.0
    assert again.notified == {"round": 3, "seats": [0, 1], "posted": False}
    older = state.to_dict()
    del older["notified"]
    assert TimerState.from_dict(older).notified is None, "an older snapshot: nobody notified"


# ---- through the fake Discord, on the manual clock ------------------------------------------


async def open_hands_at_bens_turn(world: World) -> tuple[Session, Message]:
    """ana and ben play, each hand open (it follows the game); ana plays: ben's turn, his
    hand shows it. The session and ben's hand."""
    lobby = await answered(await world.ana.slash(world.table, "lama start", variant="classic"))
    assert lobby is not None
    await world.ben.click(lobby, "Join")
    await world.ana.click(lobby, "Start")
    turn = await world.fake.notifier.wait_for(
        lambda: t if (t := current(world.table)) is not None and t.user_id == world.ana.id
        else None, WAIT, "ana's turn")
    assert turn.table is not None
    hands = {m.id: (await m.click(turn.table, "My hand")).message for m in (world.ana,
                                                                             world.ben)}
    ana, ben = hands[world.ana.id], hands[world.ben.id]
    assert ana is not None and ben is not None
    await click_and_confirm(world.ana, ana, "Draw")
    await world.fake.notifier.wait_for(offers(ben), WAIT, "ben's hand to show his turn")
    session = world.bot.sessions.get(world.table.id)
    assert session is not None and session.timers.turn_seat == 1
    await world.bot.sessions.outbox.deliver(world.table.id)
    return session, ben


def pings(world: World) -> list[str]:
    return [str(e["body"]["content"]) for e in world.fake.entries if e["kind"] == "rest"
            and e["method"] == "POST" and isinstance(e.get("body"), dict)
            and "⏰" in str(e["body"].get("content"))]


async def test_an_open_hand_showing_the_turn_is_pinged_only_half_way(world: World) -> None:
    session, _ = await open_hands_at_bens_turn(world)
    started = session.timers.turn_started
    assert started is not None
    assert world.bot.sessions.timers.next_due(session) == (  # type: ignore[attr-defined]
        started + DEFAULT_TURN_TIMEOUT / 2, "remind"), "no ping before half the turn"
    ping = world.table.wait_for_message(lambda m: "⏰ <@" in m.content, timeout=WAIT)
    world.clock.advance(DEFAULT_TURN_TIMEOUT / 2)
    note = await ping
    assert note.content == (f"⏰ <@{world.ben.id}>, it is still your turn: 60 seconds left, "
                            "then the bot plays for you."), "one ping, half-way, not before"
    assert len(pings(world)) == 1 and session.timers.reminded


async def test_a_ping_its_player_answered_before_it_went_out_is_never_posted(
    world: World,
) -> None:
    """The channel is held (its bucket spent) when ben's ping is due; ben plays from his
    open hand: his ping is dropped, not posted then folded (no notification for nothing, no
    trace in the channel)."""
    session, ben = await open_hands_at_bens_turn(world)
    outbox = world.bot.sessions.outbox
    held = Held(outbox.pacer, world.fake.notifier.notify)
    outbox.pacer = held
    try:
        world.clock.advance(DEFAULT_TURN_TIMEOUT / 2)
        await world.fake.notifier.wait_for(
            lambda: True if session.timers.reminded and held.waiting else None, WAIT,
            "ben's ping to be owed while the channel is held")
        await click_and_confirm(world.ben, ben, "Draw")
    finally:
        held.open.set()
    await world.fake.notifier.wait_for(
        lambda: True if (t := current(world.table)) is not None and t.user_id == world.ana.id
        else None, WAIT, "the table to show ana's turn")
    await outbox.deliver(world.table.id)  # (after the channel's own task: its lock)
    assert pings(world) == [], "no ping and no trace of it"
    assert not any("⏰" in m.content for m in world.table.messages)
