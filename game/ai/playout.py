"""The playout policy of the ``hard`` AI: the heuristic's rules of thumb, on the state.

A search plays hundreds of rounds out per decision, every seat by the
``heuristic``. Building a :class:`~game.views.PlayerView` per step and the
heuristic's exact run planner (:func:`game.ai.heuristic.chain_gain`, slow on
long hands) cost most of a decision. :func:`shedding` scores classic and
Kadabra moves the way :func:`game.ai.heuristic.shedding` does, reading the
simulated state directly (a simulated seat sees only its own hand and public
facts, as the heuristic does), with one approximation: the run planner plays
all copies of a card at once, so it works on the distinct cards of a hand
(at most a dozen), and its table of answers stays small.

Outside the shedding games the heuristic itself is called on a view built
from the state (dice with a one-roll plan, as before).
"""

from __future__ import annotations

from collections.abc import Callable

from game.actions import Action, ActionType
from game.ai.heuristic import (
    CHAIN_WEIGHT,
    DRAW_MIN_COST,
    DRAW_MIN_PILE,
    EMPTY_BONUS,
    FOLLOW_BONUS,
    ROLL_MARGIN,
    dread,
    roll_outcomes,
)
from game.cards import ALL_CARDS, LLAMA, LLAMA_CARD, ONE, Card, Symbol
from game.rules import RuleSet
from game.rules.kadabra import SHOW_THRESHOLD
from game.rules.shedding import PLAYABLE_ON
from game.state import State

Policy = Callable[[State, int, list[Action]], Action]
"""Picks one of ``legal`` for ``seat`` from a simulated state."""

MASK: dict[Card, int] = {card: sum(1 << (v - 1) for v in card.values) for card in ALL_CARDS}
"""Bits 0–5: the numbers 1–6 a card carries; bit 6: the llama."""

COST: tuple[int, ...] = tuple(
    sum(v for v in range(1, LLAMA) if mask >> (v - 1) & 1) + (10 if mask >> 6 & 1 else 0)
    for mask in range(1 << 7)
)
"""A hand's points by the mask of what it carries (distinct numbers once, llamas 10)."""

PLAY, DRAW, SKIP = ActionType.PLAY, ActionType.DRAW, ActionType.SKIP


def mask_of(cards: list[Card] | tuple[Card, ...]) -> int:
    mask = 0
    for card in cards:
        mask |= MASK[card]
    return mask


CACHE_LIMIT = 1 << 18  # entries a playout cache holds before it starts again


def remember(cache: dict[int, float], key: int, value: float) -> float:
    """Keep ``value`` under ``key`` in a bounded cache (emptied when full); ``value``.

    Keys are plain ints on purpose: a dict of ints and floats is not tracked by the
    garbage collector, so a full cache costs a full collection nothing (with tuple and
    frozenset keys, its quarter of a million entries made one take 180 ms of CPU)."""
    if len(cache) > CACHE_LIMIT:
        cache.clear()
    cache[key] = value
    return value


CARD_INDEX: dict[Card, int] = {card: i for i, card in enumerate(ALL_CARDS)}
BIT: dict[Card, int] = {card: 1 << i for i, card in enumerate(ALL_CARDS)}
"""A set of distinct cards is an int: bit ``CARD_INDEX[card]`` for each card."""
PLAYABLE_BITS: tuple[int, ...] = tuple(
    sum(BIT[card] for card in PLAYABLE_ON[top]) for top in ALL_CARDS
)
"""By the top card's index, the cards playable on it as bits."""
CARD_MASKS: tuple[int, ...] = tuple(MASK[card] for card in ALL_CARDS)
TOP_BITS = 5  # a chain key is (distinct cards << TOP_BITS) | top card's index
assert len(ALL_CARDS) <= 1 << TOP_BITS

_CHAINS: dict[int, float] = {}


def bits_of(cards: list[Card] | tuple[Card, ...]) -> int:
    """The distinct ``cards`` as bits (:data:`BIT`)."""
    bits = 0
    for card in cards:
        bits |= BIT[card]
    return bits


