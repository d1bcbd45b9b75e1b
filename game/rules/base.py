"""The rule-set interface: what every rule set is, and the mechanics they share.

A rule set is one module under ``game/rules/`` that registers a
:class:`RuleSet` subclass instance (:mod:`game.rules.registry`); nothing outside this
package branches on a variant's name. The base class holds the mechanics every rule set
shares (seats, turn order, chips, round scoring), each citing docs/rules.md. The
:class:`Chance` a fast game passes to ``step`` is defined here too, so the rule sets and
the engine (:mod:`game.fast`) both import it from below.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Protocol

from game import rng
from game.actions import Action, ActionType
from game.cards import Card, hand_points
from game.errors import IllegalAction, MalformedRecord
from game.events import Event, EventKind, ScoreItem, SeatScore, shared
from game.rules.items import BLACK_POINTS, CHIP_POINTS, LLAMA_POINTS, RETURNED_ITEMS, counted_values
from game.state import Phase, RoundChance, State

Roller = Callable[[int | str, int, int, Sequence[Sequence[Card]]], tuple[Card, ...]]
"""``rng.roll`` or ``rng.fast_roll``: a roll's faces from the seed, the round, the index."""

HAND_SIZE = 6
PLAYING, FINISHED = Phase.PLAY, Phase.FINISHED
"""Read once: an enum's member is read through ``EnumType.__getattr__`` (Python 3.11)."""


class _Unkept(list):  # type: ignore[type-arg]
    """An event list that keeps nothing: the fast path (``step``) reuses hooks that report."""

    def append(self, item: object) -> None:
        pass

    def extend(self, items: object) -> None:
        pass


UNKEPT: list[Event] = _Unkept()
"""Pass as ``events`` where nobody will read them (the fast simulation path)."""


