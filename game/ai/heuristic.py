"""The ``heuristic`` AI: a sensible player for every rule set, from its own view only.

It scores each legal action with simple rules of thumb (points saved, options
kept, the Kadabra token and stage, the dice odds) and picks the best. It reads
nothing but the :class:`~game.views.PlayerView` of its seat: its own hand and
what the whole table sees.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import cache, lru_cache
from itertools import product

from game import rng
from game.actions import Action, ActionType
from game.ai.registry import register
from game.cards import LLAMA_CARD, ONE, PLAIN_VALUES, Card, Symbol, hand_points, sort_cards
from game.rules.dice import DICE
from game.rules.kadabra import SHOW_THRESHOLD
from game.rules.shedding import PLAYABLE_ON
from game.rules.tutorial import penalty, play_value
from game.views import PlayerView

# ---- shared ------------------------------------------------------------------


def hand_cost(cards: list[Card] | tuple[Card, ...]) -> int:
    """docs/rules.md §1 scoring of a hand: distinct numbers once, llamas together 10."""
    numbers, llama = hand_points(cards)
    return numbers + 10 * llama


def without(cards: list[Card] | tuple[Card, ...], gone: tuple[Card, ...]) -> list[Card]:
    """``cards`` minus one copy of each of ``gone``."""
    rest = list(cards)
    for card in gone:
        rest.remove(card)
    return rest


def best(legal: tuple[Action, ...], score: Callable[[Action], float]) -> Action:
    """The highest-scoring action; ties go to the first listed (stable, deterministic)."""
    return max(legal, key=score)


def chip_back(view: PlayerView) -> int:
    """What returning one chip saves this seat: black if any, else white."""
    if view.me is None:
        return 0
    seat = view.seats[view.me]
    return 10 if seat.black else 1 if seat.white else 0


# ---- classic and kadabra -------------------------------------------------------

EMPTY_BONUS = 30.0  # emptying the hand: a chip back, and the round ends on my terms
FOLLOW_BONUS = 1.5  # per card left that could follow the card played (up to two)
DRAW_MIN_COST = 12  # draw instead of quitting only when the hand is worth more than this
DRAW_MIN_PILE = 1
CHAIN_WEIGHT = 0.8  # how much the best run of later plays from the new top counts
SEARCH_CACHE_KEPT = 1 << 12
"""Entries each search cache below keeps (the most recently used): a decision reuses its own
(memoised recursion), rarely another game's; 4,096 plays as fast as 65,536 (3-player games
of every rule set), which a bot's normal AIs filled over a long run (about 25 MB)."""


@lru_cache(maxsize=SEARCH_CACHE_KEPT)
def chain_gain(top: Card, hand: tuple[Card, ...]) -> float:
    """The most points a run of my own plays could shed from ``top`` (if nobody interfered)."""
    gained = 0.0
    cost = hand_cost(hand)
    for index, card in enumerate(hand):
        if (index and hand[index - 1] is card) or card not in PLAYABLE_ON[top]:
            continue
        rest = hand[:index] + hand[index + 1 :]
        gain = cost - hand_cost(rest) + (EMPTY_BONUS if not rest else chain_gain(card, rest))
        gained = max(gained, gain)
    return gained


def shedding(view: PlayerView) -> Action:
    """Classic and Kadabra: shed what costs most, keep a follow-up, quit when cheap."""
    me = view.me if view.me is not None else 0
    hand = view.hand
    cost = hand_cost(hand)
    legal = view.legal
    show = view.stage is not None and sum(view.stage) >= SHOW_THRESHOLD
    stage_cost = (view.stage[0] + 10 * view.stage[1]) if view.stage is not None and show else 0
    leader = min(
        (s.seat for s in view.seats if s.seat != me and not s.quit),
        key=lambda seat: (view.seats[seat].score, seat),
        default=None,
    )
    holds_token = view.token_holder == me

    def score(action: Action) -> float:
        kind = action.type
        value = 0.0
        llama = kind is ActionType.PLAY and action.card is LLAMA_CARD
        if view.uses_magic and show and kind is not ActionType.SKIP and not llama:
            value -= stage_cost  # fine point 11: this takes the stage
        if kind is ActionType.SKIP:
            return value + 10.5  # the token's 10 points go back to the supply
        if kind is ActionType.PLAY and action.card is not None:
            return value + play_score(view, hand, cost, action, leader, holds_token)
        if kind is ActionType.DRAW:
            worth = cost > DRAW_MIN_COST and (view.draw_pile or 0) >= DRAW_MIN_PILE
            return value + (0.5 if worth else -0.5)
        return value  # quit: keep what the hand costs now

    return best(legal, score)


