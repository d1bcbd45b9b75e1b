"""The AI players: legal choices only, from a seat's view only, and the heuristic plays well."""

from __future__ import annotations

import inspect
import typing

import pytest

from game import Game, MalformedRecord, PlayerView, player_view, variant_names
from game.ai import find, names, play_out
from game.ai.heuristic import HeuristicPlayer


def test_registry_names_and_unknown_ai() -> None:
    assert names() == ["hard", "heuristic", "random"]
    with pytest.raises(MalformedRecord, match="unknown AI 'nobody'"):
        find("nobody")


LEGAL_GAMES = {("heuristic", "dice"): 3}
"""Whole games per AI and rule set (else 15). The dice heuristic weighs every roll a few
rolls ahead (most of a second a game here): 3 games already take every line-to-line step of
``game/`` (its plan: discard, take, roll on, quit; every dice rule) that 15 take, 689 of 689
(two take 686), each count measured in a fresh process (the heuristic's caches fill)."""


@pytest.mark.slow  # 15 whole games per rule set and AI (3 for the dice heuristic)
@pytest.mark.parametrize("variant", variant_names())
@pytest.mark.parametrize("ai_name", ["random", "heuristic"])
def test_ais_only_choose_legal_actions(variant: str, ai_name: str) -> None:
    """Every choice is one of the view's legal actions; the game always reaches its end."""
    for index in range(LEGAL_GAMES.get((ai_name, variant), 15)):
        game = Game(variant, ["a", "b", "c", "d"], seed=f"legal:{index}")
        players = [find(ai_name)(f"legal:{index}:{s}") for s in range(4)]
        while not game.finished:
            seat = game.to_act
            assert seat is not None
            view = player_view(game, seat)
            action = players[seat].choose(view)
            assert action in game.legal_actions()
            game.apply(seat, action)
        assert game.finished


def test_heuristic_decides_from_a_player_view_only() -> None:
    hints = typing.get_type_hints(HeuristicPlayer.choose)
    assert list(inspect.signature(HeuristicPlayer.choose).parameters) == ["self", "view"]
    assert hints["view"] is PlayerView


@pytest.mark.parametrize("variant", variant_names())
def test_heuristic_gets_no_game_to_read(variant: str) -> None:
    """The view carries no reference to the game or its state."""
    game = Game(variant, ["a", "b", "c"], seed="view-only")
    view = player_view(game, game.to_act)
    fields = {name: getattr(view, name) for name in view.__slots__}
    assert not any(isinstance(value, Game) for value in fields.values())
    action = find("heuristic")("x").choose(view)
    assert action in view.legal


def test_same_seed_same_choices() -> None:
    def history(seed: str) -> list[tuple[int, str]]:
        game = Game("dice", ["a", "b", "c"], seed="same")
        play_out(game, [find("random")(f"{seed}:{s}") for s in range(3)])
        return [(seat, str(action)) for seat, action in game.history]

    assert history("s") == history("s")
    assert history("s") != history("t")


def test_heuristic_beats_random_in_most_classic_games() -> None:
    """A smoke check, not the 2,000-game measurement of the issue."""
    wins = 0
    for index in range(100):
        game = Game("classic", ["h", "r1", "r2", "r3"], seed=f"smoke:{index}")
        players = [find("heuristic")(f"smoke:{index}:0")] + [
            find("random")(f"smoke:{index}:{s}") for s in range(1, 4)
        ]
        play_out(game, players)
        wins += 0 in player_view(game, None).winners
    assert wins > 50