class RuleSet:
    """One rule set. Subclasses fill in the class attributes and the hooks."""

    name: ClassVar[str]
    title: ClassVar[str]
    option_defaults: ClassVar[Mapping[str, int]] = {"target": 40}
    action_types: ClassVar[frozenset[ActionType]]
    uses_draw_pile: ClassVar[bool] = True
    uses_magic: ClassVar[bool] = False
    uses_row: ClassVar[bool] = False
    uses_chips: ClassVar[bool] = True
    lower_score_wins: ClassVar[bool] = True
    """Whether the fewest points win (the chip games) or the most (the tutorial)."""

    # ---- data -----------------------------------------------------------
    def deck(self) -> tuple[Card, ...]:
        """The multiset dealt each round (dice: the player deck)."""
        raise NotImplementedError

    def card_tokens(self) -> frozenset[str]:
        """Every token this rule set's deck (or row) has."""
        cached: frozenset[str] | None = self.__dict__.get("_tokens")
        if cached is None:
            cached = frozenset(c.token for c in self.deck())
            self.__dict__["_tokens"] = cached
        return cached

    def validate_options(self, options: Mapping[str, object] | None) -> dict[str, int]:
        """docs/record.md fine point 5: known keys only, integers ≥ 1."""
        result = dict(self.option_defaults)
        for key, value in (options or {}).items():
            if key not in self.option_defaults:
                raise MalformedRecord(f"unknown option {key!r} for {self.name}")
            if type(value) is not int or value < 1:
                raise MalformedRecord(f"option {key!r} must be an integer ≥ 1, not {value!r}")
            result[key] = value
        return result

    # ---- game and round -------------------------------------------------
    def setup_game(self, state: State, options: Mapping[str, int]) -> None:
        """Anything a game starts with before round 1."""

    def first_player(self, state: State) -> int:
        """docs/rules.md §1: round 1 the first seat, later whoever ended the last round."""
        return 0 if state.ender is None else state.ender

    def start_round(self, state: State, chance: RoundChance) -> list[Event]:
        """Deal round ``state.round_no`` from ``chance`` (see :meth:`deal`); its event."""
        self.deal(state, chance.deck)
        top = state.top
        return [shared(EventKind.ROUND_STARTED, state.to_act, None if top is None else top.token)]

    def deal(self, state: State, deck: Sequence[Card]) -> None:
        """docs/record.md: deal one at a time from the first player, then turn up a card.

        ``deck`` is the round's deck, top first; the fast path calls this directly."""
        first = self.first_player(state)
        n = state.players
        dealt = HAND_SIZE * n
        hands = state.hands
        for seat in range(n):  # one card at a time from ``first``: every n-th card is a seat's
            hands[seat] = list(deck[(seat - first) % n : dealt : n])
        state.quit[:] = [False] * n  # in place: a caller may hold the list
        state.top = deck[dealt]
        rest = list(deck[dealt + 1 :])
        rest.reverse()
        state.draw_pile = rest
        self._begin_turns(state, first)

    def deal_out(self, state: State, dealt: Sequence[Any]) -> None:
        """:meth:`deal`, from the deck already laid out (``rng.fast_dealt``: each hand in
        deal order from the first player, the turned-up card, the draw pile, its top last):
        the fast path's deal, the same state (tests/game/test_uniform.py)."""
        first = self.first_player(state)
        n = state.players
        state.hands[:] = dealt[n - first : n] + dealt[: n - first]  # seat s: hand s - first
        state.quit[:] = [False] * n
        state.top = dealt[n]
        state.draw_pile = dealt[n + 1]
        self._begin_turns(state, first)

    def _begin_turns(self, state: State, first: int) -> None:
        state.phase = PLAYING
        state.to_act = first
        state.round_over = False
        state.ender = None
        state.emptied = False

    def needs_chance(self, state: State, action: Action) -> bool:
        """Whether ``action`` consumes a chance outcome (a dice roll)."""
        return False

    def random_roll(
        self, seed: int | str, round_no: int, index: int, roller: Roller = rng.roll
    ) -> tuple[Card, Card, Card]:
        """A roll drawn from the seed by ``roller`` (``rng.roll``, or ``rng.fast_roll``: the
        same faces); only rule sets with dice have one."""
        raise NotImplementedError(f"{self.name} has no dice")

    def seeded_roll(self, seed: int | str, round_no: int, index: int) -> tuple[Card, Card, Card]:
        """:meth:`random_roll`'s faces, drawn the fast path's way (``SeededChance``)."""
        return self.random_roll(seed, round_no, index, rng.fast_roll)

    def legal_actions(self, state: State) -> list[Action]:
        raise NotImplementedError

    def fast_listing(self) -> Callable[[State], list[Action]]:
        """The listing the fast path (``game.fast``) calls: ``legal_actions``, unless the
        rule set has a leaner one giving the same actions in the same order (tests play
        thousands of games on both to show it)."""
        return self.legal_actions

    def apply(self, state: State, action: Action, chance: RoundChance) -> list[Event]:
        """Carry out a legal ``action`` by ``state.to_act``."""
        raise NotImplementedError

    def step(self, state: State, action: Action, chance: Chance) -> None:
        """``apply`` for the fast path (``game.fast``): the same change, no events kept.

        Chance comes from ``chance`` (a dice roll); tests check it against ``apply``.
        """
        raise NotImplementedError

    def play_round_uniformly(
        self, state: State, draws: Sequence[Callable[[], float]], chance: Chance
    ) -> int:
        """Play the round on to its end, each seat taking ``actions.uniform_pick`` of the legal
        actions with a number from its ``draws`` (the ``random`` AI); the actions taken.

        The fast listing and ``step``, one action after another; a rule set may fuse them
        (classic does: tests/game/test_uniform.py plays both ways to show they agree).
        """
        listing = self.fast_listing()
        step = self.step
        actions = 0
        while not state.round_over:
            legal = listing(state)
            step(state, legal[int(draws[state.to_act]() * len(legal))], chance)  # type: ignore[index]
            actions += 1
        return actions

    def play_game_uniformly(
        self,
        seed: str,
        draws: Sequence[Callable[[], float]],
        options: Mapping[str, int],
        chance: Chance,
        twister: rng.Twister,
    ) -> tuple[tuple[int, ...], list[int], int, int]:
        """A whole game of ``len(draws)`` seats played by :meth:`play_round_uniformly`, each
        round dealt from ``seed`` as ``Game`` deals it (``rng.fast_dealt``'s layout) and rolls drawn
        from ``chance`` (``SeededChance(seed)``): the winners, the final scores, the actions
        and the rounds dealt. ``simulate``'s fast path (``FastRun``) plays its games here; a
        rule set may fuse the whole game (tests/game_ai/test_simulate_fast.py holds each
        to the full engine's games), reseeding ``twister`` (the caller's ``rng.scratch()``,
        kept from game to game: building one seeds it) for its decks and rolls."""
        players = len(draws)
        state = State.new(players)
        self.setup_game(state, options)
        deal, deck, play_round = self.deal_out, self.deck(), self.play_round_uniformly
        score_round, is_over = self.score_round, self.is_over
        laid_out = rng.seat_deals(len(deck), players, HAND_SIZE)[0]  # in deal order
        reseed, getrandbits, seed_of = twister.seed, twister.getrandbits, rng.seed_of
        actions = 0
        while True:  # each round's deck as SeededChance.deck (rng.fast_dealt's layout)
            reseed(seed_of(f"{seed}:deck:{state.round_no}"))
            deal(state, laid_out(getrandbits, list(deck)))
            actions += play_round(state, draws, chance)
            score_round(state, False)
            if is_over(state, options):
                break
            state.round_no += 1
            state.pending_roll = None
            state.pending_drawn = None
            state.resolve_mode = None
        state.phase = FINISHED
        state.to_act = None
        state.winners = winners = self.winners(state)
        return winners, list(map(state.score, range(players))), actions, state.round_no

    def fast_roll(self, random: Callable[[], float]) -> tuple[Card, Card, Card]:
        """A roll drawn with ``random`` (a ``random.Random().random``; rule sets with dice)."""
        raise NotImplementedError(f"{self.name} has no dice")

    def explain(self, state: State, action: Action) -> str:
        """Why ``action`` is not legal now (for the error message)."""
        if action.type not in self.action_types:
            return f"{action.type.value} is not an action of {self.name}"
        return "the rules do not allow it now"

    def score_round(self, state: State, report: bool = True) -> list[Event]:
        """docs/rules.md §1 scoring, with chips; returns the events it causes.

        With ``report`` the round-over event carries each seat's breakdown (its items add
        up to the seat's score change); the fast path (``game.fast``) passes ``False``:
        the same chips, no events.
        """
        events: list[Event] = []
        n = state.players
        points = [0] * n
        emptied = state.ender if state.emptied else None
        hands = state.hands
        if not report:  # the fast path: the same chips, the helpers inlined, nothing built
            white, black = state.white, state.black
            for seat in range(n):
                if seat == emptied:
                    points[seat] = -CHIP_POINTS[return_chip(state, seat)]
                    continue
                numbers, llama = hand_points(hands[seat])
                total = white[seat] + numbers  # gain_white, and a black chip for llamas
                black[seat] += total // BLACK_POINTS + llama
                white[seat] = total % BLACK_POINTS
                points[seat] = numbers + LLAMA_POINTS * llama
            self.score_extras(state, points, None)
            for kept, gained in zip(state.round_points, points, strict=True):
                kept.append(gained)
            return events
        items: list[list[ScoreItem]] = [[] for _ in range(n)]
        for seat in range(n):
            if seat == emptied:
                colour = return_chip(state, seat)
                points[seat] = -CHIP_POINTS[colour]
                if report:
                    events.append(shared(EventKind.RETURNED_CHIP, seat, colour))
                    items[seat].append(RETURNED_ITEMS[colour])
            else:
                hand = hands[seat]
                numbers, llama = hand_points(hand)
                gain_white(state, seat, numbers)
                if llama:
                    state.black[seat] += 1
                points[seat] = numbers + LLAMA_POINTS * llama
                if report:
                    items[seat] = counted_values(hand)  # a fresh list of its own
        self.score_extras(state, points, items if report else None)
        for seat in range(n):
            state.round_points[seat].append(points[seat])
        if report:
            tiles = self.uses_row  # (positional: a frozen dataclass is slow to build)
            scores = tuple([SeatScore(s, tuple(items[s]), tiles) for s in range(n)])
            events.append(Event(EventKind.ROUND_OVER, points=tuple(points), scores=scores))
        return events

    def score_extras(
        self, state: State, points: list[int], items: list[list[ScoreItem]] | None
    ) -> None:
        """Rule-set additions to a round's scoring (the Kadabra token), before the totals
        are kept: add to ``points`` and, unless ``None``, to each seat's ``items``."""

    def is_over(self, state: State, options: Mapping[str, int]) -> bool:
        """docs/rules.md §1 game end: someone reached the target."""
        return max(map(state.score, range(state.players))) >= options["target"]

    def winners(self, state: State) -> tuple[int, ...]:
        """Fewest points wins; ties share."""
        scores = list(map(state.score, range(state.players)))
        best = min(scores)
        return tuple([s for s in range(state.players) if scores[s] == best])

    def refuse(self, state: State, action: Action, what: str | None = None) -> IllegalAction:
        """The error for an action that is not legal now (``what`` names it for people)."""
        return IllegalAction(f"{what or action} is not allowed: {self.explain(state, action)}")


