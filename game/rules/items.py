"""A round's score items (the breakdown a round-over event carries): immutable values, each
made once and shared, kept by value and by sorted hand.

Split from :mod:`game.rules.base` (which re-exports :func:`counted_values`): the mechanics
there, the items' tables here.
"""

from __future__ import annotations

from collections.abc import Sequence

from game.cards import LLAMA, Card, hand_points, sort_cards, value_token
from game.events import ScoreItem, ScoreKind

WHITE_POINTS = 1
BLACK_POINTS = 10
"""A black chip is worth ten white ones; ten whites are exchanged for one black."""
LLAMA_POINTS = BLACK_POINTS
"""Any llamas left in hand score this once (one black chip), however many there are."""
CHIP_POINTS: dict[str | None, int] = {"black": BLACK_POINTS, "white": WHITE_POINTS, None: 0}
"""What returning a chip of each colour (or nothing) takes off a score."""

RETURNED_ITEMS: dict[str | None, ScoreItem] = {
    colour: ScoreItem(ScoreKind.RETURNED, -points, chip=colour)
    for colour, points in CHIP_POINTS.items()
}
"""The item of an emptied hand's returned chip, per colour (``None``: nothing to return)."""

_SCORE_ITEMS: dict[tuple[int, tuple[str, ...]], ScoreItem] = {}
"""Score items are immutable values, made once each and shared (building thousands of frozen
dataclasses made replaying a long record twice as slow). Keys are a value (``LLAMA`` for the
llamas) and the sorted tokens showing it, so a deck's makeup bounds them: a few hundred
(:data:`SCORE_ITEMS_KEPT` at most: emptied when full, as every cache of a long run is)."""
SCORE_ITEMS_KEPT = 4096


_COUNTED: dict[tuple[Card, ...], tuple[ScoreItem, ...]] = {}
"""A sorted hand's items, kept for the next hand of the same cards (in classic most
round-end hands were seen before); emptied when it holds ``_COUNTED_MAX``."""
_COUNTED_MAX = 4096


def counted_values(hand: list[Card]) -> list[ScoreItem]:
    """docs/rules.md §1 scoring, item by item: each distinct number once (a double counts
    both of its values), then the llamas together; each with the cards that show it."""
    cards = tuple(sort_cards(hand))
    counted = _COUNTED.get(cards)
    if counted is None:
        if len(_COUNTED) >= _COUNTED_MAX:
            _COUNTED.clear()
        counted = _COUNTED[cards] = tuple(_count_values(cards))
    return list(counted)


def _count_values(cards: tuple[Card, ...]) -> list[ScoreItem]:
    """``counted_values`` of sorted ``cards``, worked out."""
    showing: dict[int, list[str]] = {}
    llamas: list[str] = []
    for card in cards:
        for v in card.numbers:
            if v in showing:
                showing[v].append(card.token)
            else:
                showing[v] = [card.token]
        if card.has_llama:
            llamas.append(card.token)
    items = [_score_item(v, tuple(showing[v])) for v in sorted(showing)]
    if llamas:
        items.append(_score_item(LLAMA, tuple(llamas)))
    return items


def _score_item(value: int, cards: tuple[str, ...]) -> ScoreItem:
    """The shared item counting ``value`` (or the llamas) once, shown by ``cards``."""
    key = (value, cards)
    item = _SCORE_ITEMS.get(key)
    if item is None:
        if value == LLAMA:
            item = ScoreItem(ScoreKind.LLAMAS, LLAMA_POINTS, value="L", cards=cards)
        else:
            item = ScoreItem(ScoreKind.VALUE, value, value=value_token(value), cards=cards)
        if len(_SCORE_ITEMS) >= SCORE_ITEMS_KEPT:
            _SCORE_ITEMS.clear()
        _SCORE_ITEMS[key] = item
    return item


def chips_scored(
    hands: Sequence[Sequence[Card]], white: list[int], black: list[int], emptied: int | None
) -> list[int]:
    """docs/rules.md §1 scoring on bare chip lists, without a breakdown (the fused whole
    games': ``RuleSet.score_round``'s fast branch): the seat that ``emptied`` its hand
    returns a chip, every other pays its hand's points in white chips (ten white make a
    black) and a black chip for llamas. The seats' scores after it."""
    for seat, hand in enumerate(hands):
        if seat == emptied:  # return_chip: black if any, else white
            if black[seat]:
                black[seat] -= 1
            elif white[seat]:
                white[seat] -= 1
            continue
        numbers, llama = hand_points(hand)
        total = white[seat] + numbers
        black[seat] += total // BLACK_POINTS + llama
        white[seat] = total % BLACK_POINTS
    return [w + BLACK_POINTS * b for w, b in zip(white, black, strict=True)]
