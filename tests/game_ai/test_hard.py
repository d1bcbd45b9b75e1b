"""The ``hard`` AI: legal, reproducible, bounded, and blind to what its seat cannot see."""

from __future__ import annotations

import inspect
import typing
from collections import Counter

import pytest

from game import Game, PlayerView, player_view, variant_names
from game.ai import find, names, playout
from game.ai.hard import HardPlayer, search
from game.ai.heuristic import STRATEGIES, dice
from game.ai.worlds import base_state, sample_world, unseen_cards
from game.cli.tournament import make_player
from game.rng import chooser


def game_at_a_choice(variant: str, seed: str, skip: int) -> Game:
    """A 4-player heuristic game, advanced to the ``skip``-th decision with a real choice."""
    game = Game(variant, ["a", "b", "c", "d"], seed=seed)
    players = [find("heuristic")(f"{seed}:{s}") for s in range(4)]
    seen = 0
    while not game.finished:
        seat = game.to_act
        assert seat is not None
        view = player_view(game, seat)
        if len(view.legal) > 1:
            if seen == skip:
                return game
            seen += 1
        game.apply(seat, players[seat].choose(view))
    raise AssertionError("the game ended first")


def test_hard_is_registered_and_decides_from_a_view_only() -> None:
    assert "hard" in names()
    assert list(inspect.signature(HardPlayer.choose).parameters) == ["self", "view"]
    assert typing.get_type_hints(HardPlayer.choose)["view"] is PlayerView


@pytest.mark.parametrize("variant", variant_names())
def test_worlds_agree_with_everything_revealed(variant: str) -> None:
    """At many moments of many games, the unseen cards are exactly the hidden ones."""
    for index in range(6):
        seed = f"worlds:{index}"
        game = Game(variant, ["a", "b", "c", "d"], seed=seed)
        pick = chooser(seed, "pick").random
        while not game.finished:
            seat = game.to_act
            assert seat is not None
            view = player_view(game, seat)
            rule_set = game.rules
            unseen = unseen_cards(rule_set, view)
            state = game.state
            if rule_set.uses_draw_pile:
                hidden = Counter(state.draw_pile)
                for other in range(4):
                    if other != seat:
                        hidden.update(state.hands[other])
                assert Counter(unseen) == hidden
            world = sample_world(base_state(rule_set, view), view, unseen, pick)
            assert world.hands[seat] == list(view.hand)
            assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
            assert len(world.draw_pile) == len(state.draw_pile)
            legal = game.legal_actions()
            game.apply(seat, legal[int(pick() * len(legal))])


@pytest.mark.parametrize("variant", ["classic", "kadabra", "tutorial"])
def test_decision_ignores_how_the_hidden_cards_lie(variant: str) -> None:
    """Re-deal the other hands and the pile (same sizes, same cards): same view, same choice."""
    game = game_at_a_choice(variant, f"perm:{variant}", 5)
    me = game.to_act
    assert me is not None
    before = player_view(game, me)
    state = game.state
    others = [s for s in range(4) if s != me]
    hidden = [c for s in others for c in state.hands[s]] + list(state.draw_pile)
    hidden.reverse()  # a different arrangement of the same hidden cards
    at = 0
    for s in others:
        size = len(state.hands[s])
        state.hands[s] = hidden[at : at + size]
        at += size
    state.draw_pile = hidden[at:]
    game._legal = None
    after = player_view(game, me)
    assert after == before
    first = HardPlayer("p", iterations=6).choose(before)
    assert HardPlayer("p", iterations=6).choose(after) == first
    assert first in game.legal_actions()
    tree = HardPlayer("p", iterations=30, method="ismcts").choose(before)
    assert HardPlayer("p", iterations=30, method="ismcts").choose(after) == tree
    assert tree in game.legal_actions()


@pytest.mark.parametrize("variant", variant_names())
def test_same_seed_same_search(variant: str) -> None:
    game = game_at_a_choice(variant, f"same:{variant}", 3)
    view = player_view(game, game.to_act)
    first = search(view, "s", iterations=5)
    again = search(view, "s", iterations=5)
    assert first == again
    assert first.worlds == 5
    assert first.action in view.legal
    assert {a for a, _ in first.means} == set(view.legal)