class Chance(Protocol):
    """Where a fast game's decks, draws and dice rolls come from (``game.fast`` passes one
    to :meth:`RuleSet.step`)."""

    def deck(self, rule_set: RuleSet, round_no: int, dealt: int) -> Sequence[Card]:
        """Round ``round_no``'s deck, top first (as ``RoundChance.deck``).

        The first ``dealt`` cards (hands and the turned-up card) are dealt from it at
        once; the rest become the draw pile, which goes through :meth:`pile`.
        """
        ...

    def pile(self, cards: list[Card]) -> list[Card]:
        """The draw pile to play with, made of ``cards`` (its ``pop()`` draws)."""
        ...

    def roll(self, rule_set: RuleSet, round_no: int, index: int) -> tuple[Card, Card, Card]:
        """Roll number ``index`` (0-based) of round ``round_no``."""
        ...


# ---- shared mechanics ----------------------------------------------------


def next_active(state: State, seat: int) -> int | None:
    """docs/rules.md §5.2: the next seat in order that has not quit (maybe ``seat``)."""
    n = state.players
    quit_ = state.quit
    candidate = seat + 1 if seat + 1 < n else 0  # the usual answer, first (every turn asks)
    if not quit_[candidate]:
        return candidate
    for step in range(2, n + 1):
        candidate = (seat + step) % n
        if not quit_[candidate]:
            return candidate
    return None


