"""``simulate`` plays line-ups of ``random`` AIs on the fast path when it keeps no records:
the same games as on the full engine, seed for seed (winners, scores, actions)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from game import variant_names
from game.cli.simulate import fast_capable, play_one, play_one_fast
from tests.game_ai.test_cli import TIMING, simulate

GAMES = 60


@pytest.mark.parametrize("variant", variant_names())
def test_the_fast_path_plays_the_full_engines_games(variant: str) -> None:
    differ_between_seeds = set()
    for index in range(GAMES):
        players = 2 + index % 5
        ais = ["random"] * players
        game, actions = play_one(variant, ais, {}, "same", index)
        winners, scores, fast_actions = play_one_fast(variant, ais, {}, "same", index)
        assert winners == game.state.winners, f"game {index}"
        assert scores == [game.state.score(s) for s in range(players)], f"game {index}"
        assert fast_actions == actions, f"game {index}"
        differ_between_seeds.add((tuple(scores), actions))
    assert len(differ_between_seeds) > GAMES // 2  # the seeds gave different games


OPTIONS = {"classic": {"target": 15}, "kadabra": {"target": 25}, "dice": {"target": 12},
           "tutorial": {"rounds": 7}}
"""Options other than the defaults (a rule set's whole game may read them itself)."""


@pytest.mark.parametrize("variant", variant_names())
def test_the_fast_path_plays_the_full_engines_games_with_options(variant: str) -> None:
    options = OPTIONS[variant]
    for index in range(GAMES // 2):
        players = 2 + index % 5
        ais = ["random"] * players
        game, actions = play_one(variant, ais, options, "opts", index)
        winners, scores, fast_actions = play_one_fast(variant, ais, options, "opts", index)
        assert (winners, scores, fast_actions) == (
            game.state.winners, [game.state.score(s) for s in range(players)], actions
        ), f"game {index}"


def test_only_legal_only_players_go_on_the_fast_path() -> None:
    """``random`` decides from the legal actions alone; ``heuristic`` and ``hard`` need
    the full engine's player view."""
    assert fast_capable(["random"] * 4)
    assert not fast_capable(["random", "heuristic", "random", "random"])
    assert not fast_capable(["hard", "random"])


def test_simulate_gives_the_same_numbers_with_and_without_records(tmp_path: Path) -> None:
    """With ``--records`` the run is on the full engine, without on the fast path."""
    args = ("--variant", "classic", "--players", "3", "--games", "30", "--seed", "both")
    fast = simulate(*args)
    full = simulate(*args, "--records", str(tmp_path))
    assert {k: v for k, v in fast.items() if k not in TIMING} == {
        k: v for k, v in full.items() if k not in TIMING
    }
    assert len(list(tmp_path.glob("*.json"))) == 30
    assert json.loads(next(tmp_path.glob("*.json")).read_text())  # records were written
