"""Every rule set's round breakdown against the engine's own scoring (docs/rules.md scoring).

Thousands of seeded rounds per rule set, played by random and heuristic AIs. Around each
round's scoring the test reads the state (through a wrapper on the rule set's
``score_round``): each seat's breakdown must add up to exactly the change scoring made to
its score, and every item must agree with what the seat held when the round ended.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest

from game import ActionType, EventKind, Game, find_rules, variant_names
from game.actions import Action
from game.ai import find as find_ai
from game.ai import play_out
from game.cards import Card, sort_cards
from game.events import Event, ScoreKind, SeatScore
from game.fast import FastGame, SeededChance
from game.state import State

ROUNDS = {"classic": 300, "kadabra": 300, "dice": 300, "tutorial": 300}
"""Rounds checked per rule set. The test's own checks of what it saw (every kind of score
item, each chip colour returned, Kadabra's token emptied away) already hold at 100 rounds;
300 keep a margin, at a third of the 1,000 it played (5 s of CPU for the four)."""
KINDS = {
    "classic": {ScoreKind.VALUE, ScoreKind.LLAMAS, ScoreKind.RETURNED},
    "kadabra": {ScoreKind.VALUE, ScoreKind.LLAMAS, ScoreKind.RETURNED, ScoreKind.TOKEN},
    "dice": {ScoreKind.VALUE, ScoreKind.LLAMAS, ScoreKind.RETURNED, ScoreKind.BUSTED},
    "tutorial": {ScoreKind.CARD, ScoreKind.STOPPED},
}
"""What each rule set's scoring can give a reason for; each must turn up in the run."""
CHIP = {"white": 1, "black": 10, None: 0}
RARE = frozenset({ActionType.QUIT, ActionType.STOP})
"""Random seats quit and stop less often than uniformly, so hands empty and tokens stay."""


@dataclass
class Scored:
    """One round's scoring as the test saw it: the state before, the scores after."""

    hands: list[list[Card]]
    white: list[int]
    black: list[int]
    token: int | None
    ender: int | None
    emptied: bool
    before: list[int]
    after: list[int] = None  # type: ignore[assignment]


@contextmanager
def watched(variant: str) -> Iterator[list[Scored]]:
    """Wrap the rule set's scoring to see the state just before and just after it."""
    rule_set = find_rules(variant)
    original = rule_set.score_round
    seen: list[Scored] = []

    def score_round(state: State, report: bool = True) -> list[Event]:
        n = state.players
        entry = Scored([list(h) for h in state.hands], list(state.white), list(state.black),
                       state.token, state.ender, state.emptied,
                       [state.score(s) for s in range(n)])
        events = original(state, report)
        entry.after = [state.score(s) for s in range(n)]
        seen.append(entry)
        return events

    rule_set.score_round = score_round  # type: ignore[method-assign]
    try:
        yield seen
    finally:
        del rule_set.score_round  # the class's method again


class Chooser:
    """A seeded random player that quits and stops less often than it plays."""

    name = "weighted"

    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed).random

    def choose_legal(self, legal: list[Action]) -> Action:
        """Uniform, except that a quit or a stop is drawn again nine times in ten."""
        action = legal[int(self.random() * len(legal))]
        while action.type in RARE and self.random() < 0.9:
            action = legal[int(self.random() * len(legal))]
        return action

    def choose(self, view: object) -> Action:  # pragma: no cover - choose_legal is used
        raise AssertionError("play_out calls choose_legal")


def players(variant: str, game_no: int, n: int) -> list[object]:
    """Weighted-random seats; in every fourth game seat 0 is the heuristic AI (not in dice,
    whose heuristic looks ahead and is too slow for thousands of rounds)."""
    seats: list[object] = [Chooser(game_no * 10 + s) for s in range(n)]
    if variant != "dice" and game_no % 4 == 0:
        seats[0] = find_ai("heuristic")(f"{game_no}:0")
    if game_no % 5 == 1:
        seats[-1] = find_ai("random")(f"{game_no}:{n - 1}")
    return seats


def check_chip_game(variant: str, seat: int, score: SeatScore, before: Scored,
                    busted: Event | None) -> None:
    hand = sort_cards(before.hands[seat])
    kinds = Counter(item.kind for item in score.items)
    if before.emptied and seat == before.ender:
        assert not hand
        (returned,) = score.of(ScoreKind.RETURNED)
        expected = ("black" if before.black[seat] else "white" if before.white[seat] else None)
        assert returned.chip == expected and returned.points == -CHIP[expected]
        assert not score.of(ScoreKind.VALUE) and not score.of(ScoreKind.LLAMAS)
    else:
        assert not kinds[ScoreKind.RETURNED]
        values = sorted({v for card in hand for v in card.numbers})
        counted = score.of(ScoreKind.VALUE)
        assert [int(i.value or "0") for i in counted] == values, "each number once, in order"
        for item in counted:
            assert item.points == int(item.value or "0")
            assert item.cards == tuple(c.token for c in hand if item.points in c.numbers)
        llamas = tuple(c.token for c in hand if c.has_llama)
        assert [(i.points, i.cards) for i in score.of(ScoreKind.LLAMAS)] == (
            [(10, llamas)] if llamas else [])
    assert [i.points for i in score.of(ScoreKind.TOKEN)] == (
        [10] if before.token == seat else [])
    if busted is not None and busted.seat == seat:
        (bust,) = score.of(ScoreKind.BUSTED)
        assert bust.points == 0 and bust.cards == tuple(sorted(busted.cards, key=_rank))
        assert not Counter(bust.cards) - Counter(c.token for c in hand), "taken tiles are held"
    else:
        assert not score.of(ScoreKind.BUSTED)
    assert score.tiles == (variant == "dice")