def play_score(
    view: PlayerView,
    hand: tuple[Card, ...],
    cost: int,
    action: Action,
    leader: int | None,
    holds_token: bool,
) -> float:
    """How good playing ``action.card`` is: points shed, follow-ups kept, card effects."""
    card = action.card
    if card is None:
        return 0.0
    rest = without(hand, (card,))
    value = 2.0 + (cost - hand_cost(rest))  # playing beats drawing or quitting
    if not rest:
        value += EMPTY_BONUS
    after = PLAYABLE_ON[card]
    follows_after = sum(1 for c in rest if c in after)
    value += FOLLOW_BONUS * min(follows_after, 2)
    value += CHAIN_WEIGHT * chain_gain(card, tuple(rest))
    if not view.uses_magic:
        return value
    if card is ONE and action.give_to is not None:
        value += 10 if holds_token or not view.seats[view.me or 0].white else 1
        if action.give_to == leader:
            value += 0.5  # the gift goes to whoever threatens to win
    if card.symbol is Symbol.STAR and not holds_token:
        value -= 6  # the token costs 10 unless skipped away later
    if card.symbol is Symbol.DRAW and rest:
        value += 1  # the next player draws
    if card is LLAMA_CARD:
        value += 0.5  # one of my chips goes to the stage
    return value


# ---- dice -----------------------------------------------------------------------

ROLL_MARGIN = 0.0  # roll while staying in is expected to change my points by less than this
LOOKAHEAD = 2  # rolls of my own the dice plan looks ahead
RISK = 0.2  # a player ahead on points fears a big loss more than it likes an equal gain


def dread(points: float) -> float:
    """Points lost weigh more the bigger they are (risk aversion); gains count as they are."""
    return points + RISK * points * points if points > 0 else points


@cache
def roll_outcomes() -> tuple[tuple[tuple[Card, ...], float], ...]:
    """Every distinct roll (as a sorted multiset) with its probability."""
    counts = Counter(tuple(sort_cards(list(faces))) for faces in product(*DICE))
    total = sum(counts.values())
    return tuple((roll, count / total) for roll, count in counts.items())


def discard_options(hand: tuple[Card, ...], roll: tuple[Card, ...]) -> list[tuple[Card, ...]]:
    """The discards a roll allows (fine point 14: a die per tile), each tile of the roll in
    the order it first shows, fewest copies first. (Counted with ``tuple.count``, not
    ``Counter``: the dice lookahead asks this tens of thousands of times a game.)"""
    tiles: list[Card] = []
    most: list[int] = []
    for tile in roll:
        if tile not in tiles and tile in hand:
            tiles.append(tile)
            most.append(min(roll.count(tile), hand.count(tile)))
    runs = [[(tile,) * k for k in range(n + 1)] for tile, n in zip(tiles, most, strict=True)]
    return [option for option in map(_joined, product(*runs)) if option]


def _joined(runs: tuple[tuple[Card, ...], ...]) -> tuple[Card, ...]:
    return sum(runs, ())


@lru_cache(maxsize=SEARCH_CACHE_KEPT)
def stay_value(
    hand: tuple[Card, ...], row: tuple[Card, ...], lone: bool, chip: int, depth: int
) -> float:
    """Expected change in my points if I go on rolling while it pays (0: quit now)."""
    if depth <= 0:
        return 0.0
    return min(0.0, roll_value(hand, row, lone, chip, depth))


@lru_cache(maxsize=SEARCH_CACHE_KEPT)
def roll_value(
    hand: tuple[Card, ...], row: tuple[Card, ...], lone: bool, chip: int, depth: int
) -> float:
    """Expected change in my points from rolling now and resolving as I would.

    Rolls that match the same tiles of my hand allow the same discards: weighed once each.
    """
    total = 0.0
    cost = hand_cost(hand)
    discarded: dict[tuple[Card, ...], float] = {}
    for roll, chance in roll_outcomes():
        if all(face is LLAMA_CARD for face in roll):
            change = -chip + stay_value(hand, row, lone, chip, depth - 1)
        elif matched := tuple(face for face in roll if face in hand):
            if (change := discarded.get(matched)) is None:
                change = discarded[matched] = min(
                    discard_value(hand, d, row, lone, chip, depth)
                    for d in discard_options(hand, matched)
                )
        elif not lone and any(face in row for face in roll):
            change = min(take_value(hand, t, row, lone, chip, depth) for t in set(roll) if t in row)
        else:
            change = dread(hand_cost([*hand, *row]) - cost)  # bust: the round ends
        total += chance * change
    return total


def discard_value(
    hand: tuple[Card, ...],
    tiles: tuple[Card, ...],
    row: tuple[Card, ...],
    lone: bool,
    chip: int,
    depth: int,
) -> float:
    rest = tuple(without(hand, tiles))
    if not rest:
        return -hand_cost(hand) - chip - 1.0
    change = hand_cost(rest) - hand_cost(hand) - 0.01 * len(tiles)
    return change + stay_value(rest, row, lone, chip, depth - 1)


