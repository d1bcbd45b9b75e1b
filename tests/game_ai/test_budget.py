"""The hard AI's work per decision is bounded by a count of playout steps, not by time, and
its caches stay out of the garbage collector's walks."""

from __future__ import annotations

import gc

import pytest

from game import player_view, variant_names
from game.ai import FULL_COLLECTION_EVERY, playout, settle_heap
from game.ai import hard as hard_module
from game.ai.hard import HardPlayer, search
from game.ai.heuristic import STRATEGIES
from game.fast import FastGame
from tests.game_ai.test_hard import game_at_a_choice

UNBOUNDED = 10**9


def count_steps(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts every action a simulated game applies from now on (``[count]``)."""
    counted = [0]
    real = FastGame.apply

    def apply(self: FastGame, action: object) -> None:
        counted[0] += 1
        real(self, action)  # type: ignore[arg-type]

    monkeypatch.setattr(FastGame, "apply", apply)
    return counted


@pytest.mark.parametrize("variant", variant_names())
def test_the_step_budget_bounds_the_work_and_only_cuts_worlds(
    variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    view = player_view(game := game_at_a_choice(variant, f"budget:{variant}", 4), game.to_act)
    counted = count_steps(monkeypatch)
    full = search(view, "b", iterations=12, steps=UNBOUNDED)
    assert full.worlds == 12 and full.steps == counted[0]

    allowance = full.steps // 2
    counted[0] = 0
    cut = search(view, "b", iterations=12, steps=allowance)
    assert counted[0] == cut.steps <= allowance, "never a step past the budget"
    assert 1 <= cut.worlds < 12
    assert search(view, "b", iterations=12, steps=allowance) == cut, "deterministic"
    # the worlds it kept are the first worlds of the unbounded search, whole
    same = search(view, "b", iterations=cut.worlds, steps=UNBOUNDED)
    assert (same.action, same.means) == (cut.action, cut.means)


def test_no_whole_world_in_the_budget_leaves_the_heuristics_choice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    view = player_view(game := game_at_a_choice("kadabra", "budget:none", 3), game.to_act)
    counted = count_steps(monkeypatch)
    tiny = search(view, "b", iterations=40, steps=len(view.legal))
    assert tiny.worlds == 0 and counted[0] == tiny.steps <= len(view.legal)
    assert tiny.action == STRATEGIES["kadabra"](view)


@pytest.mark.parametrize("variant", variant_names())
def test_the_players_default_budget_is_the_rule_sets(
    variant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bot's hard AI (no iteration count, a wall-clock budget on top) is bounded too."""
    view = player_view(game := game_at_a_choice(variant, f"default:{variant}", 4), game.to_act)
    assert hard_module.STEPS[variant] >= 4000
    monkeypatch.setitem(hard_module.STEPS, variant, 300)
    counted = count_steps(monkeypatch)
    action = HardPlayer("d", iterations=1000, budget=3600.0).choose(view)
    assert 0 < counted[0] <= 300
    assert action == search(view, "d", iterations=1000, steps=300).action


def test_the_playout_caches_are_not_tracked_by_the_collector() -> None:
    """Ints and floats only: a full collection does not walk a quarter of a million keys."""
    for variant in ("kadabra", "dice"):
        view = player_view(game := game_at_a_choice(variant, "caches", 6), game.to_act)
        search(view, "c", iterations=4)
    assert playout._CHAINS and playout._ROLLS
    assert not gc.is_tracked(playout._CHAINS) and not gc.is_tracked(playout._ROLLS)


def test_a_searching_process_freezes_its_start_up_heap() -> None:
    built = [[n] for n in range(100)]
    thresholds = gc.get_threshold()
    try:
        frozen = settle_heap()
        # (not ==: another thread of this worker may free a frozen object meanwhile)
        assert frozen >= len(built) and gc.get_freeze_count() >= len(built)
        walked = {id(o) for o in gc.get_objects(generation=2)}
        assert not any(id(o) in walked for o in built)
        assert gc.get_threshold() == (*thresholds[:2], FULL_COLLECTION_EVERY)
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