def value_mask(bits: int) -> int:
    """:func:`mask_of` the distinct cards ``bits``."""
    mask = 0
    while bits:
        low = bits & -bits
        mask |= CARD_MASKS[low.bit_length() - 1]
        bits ^= low
    return mask


def chain(top: int, distinct: int) -> float:
    """The most points a run of my plays from the card of index ``top`` sheds, holding the
    distinct cards ``distinct`` (bits) and playing each card's copies together (a lower
    bound of the heuristic's ``chain_gain``, equal on hands of singles)."""
    key = distinct << TOP_BITS | top
    known = _CHAINS.get(key)
    if known is not None:
        return known
    cost = COST[value_mask(distinct)]
    gained = 0.0
    playable = distinct & PLAYABLE_BITS[top]
    while playable:
        low = playable & -playable
        playable ^= low
        rest = distinct ^ low
        gain = cost + EMPTY_BONUS  # the hand empties
        if rest:
            gain = cost - COST[value_mask(rest)] + chain(low.bit_length() - 1, rest)
        if gain > gained:
            gained = gain
    return remember(_CHAINS, key, gained)


def shedding(rule_set: RuleSet, state: State, seat: int, legal: list[Action]) -> Action:
    """:func:`game.ai.heuristic.shedding`'s choice, scored from the state."""
    hand = state.hands[seat]
    cost = COST[mask_of(hand)]
    magic = rule_set.uses_magic
    stage_cost = 0
    holds_token = False
    leader = None
    if magic:
        if state.stage_white + state.stage_black >= SHOW_THRESHOLD:
            stage_cost = state.stage_white + 10 * state.stage_black
        holds_token = state.token == seat
        white, black, quit_ = state.white, state.black, state.quit
        scores = [
            (white[s] + 10 * black[s] + state.totals[s], s)
            for s in range(state.players)
            if s != seat and not quit_[s]
        ]
        leader = min(scores)[1] if scores else None
    show = stage_cost > 0
    best = legal[0]
    best_value = -1e9
    for action in legal:
        kind = action.type
        card = action.card
        value = 0.0
        if show and kind is not SKIP and card is not LLAMA_CARD:
            value -= stage_cost
        if kind is SKIP:
            value += 10.5
        elif kind is PLAY and card is not None:
            value += play_score(state, seat, hand, cost, action, leader, holds_token, magic)
        elif kind is DRAW:
            worth = cost > DRAW_MIN_COST and len(state.draw_pile) >= DRAW_MIN_PILE
            value += 0.5 if worth else -0.5
        if value > best_value:
            best, best_value = action, value
    return best


def play_score(
    state: State,
    seat: int,
    hand: list[Card],
    cost: int,
    action: Action,
    leader: int | None,
    holds_token: bool,
    magic: bool,
) -> float:
    """:func:`game.ai.heuristic.play_score` with the distinct-card run planner."""
    card = action.card
    assert card is not None
    rest = list(hand)
    rest.remove(card)
    value = 2.0 + cost - COST[mask_of(rest)]
    if not rest:
        value += EMPTY_BONUS
    else:
        after = PLAYABLE_ON[card]
        follows = 0
        for other in rest:
            if other in after:
                follows += 1
                if follows == 2:
                    break
        value += FOLLOW_BONUS * follows + CHAIN_WEIGHT * chain(CARD_INDEX[card], bits_of(rest))
    if not magic:
        return value
    if card is ONE and action.give_to is not None:
        value += 10 if holds_token or not state.white[seat] else 1
        if action.give_to == leader:
            value += 0.5
    if card.symbol is Symbol.STAR and not holds_token:
        value -= 6
    if card.symbol is Symbol.DRAW and rest:
        value += 1
    if card is LLAMA_CARD:
        value += 0.5
    return value


# ---- dice ---------------------------------------------------------------------

_ROLLS: dict[int, float] = {}

FACES = 7
"""Tile faces 1–6 and L, as indices 0–6 (a tile's single bit in :data:`MASK`)."""