def take_value(
    hand: tuple[Card, ...], tile: Card, row: tuple[Card, ...], lone: bool, chip: int, depth: int
) -> float:
    mine = tuple(sort_cards([*hand, tile]))
    rest = tuple(without(row, (tile,)))
    change = dread(hand_cost(mine) - hand_cost(hand))
    return change + (stay_value(mine, rest, lone, chip, depth - 1) if rest else 0.0)


def dice(view: PlayerView, depth: int = LOOKAHEAD) -> Action:
    """Dice: discard the costliest tiles, take the cheapest, roll while it pays.

    ``depth`` is how many own rolls the plan looks ahead (search playouts use 1: cheaper).
    """
    legal = view.legal
    me = view.me if view.me is not None else 0
    hand = view.hand
    row = tuple(view.row or ())
    chip = chip_back(view)
    lone = all(s.quit for s in view.seats if s.seat != me)
    kinds = {a.type for a in legal}
    if ActionType.DISCARD in kinds:
        return min(legal, key=lambda a: discard_value(hand, a.tiles, row, lone, chip, depth))
    if ActionType.TAKE in kinds:
        return min(
            legal,
            key=lambda a: take_value(hand, a.card, row, lone, chip, depth) if a.card else 0.0,
        )
    roll = next((a for a in legal if a.type is ActionType.ROLL), None)
    quit_ = next((a for a in legal if a.type is ActionType.QUIT), None)
    if roll is None or quit_ is None:
        return legal[0]
    value = roll_value(hand, row, lone, chip, depth)
    return roll if value < ROLL_MARGIN else quit_


# ---- tutorial -------------------------------------------------------------------

AVERAGE_CARD = sum(penalty(c) for c in PLAIN_VALUES) / len(PLAIN_VALUES)
"""The mean penalty of a card of a fresh deck (a guess at an unseen card)."""
STOP_MARGIN = 3.0  # with no play, stop when my hand is this far below my guess of the best other
STOP_AHEAD = 8.0  # even with a play, stop when this far ahead of that guess
SHED_WEIGHT = 0.3  # per point of the card played
OPTION_WEIGHT = 3.0  # per card of mine still playable after it
DRAW_MIN_PILE_TUTORIAL = 3


def tutorial(view: PlayerView) -> Action:
    """Tutorial: stop on an L or when ahead; shed big cards but keep cards playable."""
    legal = view.legal
    by_type = {a.type: a for a in legal}
    me = view.me if view.me is not None else 0
    hand = view.hand
    mine = sum(penalty(c) for c in hand)
    stop = by_type.get(ActionType.STOP)
    if stop is not None and view.top is LLAMA_CARD:
        return stop  # +1 instead of minus the hand
    plays = [a for a in legal if a.type is ActionType.PLAY and a.card is not None]
    if ActionType.PASS in by_type:  # the drawn card is playable: playing it sheds it
        return plays[0] if plays else by_type[ActionType.PASS]
    others = [s for s in view.seats if s.seat != me]
    lead = min(s.hand_size for s in others) * AVERAGE_CARD - mine
    if stop is not None and (lead > STOP_MARGIN if not plays else lead > STOP_AHEAD):
        return stop
    if plays:
        return best(tuple(plays), lambda a: tutorial_play_score(hand, a))
    draw = by_type.get(ActionType.DRAW)
    if draw is not None and (view.draw_pile or 0) >= DRAW_MIN_PILE_TUTORIAL:
        return draw
    return stop if stop is not None else legal[0]


def tutorial_play_score(hand: tuple[Card, ...], action: Action) -> float:
    card = action.card
    if card is None:
        return 0.0
    floor = play_value(card)
    still_playable = sum(1 for c in hand if c is not card and play_value(c) >= floor)
    return SHED_WEIGHT * penalty(card) + OPTION_WEIGHT * still_playable


# ---- the player --------------------------------------------------------------

STRATEGIES: dict[str, Callable[[PlayerView], Action]] = {
    "classic": shedding,
    "kadabra": shedding,
    "dice": dice,
    "tutorial": tutorial,
}


class HeuristicPlayer:
    """Rules of thumb per rule set; a rule set it does not know gets its first legal action."""

    name = "heuristic"

    def __init__(self, seed: int | str) -> None:
        self._chooser = rng.chooser(seed, self.name)

    def choose(self, view: PlayerView) -> Action:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        strategy = STRATEGIES.get(view.variant)
        return strategy(view) if strategy is not None else legal[0]


register(HeuristicPlayer.name, HeuristicPlayer)
