"""The hard AI's evaluation of a round end: the chance to win the game, not the round."""

from __future__ import annotations

import pytest

from game.ai.evaluate import game_values, rounds_left, win_chances

CLASSIC = {"target": 40}


def test_chances_sum_to_one_and_favour_the_fewest_points() -> None:
    chances = win_chances("classic", [10, 20, 30, 15], 2, CLASSIC, True, None)
    assert sum(chances) == pytest.approx(1.0)
    assert chances[0] > chances[3] > chances[1] > chances[2]


def test_most_points_win_where_the_rules_say_so() -> None:
    chances = win_chances("tutorial", [-10, -30, -20], 1, {"rounds": 4}, False, None)
    assert chances[0] > chances[2] > chances[1]


def test_a_finished_game_is_won_or_lost() -> None:
    assert win_chances("classic", [40, 12, 12, 30], 5, CLASSIC, True, (1, 2)) == [
        0.0, 1.0, 1.0, 0.0,
    ]


def test_the_same_lead_counts_more_near_the_end() -> None:
    early = win_chances("classic", [0, 5, 5, 5], 1, CLASSIC, True, None)[0]
    late = win_chances("classic", [30, 35, 35, 35], 5, CLASSIC, True, None)[0]
    assert late > early > 0.25


def test_rounds_left_shrink_toward_the_target() -> None:
    assert rounds_left("classic", [0, 0], 1, CLASSIC, True) > rounds_left(
        "classic", [30, 20], 4, CLASSIC, True
    )
    assert rounds_left("classic", [39, 0], 6, CLASSIC, True) == 1.0
    assert rounds_left("tutorial", [0, 0], 1, {"rounds": 4}, False) == 3.0


def test_ending_the_game_ahead_beats_a_better_round_that_lets_it_go_on() -> None:
    # I lead 30 to 36; ending the game now (someone passes 40) with a win is worth more
    # than scoring fewer points in a round that leaves the leader's fate open.
    before = [30, 36, 36, 36]
    end_now = game_values("classic", before, [35, 41, 38, 38], 5, CLASSIC, True, (0,))
    go_on = game_values("classic", before, [31, 39, 39, 39], 5, CLASSIC, True, None)
    assert end_now[0] > go_on[0]


def test_behind_the_leader_matters_more_than_the_mean() -> None:
    # Same points gained by me and on average by the others: the round in which the
    # leader (seat 1) takes points is better for me than the one where he takes none.
    before = [20, 10, 30, 30]
    leader_scores = game_values("classic", before, [25, 15, 35, 35], 3, CLASSIC, True, None)
    leader_pulls_away = game_values("classic", before, [25, 10, 37, 38], 3, CLASSIC, True, None)
    assert leader_scores[0] > leader_pulls_away[0]