def test_the_deadline_bounds_the_search() -> None:
    """A deadline stops the search; only whole worlds count; none whole: the heuristic."""
    game = game_at_a_choice("classic", "deadline", 2)
    view = player_view(game, game.to_act)
    late = search(view, "s", iterations=1000, deadline=0.0, clock=lambda: 1.0)
    assert late.worlds == 0 and late.action == STRATEGIES["classic"](view)
    ticks = iter(range(100_000))
    cut = search(view, "s", iterations=1000, deadline=200.0, clock=lambda: float(next(ticks)))
    assert 1 <= cut.worlds < 200 and cut.action in view.legal
    player = HardPlayer("s", iterations=1000, budget=0.5, clock=lambda: float(next(ticks)))
    assert player.choose(view) in view.legal


@pytest.mark.parametrize("variant", variant_names())
def test_hard_plays_whole_games(variant: str) -> None:
    game = Game(variant, ["a", "b", "c"], seed=f"whole:{variant}")
    players = [HardPlayer("h", iterations=2), find("heuristic")("x"), find("random")("y")]
    while not game.finished:
        seat = game.to_act
        assert seat is not None
        view = player_view(game, seat)
        action = players[seat].choose(view)
        assert action in game.legal_actions()
        game.apply(seat, action)


@pytest.mark.parametrize("variant", ["classic", "kadabra", "dice"])
def test_the_playout_policy_plays_as_the_heuristic(variant: str) -> None:
    """Scored from the state, the policy picks the heuristic's move: always in dice (a
    one-roll plan), and in the shedding games whenever the hand holds no card twice (there
    its run planner, which plays a card's copies together, is the heuristic's)."""
    compared = 0
    for index in range(8):
        game = Game(variant, ["a", "b", "c", "d"], seed=f"policy:{index}")
        pick = chooser(f"policy:{index}", "pick").random
        while not game.finished:
            seat = game.to_act
            assert seat is not None
            view = player_view(game, seat)
            legal = list(view.legal)
            if len(legal) > 1 and (variant == "dice" or len(set(view.hand)) == len(view.hand)):
                fast = playout.POLICIES[variant](game.rules, game.state, seat, legal)
                slow = dice(view, depth=1) if variant == "dice" else STRATEGIES[variant](view)
                assert fast == slow, (view.hand, legal)
                compared += 1
            # mostly the policy's move, sometimes a random one: varied states, cheaply
            if pick() < 0.2:
                game.apply(seat, legal[int(pick() * len(legal))])
            else:
                game.apply(seat, playout.POLICIES[variant](game.rules, game.state, seat, legal))
    assert compared > 100


@pytest.mark.parametrize("variant", variant_names())
def test_ismcts_is_legal_and_reproducible(variant: str) -> None:
    game = game_at_a_choice(variant, f"tree:{variant}", 3)
    view = player_view(game, game.to_act)
    player = make_player("hard:ismcts:40", "t", None)
    assert player.method == "ismcts" and player.iterations == 40
    first = player.choose(view)
    assert first in view.legal
    assert make_player("hard:ismcts:40", "t", None).choose(view) == first


@pytest.mark.parametrize("variant", variant_names())
def test_a_playout_sees_what_the_seat_would_see(variant: str) -> None:
    """The view a playout builds from a simulated state is the seat's own view, less the
    names, the round history and the face-up cards (which the heuristic does not read)."""
    from dataclasses import replace

    from game.ai.hard import Playout
    from game.rules import find as find_rules

    game = game_at_a_choice(variant, "shared-view", 5)
    seat = game.to_act
    assert seat is not None
    view = player_view(game, seat)
    built = Playout(find_rules(variant), view).view(game.state.clone(), seat, list(view.legal))
    expected = replace(
        view,
        seats=tuple(replace(s, name="", round_points=()) for s in view.seats),
        seen=(),
    )
    assert built == expected


def test_both_evaluations_search_and_the_lineup_names_them() -> None:
    view = player_view(*_choice("classic"))
    old = make_player("hard::16:points", "t", None)
    new = make_player("hard::16", "t", None)
    assert (old.evaluation, new.evaluation) == ("points", "game")
    for player in (old, new):
        assert player.choose(view) in view.legal
    points = search(view, "t", 16, evaluation="points").means
    game = search(view, "t", 16).means
    assert [a for a, _ in points] == [a for a, _ in game] == list(view.legal)


def _choice(variant: str) -> tuple[Game, int]:
    game = game_at_a_choice(variant, "evaluations", 3)
    assert game.to_act is not None
    return game, game.to_act