def _rank(token: str) -> tuple[int, int, int]:
    return Card.parse(token).sort_key


def check_tutorial(seat: int, score: SeatScore, before: Scored, stopped: Event | None) -> None:
    hand = sort_cards(before.hands[seat])
    if stopped is not None and stopped.seat == seat and stopped.card == "L":
        assert [(i.kind, i.points) for i in score.items] == [(ScoreKind.STOPPED, 1)]
        return
    assert [i.kind for i in score.items] == [ScoreKind.CARD] * len(hand)
    assert [i.value for i in score.items] == [c.token for c in hand], "every card counts"
    for item in score.items:
        assert item.points == -(10 if item.value == "L" else int(item.value or "0"))


@pytest.mark.parametrize("variant", variant_names())
def test_breakdowns_add_up_to_the_scores(variant: str) -> None:
    seen_kinds: Counter[tuple[ScoreKind, str | None]] = Counter()
    rounds = 0
    game_no = 0
    options = {"rounds": 6} if variant == "tutorial" else {"target": 60}
    with watched(variant) as scorings:
        while rounds < ROUNDS[variant]:
            n = 2 + game_no % 5
            game = Game(variant, [f"p{s}" for s in range(n)], options, seed=f"bd:{game_no}")
            seats = players(variant, game_no, n)
            events: list[Event] = []
            apply = game.apply

            def keep(seat: int, action: Action, apply=apply, events=events) -> list[Event]:
                result = apply(seat, action)
                events.extend(result)
                return result

            game.apply = keep  # type: ignore[method-assign]
            play_out(game, seats)  # type: ignore[arg-type]
            overs = [i for i, e in enumerate(events) if e.kind is EventKind.ROUND_OVER]
            assert len(overs) == len(scorings) == game.state.round_no
            start = 0
            for at, before in zip(overs, scorings, strict=True):
                over = events[at]
                last = events[start:at]
                busted = next((e for e in last if e.kind is EventKind.BUSTED), None)
                stopped = next((e for e in last if e.kind is EventKind.STOPPED), None)
                assert [s.seat for s in over.scores] == list(range(n))
                for seat, score in enumerate(over.scores):
                    change = before.after[seat] - before.before[seat]
                    assert score.points == change == over.points[seat], (variant, score)
                    assert {i.kind for i in score.items} <= KINDS[variant]
                    if variant == "tutorial":
                        check_tutorial(seat, score, before, stopped)
                    else:
                        check_chip_game(variant, seat, score, before, busted)
                    seen_kinds.update((i.kind, i.chip) for i in score.items)
                    if score.of(ScoreKind.RETURNED) and score.of(ScoreKind.TOKEN):
                        seen_kinds[(ScoreKind.TOKEN, "emptied")] += 1
                start = at + 1
            rounds += len(overs)
            scorings.clear()
            game_no += 1
    assert {kind for kind, _ in seen_kinds} == KINDS[variant], seen_kinds
    if ScoreKind.RETURNED in KINDS[variant]:
        assert {chip for kind, chip in seen_kinds if kind is ScoreKind.RETURNED} == {
            "white", "black", None}, seen_kinds
    if variant == "kadabra":
        assert seen_kinds[(ScoreKind.TOKEN, "emptied")], "the token's holder emptied a hand"


@pytest.mark.parametrize("variant", variant_names())
def test_the_fast_path_scores_the_same_without_a_breakdown(variant: str) -> None:
    """game.fast skips the breakdown; its scores stay the full engine's, round by round."""
    options = {"rounds": 6} if variant == "tutorial" else {"target": 60}
    for game_no in range(20):
        n = 2 + game_no % 5
        game = Game(variant, [f"p{s}" for s in range(n)], options, seed=f"fp:{game_no}")
        sim = FastGame.new(variant, n, options, chance=SeededChance(f"fp:{game_no}"))
        chooser = Chooser(game_no)
        while not game.finished:
            legal = game.legal_actions()
            assert legal == sim.legal()
            action = chooser.choose_legal(legal)
            game.apply(game.to_act, action)  # type: ignore[arg-type]
            sim.apply(action)
            assert sim.scores() == [game.state.score(s) for s in range(n)]
        assert sim.finished and sim.winners == game.state.winners
