"""The terminal game's explanations agree with the engine's own scoring."""

from __future__ import annotations

import pytest

from game import EventKind, Game, player_view
from game.ai.random import RandomPlayer
from game.cards import hand_points
from game.cli.narrate import ME, places, round_end
from game.rules import BLACK_POINTS, LLAMA_POINTS, WHITE_POINTS
from game.rules.kadabra import TOKEN_POINTS
from game.rules.tutorial import STOP_BONUS, penalty

RETURNED = {"black": -BLACK_POINTS, "white": -WHITE_POINTS, None: 0}


@pytest.mark.parametrize("variant", ["classic", "kadabra", "dice", "tutorial"])
def test_the_hands_told_at_a_round_end_score_what_the_engine_scored(variant: str) -> None:
    checked = 0
    for number in range(12):
        names = [f"p{s}" for s in range(2 + number % 4)]
        game = Game(variant, names, seed=f"narrate-{number}")
        players = [RandomPlayer(f"{number}:{s}") for s in range(len(names))]
        while not game.finished:
            seat = game.to_act
            assert seat is not None
            before = player_view(game, ME)
            events = game.apply(seat, players[seat].choose(player_view(game, seat)))
            over = next((e for e in events if e.kind is EventKind.ROUND_OVER), None)
            if over is None:
                continue
            end = round_end(before, events)
            for s, hand in enumerate(end.hands):
                points = over.points[s]
                if s in end.returned:
                    assert points == RETURNED[end.returned[s]]
                elif end.stopped_on_llama == s:
                    assert points == STOP_BONUS
                elif hand is not None:
                    assert len(hand) == end.sizes[s]
                    if before.uses_chips:
                        numbers, llama = hand_points(hand)
                        token = TOKEN_POINTS if before.uses_magic and end.holder == s else 0
                        assert points == numbers + LLAMA_POINTS * llama + token, (s, hand)
                    else:
                        assert points == -sum(penalty(c) for c in hand), (s, hand)
                    checked += 1
    assert checked > 20


def test_equal_results_share_a_place() -> None:
    assert places([12, 15, 15, 20], winners=[0]) == [1, 2, 2, 4]
    assert places([30, 8, 8], winners=[1, 2]) == [3, 1, 1]
    assert places([-3, -10, -3, -20], winners=[0, 2]) == [1, 3, 1, 4]  # most points wins
    assert places([5, 5], winners=[0, 1]) == [1, 1]
