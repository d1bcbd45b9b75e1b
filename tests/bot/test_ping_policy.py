"""When a turn's one ping is due (bot/timers.py): after the delay if the player's hand
follows the game or the round's table post notified them, at once if it cannot (never
opened, token too old) and nothing told them, or when it stops."""

from __future__ import annotations

from bot.timers import TimerState


def turn(timeout: int = 120) -> TimerState:
    return TimerState(turn_timeout=timeout, turn_seat=1, turn_key=4, turn_started=1000.0)


def test_without_knowledge_of_hands_the_ping_waits_the_delay() -> None:
    assert turn().ping_at(10) == 1010.0
    assert turn(timeout=30).ping_at(20) == 1015.0, "at most half the turn"
    assert TimerState().ping_at(10) is None, "no human turn: no ping"


def test_a_hand_that_cannot_follow_the_turn_is_pinged_at_once() -> None:
    assert turn().ping_at(10, None, followed=True) == 1000.0, "never opened"
    assert turn().ping_at(10, 900.0, followed=True) == 1000.0, "its token ran out before"


def test_a_seat_the_table_post_notified_waits_the_delay() -> None:
    state = turn()
    state.notify(2, [1])
    assert state.ping_at(10, None, followed=True) == 1010.0, "notified: the delay"
    assert state.ping_at(10, 900.0, followed=True) == 1010.0
    state.notify(2, [0])
    assert state.ping_at(10, None, followed=True) == 1000.0, "not notified: at once"


def test_an_open_hand_waits_the_delay_or_until_its_token_is_too_old() -> None:
    assert turn().ping_at(10, 5000.0, followed=True) == 1010.0
    assert turn().ping_at(10, 1004.0, followed=True) == 1004.0, "the token stops first"


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
