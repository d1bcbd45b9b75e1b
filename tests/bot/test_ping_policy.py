"""When a turn's one ping is due (bot/timers.py): a hand that follows the game shows the turn
at once, so its player is pinged only once part of the turn time has passed (half, by
default; with no turn timer, a fixed delay), or when its token stops; a player whose hand
cannot follow (never opened, token too old) at once, unless the round's table post notified
them: then after a short delay."""

from __future__ import annotations

from bot.timers import NOTIFIED_PING_DELAY, TimerState


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