def others_in(state: State, seat: int) -> bool:
    """Whether any other player is still in the round (has not quit)."""
    quit_ = state.quit
    return quit_.count(False) > (0 if quit_[seat] else 1)


def end_round(state: State, ender: int, emptied: bool = False) -> None:
    """docs/rules.md §5.3: the round is over; ``ender`` starts the next one."""
    state.round_over = True
    state.ender = ender
    state.emptied = emptied
    state.to_act = None


def gain_white(state: State, seat: int, amount: int) -> None:
    """docs/rules.md §5.5: pay white chips, then exchange 10 white for 1 black."""
    total = state.white[seat] + amount
    state.black[seat] += total // BLACK_POINTS
    state.white[seat] = total % BLACK_POINTS


def return_chip(state: State, seat: int) -> str | None:
    """Return one chip to the supply: black if any, else white, else nothing."""
    if state.black[seat]:
        state.black[seat] -= 1
        return "black"
    if state.white[seat]:
        state.white[seat] -= 1
        return "white"
    return None


def quit_round(state: State, seat: int) -> list[Event]:
    """docs/rules.md §1 quit: no more turns this round; the last to quit ends it."""
    leave_round(state, seat)
    return [shared(EventKind.QUIT, seat)]


def leave_round(state: State, seat: int) -> None:
    """``quit_round`` without its event (the fast path)."""
    state.quit[seat] = True
    following = next_active(state, seat)
    if following is None:
        end_round(state, seat)
    else:
        state.to_act = following