def _roll_table() -> tuple[tuple[tuple[int, ...], int, bool, float], ...]:
    """Every distinct roll: how many dice show each face, the faces' mask, all llamas, odds."""
    table = []
    for roll, chance in roll_outcomes():
        counts = [0] * FACES
        for face in roll:
            counts[face.values[0] - 1] += 1
        table.append((tuple(counts), mask_of(roll), all(f is LLAMA_CARD for f in roll), chance))
    return tuple(table)


def face_counts(hand: list[Card]) -> tuple[int, ...]:
    """How many tiles of each face ``hand`` holds, capped at 4 (a roll shows at most 3)."""
    counts = [0] * FACES
    for tile in hand:
        counts[tile.values[0] - 1] += 1
    return tuple(min(count, 4) for count in counts)


def dice_roll_value(held: tuple[int, ...], row_mask: int, lone: bool, chip: int) -> float:
    """:func:`game.ai.heuristic.roll_value` at depth 1, exactly: with no roll planned
    after this one, the best discard of a roll is always the largest. ``held`` is
    :func:`face_counts` of the hand, ``row_mask`` the row's :func:`mask_of`."""
    key = chip << 8 | row_mask << 1 | lone  # chip <= 10, row_mask < 128
    for count in held:  # each at most 4: three bits
        key = key << 3 | count
    known = _ROLLS.get(key)
    if known is not None:
        return known
    hand_mask = sum(1 << i for i in range(FACES) if held[i])
    cost = COST[hand_mask]
    total = 0.0
    for counts, roll_mask, llamas, chance in ROLL_TABLE:
        if llamas:
            change = -chip
        elif roll_mask & hand_mask:
            left = gone = 0
            for i in range(FACES):
                have, shown = held[i], counts[i]
                if have > shown:
                    left |= 1 << i
                    gone += shown
                else:
                    gone += have
            change = COST[left] - cost - 0.01 * gone if left else -cost - chip - 1.0
        elif not lone and roll_mask & row_mask:
            both = roll_mask & row_mask
            change = min(
                dread(COST[hand_mask | 1 << i] - cost) for i in range(FACES) if both >> i & 1
            )
        else:
            change = dread(COST[hand_mask | row_mask] - cost)
        total += chance * change
    return remember(_ROLLS, key, total)


def dice(rule_set: RuleSet, state: State, seat: int, legal: list[Action]) -> Action:
    """:func:`game.ai.heuristic.dice` with a one-roll plan, scored from the state."""
    hand = state.hands[seat]
    cost = COST[mask_of(hand)]
    kind = legal[0].type
    if kind is ActionType.DISCARD:
        chip = chip_back(state, seat)
        best, best_value = legal[0], 1e9
        for action in legal:
            rest = list(hand)
            for tile in action.tiles:
                rest.remove(tile)
            if rest:
                value = COST[mask_of(rest)] - cost - 0.01 * len(action.tiles)
            else:
                value = -cost - chip - 1.0
            if value < best_value:
                best, best_value = action, value
        return best
    if kind is ActionType.TAKE:
        return min(legal, key=lambda a: dread(COST[mask_of(hand) | MASK[a.card]] - cost))
    if len(legal) != 2 or kind is not ActionType.ROLL:
        return legal[0]
    quit_ = state.quit
    lone = all(quit_[s] for s in range(state.players) if s != seat)
    value = dice_roll_value(
        face_counts(hand), mask_of(state.row or ()), lone, chip_back(state, seat)
    )
    return legal[0] if value < ROLL_MARGIN else legal[1]


def chip_back(state: State, seat: int) -> int:
    """What returning one chip saves ``seat``: black if any, else white."""
    return 10 if state.black[seat] else 1 if state.white[seat] else 0


POLICIES: dict[str, Callable[[RuleSet, State, int, list[Action]], Action]] = {
    "classic": shedding,
    "kadabra": shedding,
    "dice": dice,
}
"""The rule sets played out from the state (the others go through a view)."""


ROLL_TABLE = _roll_table()
