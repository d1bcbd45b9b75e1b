"""Actions and cards as text, and what each seat may see (views and events)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from game import (
    Action,
    Card,
    EventKind,
    Game,
    IllegalAction,
    MalformedRecord,
    NotYourTurn,
    loads,
    player_view,
    visible_to,
)
from game.actions import DRAW, discard, play
from game.record import Record

RECORDS = Path(__file__).parent / "records"


def _game_from(variant: str, name: str, actions: int) -> tuple[Game, Record]:
    """The game of a golden record after its first ``actions`` actions."""
    doc = json.loads((RECORDS / variant / f"{name}.json").read_text(encoding="utf-8"))
    record = loads(json.dumps(doc["record"]))
    game = record.new_game()
    for seat, action in record.actions[:actions]:
        game.apply(seat, action)
    return game, record


@pytest.mark.parametrize(
    "text",
    [
        "play 3",
        "play 1 @2",
        "play 2/3*",
        "play 4/5+",
        "play L",
        "draw",
        "quit",
        "skip",
        "pass",
        "stop",
        "roll",
        "discard 3 3 L",
        "discard 6",
        "take 4",
        "take L",
    ],
)
def test_action_text_round_trips(text: str) -> None:
    action = Action.parse(text)
    assert str(action) == text
    assert Action.parse(str(action)) == action


def test_action_fields() -> None:
    gift = Action.parse("play 1 @2")
    assert gift.card is Card.parse("1") and gift.give_to == 2
    assert gift == play(Card.parse("1"), 2)
    assert Action.parse("draw") is DRAW
    assert Action.parse("take 4").card is Card.parse("4")


def test_discard_is_a_multiset() -> None:
    """docs/record.md fine point 6: the order of tiles does not matter."""
    assert Action.parse("discard L 3 3") == Action.parse("discard 3 L 3")
    assert str(Action.parse("discard L 3 3")) == "discard 3 3 L"
    assert discard([Card.parse("L"), Card.parse("3")]).tiles == (Card.parse("3"), Card.parse("L"))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "jump",
        "play",
        "play 9",
        "play 1*",
        "play L+",
        "play 1 @x",
        "play 1 @",
        "play 1 2",
        "draw 3",
        "quit now",
        "take",
        "take 3 4",
        "discard",
        "discard 7",
        "Play 3",
    ],
)
def test_action_parse_refuses_bad_text(text: str) -> None:
    with pytest.raises(MalformedRecord) as caught:
        Action.parse(text)
    assert str(caught.value)


@pytest.mark.parametrize("token", ["", "0", "7", "9", "1*", "L+", "l", "3/4", " 3", None, 3])
def test_card_parse_refuses_unknown_tokens(token: object) -> None:
    with pytest.raises(ValueError, match="card"):
        Card.parse(token)  # type: ignore[arg-type]


def test_cards_are_interned_with_their_values() -> None:
    assert Card.parse("2/3*") is Card.parse("2/3*")
    assert Card.parse("2/3*").values == (2, 3)
    assert Card.parse("L").values == (7,)
    assert Card.parse("L").has_llama and not Card.parse("6").has_llama


def test_views_hide_other_hands_in_card_games() -> None:
    game, _ = _game_from("classic", "play_same_and_next_value", 0)
    ana, ben = player_view(game, 0), player_view(game, 1)
    assert [c.token for c in ana.hand] == ["1", "3", "4", "5", "6", "L"]
    assert [c.token for c in ben.hand] == ["2", "2", "2", "2", "2", "3"]
    for view in (ana, ben):
        assert all(seat.tiles is None for seat in view.seats)
        assert [seat.hand_size for seat in view.seats] == [6, 6]
    assert ana.my_turn and ana.legal and not ben.my_turn and ben.legal == ()
    assert all(a.card is None or a.card in ana.hand for a in ana.legal)
    spectator = player_view(game, None)
    assert spectator.hand == () and spectator.legal == ()


@pytest.mark.parametrize("variant", ["classic", "kadabra", "dice", "tutorial"])
def test_a_view_lent_the_public_part_of_the_same_state_is_the_same(variant: str) -> None:
    """The bot builds every seat's view of a move from the first one's public part."""
    from game import ai

    game = Game(variant, ["ana", "ben", "cy"], seed=f"lent:{variant}")
    players = [ai.find("random")(f"lent:{s}") for s in range(3)]
    for _ in range(120):
        if game.finished:
            break
        for first in (None, game.to_act):
            lent = player_view(game, first)
            for me in (None, 0, 1, 2):
                view = player_view(game, me, lent)
                assert view == player_view(game, me)
                assert view.seats is lent.seats  # (built once)
        seat = game.to_act
        game.apply(seat, players[seat].choose(player_view(game, seat)))


def test_dice_tiles_are_public() -> None:
    game, _ = _game_from("dice", "deal_one_at_a_time_row_laid_out", 0)
    view = player_view(game, 0)
    assert [c.token for c in view.seats[1].tiles or ()] == ["L"] * 6
    assert [c.token for c in view.row or ()] == ["1", "2", "3", "4", "5", "6", "L"]


def test_drawn_card_only_for_its_drawer() -> None:
    game, _ = _game_from("tutorial", "stop_refused_after_drawing_playable", 1)
    drawer, other = player_view(game, 0), player_view(game, 1)
    assert drawer.drawn is Card.parse("5")
    assert other.drawn is None and player_view(game, None).drawn is None
    assert [str(a) for a in drawer.legal] == ["play 5", "pass"]


def test_drew_card_event_is_private_to_the_drawer() -> None:
    game, _ = _game_from("classic", "draw_then_play_drawn_card", 0)
    events = game.apply(0, DRAW)
    private = [e for e in events if e.kind is EventKind.DREW_CARD]
    assert len(private) == 1 and private[0].private_to == 0 and private[0].card == "6"
    assert [e.kind for e in visible_to(events, 1)] == [EventKind.DREW]
    assert [e.kind for e in visible_to(events, None)] == [EventKind.DREW]
    assert EventKind.DREW_CARD in [e.kind for e in visible_to(events, 0)]
    assert all(e.card is None for e in visible_to(events, 1))


def test_forced_draw_card_is_private_to_the_drawer() -> None:
    game, record = _game_from("kadabra", "plus_forces_next_active_player_to_draw", 3)
    seat, action = record.actions[3]
    events = game.apply(seat, action)
    drawn = [e for e in events if e.kind is EventKind.DREW_CARD]
    assert [(e.seat, e.private_to, e.card) for e in drawn] == [(2, 2, "4/5")]
    assert not [e for e in visible_to(events, 0) if e.kind is EventKind.DREW_CARD]


def test_refusals_name_the_action_and_the_situation() -> None:
    game, _ = _game_from("classic", "refused_wrong_value", 1)
    with pytest.raises(IllegalAction) as wrong:
        game.apply(1, Action.parse("play 5"))
    assert "play 5" in str(wrong.value) and "ben" in str(wrong.value)
    assert "3" in str(wrong.value).replace("play 5", "")  # the top card it does not follow
    with pytest.raises(NotYourTurn) as turn:
        game.apply(0, Action.parse("play 4"))
    assert "play 4" in str(turn.value) and "ben" in str(turn.value)
    with pytest.raises(IllegalAction) as missing:
        game.apply(1, Action.parse("play 6"))
    assert "play 6" in str(missing.value) and "hand" in str(missing.value)


def test_dice_refusal_names_the_roll() -> None:
    game, _ = _game_from("dice", "discard_compulsory_take_refused", 1)
    with pytest.raises(IllegalAction) as caught:
        game.apply(0, Action.parse("take 1"))
    assert "take 1" in str(caught.value) and "3 1 2" in str(caught.value)
    assert "discard" in str(caught.value)


def test_empty_pile_refusal_says_so() -> None:
    game, _ = _game_from("classic", "draw_refused_pile_empty", 19)
    with pytest.raises(IllegalAction, match="empty"):
        game.apply(1, DRAW)
