"""The fast simulation path plays exactly the full engine's game.

Thousands of random games, each played on both at once with the same decks and
rolls: at every step the same legal actions (same order), the same player to act
and the same hands; at the end the same scores, round points and winners.
"""

from __future__ import annotations

from collections import Counter

import pytest

from game import Game, find_rules, variant_names
from game.actions import Action
from game.fast import FastGame, RandomChance, SeededChance
from game.rng import chooser
from game.rules.dice import DICE

GAMES_PER_VARIANT = 200
"""Whole games per rule set. The test's own checks of what it saw (every kind of action
listed over 100 times, games of ten steps and more) already hold at 100 games; 200 keep a
margin, at a third of the 600 it played (3 s of CPU for the four)."""


@pytest.mark.parametrize("variant", variant_names())
def test_fast_path_matches_the_full_engine(variant: str) -> None:
    """Rule sets may list and step with their own lean code on the fast path
    (``fast_listing``, ``step``); the full engine's listing is the reference."""
    steps = 0
    listed: Counter[str] = Counter()
    for index in range(GAMES_PER_VARIANT):
        players = 2 + index % 5
        seed = f"fast:{variant}:{index}"
        game = Game(variant, [f"p{s}" for s in range(players)], seed=seed)
        fast = FastGame.from_game(game, SeededChance(seed))
        pick = chooser(seed, "pick").random
        while not game.finished:
            legal = game.legal_actions()
            assert fast.legal() == legal, f"game {index} step {steps}"
            assert fast.to_act == game.to_act
            assert fast.state.hands == game.state.hands
            listed.update(kind_of(a) for a in legal)
            action = legal[int(pick() * len(legal))]
            seat = game.to_act
            assert seat is not None
            game.apply(seat, action)
            fast.apply(action)
            steps += 1
        assert fast.finished
        assert fast.legal() == []
        assert fast.scores() == [game.state.score(s) for s in range(players)]
        assert fast.state.round_points == game.state.round_points
        assert fast.winners == game.state.winners
    assert steps > GAMES_PER_VARIANT * 10
    # every kind of action the rule set has was listed, many times (Kadabra: gifts, skips)
    assert all(listed[kind] > 100 for kind in KINDS[variant]), listed


KINDS = {
    "classic": {"play", "draw", "quit"},
    "kadabra": {"play", "gift", "draw", "skip", "quit"},
    "dice": {"roll", "discard", "take", "quit"},
    "tutorial": {"play", "draw", "pass", "stop"},
}


def kind_of(action: Action) -> str:
    return "gift" if action.give_to is not None else action.type.value


def test_fast_rolls_show_every_face_of_each_die() -> None:
    """The fast path's dice (``fast_roll``) are the rule set's dice, each face as likely."""
    dice = find_rules("dice")
    random = chooser("faces").random
    rolls = [dice.fast_roll(random) for _ in range(6000)]
    for die, faces in enumerate(DICE):
        counts = Counter(roll[die] for roll in rolls)
        assert set(counts) == set(faces)
        for face, count in counts.items():  # about 1000 per face side (L is on two)
            assert 800 * faces.count(face) < count < 1200 * faces.count(face)


@pytest.mark.parametrize("variant", variant_names())
def test_random_chance_games_are_whole_and_reproducible(variant: str) -> None:
    """Decks from one generator: every card dealt once per round, same seed same game."""

    def play(seed: str) -> tuple[list[int], int]:
        fast = FastGame.new(variant, 4, chance=RandomChance(seed))
        deck = Counter(fast.rules.deck())
        pick = chooser(seed, "pick").random
        actions = 0
        while not fast.finished:
            state = fast.state
            if state.row is None:  # the shedding games: hands + pile + played = the deck
                held = Counter(c for hand in state.hands for c in hand) + Counter(state.draw_pile)
                assert all(held[c] <= deck[c] for c in held)
            legal = fast.legal()
            assert legal
            fast.apply(legal[int(pick() * len(legal))])
            actions += 1
        return fast.scores(), actions

    for index in range(50):
        assert play(f"r{index}") == play(f"r{index}")
