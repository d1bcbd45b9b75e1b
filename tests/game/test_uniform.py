"""``RuleSet.play_round_uniformly``: a round played by uniform picks from the legal actions
(the ``random`` AI). Every rule set fuses listing, pick and step; whatever
they do must be what the fast listing and ``step`` do, pick for pick, in every round of every
game."""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial

import pytest

from game import find_rules, variant_names
from game.actions import Action, play, uniform_pick
from game.ai.random import RandomPlayer
from game.cards import ALL_CARDS
from game.fast import FastGame, SeededChance
from game.rng import fast_dealt, scratch, shuffled_deck
from game.rules.base import HAND_SIZE, RuleSet
from game.rules.classic import FOLLOWERS
from game.rules.shedding import DECK, PLAYABLE_ON
from game.state import State

GAMES = 100
FUSED = [
    name for name in variant_names()
    if type(find_rules(name)).play_round_uniformly is not RuleSet.play_round_uniformly
]
"""The rule sets with a round of their own (the others play the reference itself)."""


def draws(seed: str, players: int, skewed: bool = False) -> list:
    """Each seat's numbers; ``skewed`` leans to the listing's first entries (the plays), so
    hands are emptied, shows held and chips given far more often than by uniform picks."""
    if skewed:
        return [partial(_cubed, random.Random(f"{seed}:{seat}").random) for seat in range(players)]
    return [random.Random(f"{seed}:{seat}").random for seat in range(players)]


def _cubed(number: Callable[[], float]) -> float:
    return number() ** 3


def shake(state: State, shaken: random.Random) -> None:
    """Chips, the magic token and the stage set at random at a round's start (a state the
    games rarely reach by themselves: a token holder without chips, a show on at once)."""
    for seat in range(state.players):
        state.white[seat] = shaken.choice((0, 0, 0, 1, 4))
        state.black[seat] = shaken.choice((0, 0, 1))
    state.token = shaken.choice([None, *range(state.players)])
    state.stage_white = shaken.choice((0, 3, 4, 5, 7))
    state.stage_black = shaken.choice((0, 1, 2))


def test_every_rule_set_fuses_its_round() -> None:
    assert variant_names() == FUSED


@pytest.mark.parametrize("variant", FUSED)
def test_a_rule_sets_uniform_round_is_listing_pick_and_step(variant: str) -> None:
    rule_set = find_rules(variant)
    rounds = 0
    for game_no in range(GAMES):
        players = 2 + game_no % 5
        seed = f"uniform:{game_no}"
        fused = FastGame.new(variant, players, chance=SeededChance(seed))
        reference = FastGame.new(variant, players, chance=SeededChance(seed))
        fused_draws, reference_draws = draws(seed, players), draws(seed, players)
        shaken, shaken_too = random.Random(seed), random.Random(seed)
        while not fused.finished:
            if game_no % 2:  # chips, token and stage anywhere: the rare branches too
                shake(fused.state, shaken)
                shake(reference.state, shaken_too)
            taken = rule_set.play_round_uniformly(fused.state, fused_draws, fused.chance)
            expected = RuleSet.play_round_uniformly(
                rule_set, reference.state, reference_draws, reference.chance
            )
            assert taken == expected, f"game {game_no}, round {fused.state.round_no}"
            assert fused.state == reference.state, f"game {game_no}, round {rounds}"
            fused.finish_round()
            reference.finish_round()
            rounds += 1
        assert reference.finished
    assert rounds > GAMES


WHOLE = [
    name for name in variant_names()
    if type(find_rules(name)).play_game_uniformly is not RuleSet.play_game_uniformly
]
"""The rule sets that fuse a whole game (the others play ``RuleSet``'s, round by round)."""


def test_every_rule_set_fuses_its_whole_game() -> None:
    """``simulate``'s fast path plays every rule set's games whole (deal, turns and scoring
    in locals): each is held to ``RuleSet.play_game_uniformly`` below."""
    assert variant_names() == WHOLE


@pytest.mark.parametrize("variant", WHOLE)
def test_a_rule_sets_whole_game_is_the_reference_game(variant: str) -> None:
    """A fused whole game gives what ``RuleSet.play_game_uniformly`` (deal, the rule set's
    round, score, round after round) gives: winners, scores, actions and rounds, for every
    seat count, with options other than the defaults (short games, and long ones whose
    chips pile up), and with picks leaning to the plays (every branch of Kadabra's: a
    token given, a hand emptied, a show taken by a draw or a quit)."""
    rule_set = find_rules(variant)
    twister = scratch()  # one for every game, as a run keeps it
    for game_no in range(GAMES):
        players = 2 + game_no % 5
        length = (None, 1 + game_no % 9, 150)[game_no % 3]
        options = rule_set.validate_options(
            {} if length is None else dict.fromkeys(rule_set.option_defaults, length)
        )
        seed, skewed = f"whole:{game_no}", bool(game_no % 2)
        fused = rule_set.play_game_uniformly(
            seed, draws(seed, players, skewed), options, SeededChance(seed), twister
        )
        expected = RuleSet.play_game_uniformly(
            rule_set, seed, draws(seed, players, skewed), options, SeededChance(seed), scratch()
        )
        assert fused == expected, f"game {game_no}"


def test_the_random_ai_picks_uniformly() -> None:
    """``RandomPlayer.choose_legal`` is ``uniform_pick`` with its generator's next number,
    and ``draws`` gives that generator's numbers."""
    player = RandomPlayer("p:1")
    numbers = RandomPlayer.draws("p:1")
    for size in range(1, 200):
        legal: list[Action] = [play(card) for card in ALL_CARDS[: 1 + size % len(ALL_CARDS)]]
        assert player.choose_legal(legal) is uniform_pick(legal, numbers())
    assert uniform_pick(["a", "b", "c"], 0.0) == "a"
    assert uniform_pick(["a", "b", "c"], 0.999999) == "c"
    assert uniform_pick(["a", "b", "c"], 0.5) == "b"


def test_classic_followers_are_what_may_go_on_each_card() -> None:
    for top, pair in FOLLOWERS.items():
        assert set(pair) == set(DECK) & PLAYABLE_ON[top]
        assert pair[0] is top


@pytest.mark.parametrize("variant", variant_names())
def test_deal_out_is_deal(variant: str) -> None:
    """The fast path deals from ``rng.fast_dealt``'s layout (``deal_out``): the same state
    as ``deal`` from the round's deck, whoever deals first, after any round."""
    rule_set = find_rules(variant)
    deck = rule_set.deck()
    shaken = random.Random(variant)
    for game in range(40):
        players = 2 + game % 5
        dealt, laid = State.new(players), State.new(players)
        ender = shaken.choice([None, *range(players)])
        for state in (dealt, laid):
            state.round_no = 1 + game % 7
            state.ender = ender
            state.pending_drawn = state.stopper = 1  # (fields a deal clears)
            state.rolls_used = 3
        rule_set.deal(dealt, shuffled_deck(f"g{game}", dealt.round_no, deck))
        rule_set.deal_out(laid, fast_dealt(f"g{game}", laid.round_no, deck, players, HAND_SIZE))
        assert laid == dealt
        assert len(laid.hands) == players and all(len(hand) == HAND_SIZE for hand in laid.hands)
