"""The fast simulation path: one mutable state, no checks, no events, no history.

AI search plays thousands of games out per decision; :class:`game.Game` checks
every action, reports events and keeps a record, which playouts do not need.
:class:`FastGame` drives the same rule sets (``game/rules/``) through their
event-free ``step``, ``deal`` and fast listing (``RuleSet.fast_listing``), and
takes chance from a :class:`Chance` passed in, never from global randomness.
It trusts its caller: an action must be one of
``legal()`` (tests play thousands of games against the full engine to show
both agree on every legal action and every score).

    sim = FastGame.new("classic", 4, chance=RandomChance("seed"))
    while not sim.finished:
        sim.apply(sim.legal()[0])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial

from game import rng, rules
from game.actions import Action
from game.cards import Card
from game.game import Game
from game.rules import HAND_SIZE, Chance, RuleSet
from game.state import Phase, State


class SeededChance:
    """Exactly the decks and rolls a :class:`Game` with this seed draws (``simulate``'s
    fast path, tests), their generators built by ``rng.seeded`` (the same, for less)."""

    def __init__(self, seed: int | str) -> None:
        self.seed = str(seed)  # (``Game`` writes an int seed into its generators' text)

    def deck(self, rule_set: RuleSet, round_no: int, dealt: int) -> list[Card]:
        return rng.fast_shuffled_deck(self.seed, round_no, rule_set.deck())

    def pile(self, cards: list[Card]) -> list[Card]:
        return cards

    def roll(self, rule_set: RuleSet, round_no: int, index: int) -> tuple[Card, Card, Card]:
        return rule_set.seeded_roll(self.seed, round_no, index)


class RandomChance:
    """Fresh outcomes from one generator seeded once (cheap: simulations and search)."""

    def __init__(self, seed: int | str) -> None:
        self.random: Callable[[], float] = rng.chooser(seed, "fast").random
        self._decks: dict[str, tuple[Card, ...]] = {}

    def deck(self, rule_set: RuleSet, round_no: int, dealt: int) -> list[Card]:
        """Only the dealt cards are shuffled into place; the pile is drawn at random."""
        cards = self._decks.get(rule_set.name)
        if cards is None:
            cards = self._decks[rule_set.name] = rule_set.deck()
        return shuffle(list(cards), self.random, dealt)

    def pile(self, cards: list[Card]) -> list[Card]:
        return RandomPile(cards, self.random)

    def roll(self, rule_set: RuleSet, round_no: int, index: int) -> tuple[Card, Card, Card]:
        return rule_set.fast_roll(self.random)


def shuffle(cards: list[Card], random: Callable[[], float], first: int | None = None) -> list[Card]:
    """Fisher–Yates in place with ``random()`` (much cheaper than ``Random.shuffle``).

    With ``first``, only the first ``first`` places get a uniformly random card
    (the rest stays in some order: draw it with a :class:`RandomPile`).
    """
    size = len(cards)
    for i in range(size - 1 if first is None else min(first, size - 1)):
        j = i + int(random() * (size - i))
        cards[i], cards[j] = cards[j], cards[i]
    return cards


class RandomPile(list):  # type: ignore[type-arg]
    """A draw pile whose ``pop()`` takes a uniformly random card: the pile's order is
    drawn lazily, one card per draw, so a round whose pile is hardly touched costs little."""

    __slots__ = ("random",)

    def __init__(self, cards: list[Card], random: Callable[[], float]) -> None:
        super().__init__(cards)
        self.random = random

    def pop(self, index: int = -1) -> Card:  # type: ignore[override]
        last = len(self) - 1
        j = int(self.random() * (last + 1))
        self[j], self[last] = self[last], self[j]
        return super().pop()


class FastGame:
    """A game on the fast path: ``legal()``, ``apply(action)``, ``finished``, scores.

    ``legal()`` lists the legal actions of the player to act (empty once finished: nobody
    is to act); it is the rule set's fast listing (``fast_listing()``: the same actions in
    the same order as ``legal_actions``) bound to the state, called directly.
    """

    __slots__ = ("_step", "chance", "legal", "options", "rules", "state")

    def __init__(
        self, rule_set: RuleSet, state: State, options: Mapping[str, int], chance: Chance
    ) -> None:
        self.rules = rule_set
        self.state = state
        self.options = options
        self.chance = chance
        # bound once: listing and stepping are the whole inner loop of a playout
        self.legal: Callable[[], list[Action]] = partial(rule_set.fast_listing(), state)
        self._step = rule_set.step

    @classmethod
    def new(
        cls,
        variant: str,
        players: int,
        options: Mapping[str, object] | None = None,
        *,
        chance: Chance,
    ) -> FastGame:
        """A new game, round 1 dealt."""
        rule_set = rules.find(variant)
        state = State.new(players)
        checked = rule_set.validate_options(options)
        rule_set.setup_game(state, checked)
        sim = cls(rule_set, state, checked, chance)
        sim.deal()
        return sim

    @classmethod
    def from_game(cls, game: Game, chance: Chance) -> FastGame:
        """A fast copy of a full game's present state (tests; the referee's side)."""
        return cls(game.rules, game.state.clone(), game.options, chance)

    @property
    def finished(self) -> bool:
        return self.state.phase is Phase.FINISHED

    @property
    def to_act(self) -> int | None:
        return self.state.to_act

    def apply(self, action: Action) -> None:
        """Carry out ``action`` (one of ``legal()``, unchecked) by the player to act."""
        state = self.state
        self._step(state, action, self.chance)
        if state.round_over:
            self.finish_round()

    def finish_round(self) -> None:
        """Score the round just ended; then the game ends or the next round is dealt."""
        state = self.state
        rule_set = self.rules
        rule_set.score_round(state, report=False)  # the same chips, no breakdown
        if rule_set.is_over(state, self.options):
            state.phase = Phase.FINISHED
            state.to_act = None
            state.winners = rule_set.winners(state)
            return
        state.round_no += 1
        state.pending_roll = None
        state.pending_drawn = None
        state.resolve_mode = None
        self.deal()

    def scores(self) -> list[int]:
        state = self.state
        return [state.score(s) for s in range(state.players)]

    @property
    def winners(self) -> tuple[int, ...]:
        return self.state.winners

    def deal(self) -> None:
        """Deal round ``state.round_no`` from the chance (a new game's first, or the next)."""
        state = self.state
        deck = self.chance.deck(self.rules, state.round_no, HAND_SIZE * state.players + 1)
        self.rules.deal(state, deck)
        if state.draw_pile:
            state.draw_pile = self.chance.pile(state.draw_pile)
