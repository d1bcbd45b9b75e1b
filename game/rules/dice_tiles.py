"""docs/rules.md §3: L.A.M.A. Dice's tiles, dice and rolls, and the discards a roll allows
(the data and pure helpers :mod:`game.rules.dice` plays with)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import product

from game import rng
from game.actions import Action, discard, take
from game.cards import LLAMA_CARD, PLAIN_VALUES, Card


def _faces(text: str) -> tuple[Card, ...]:
    return tuple(Card.parse(t) for t in text.split())


DICE: tuple[tuple[Card, ...], ...] = (
    _faces("3 4 5 6 L L"),
    _faces("1 2 5 6 L L"),
    _faces("1 2 3 4 L L"),
)
"""docs/rules.md §3 (our choice of faces): dice A, B and C, six faces each."""
FAST_ROLL: Callable[[int | str, int, int], tuple[Card, Card, Card]]
FAST_ROLL = rng.unrolled_roll(DICE)  # type: ignore[assignment]
"""A roll's faces from the seed, the round and the index: ``rng.fast_roll`` for these dice,
written out (the fast path's rolls)."""
REROLL = rng.unrolled_roll(DICE, reseeding=True)
""":data:`FAST_ROLL` on a scratch Twister, reseeded (a fused whole game's rolls)."""

TAKE_ACTIONS = {tile: take(tile) for tile in PLAIN_VALUES}
DECK: tuple[Card, ...] = tuple(
    c for c in PLAIN_VALUES if c is not LLAMA_CARD for _ in range(5)
) + (LLAMA_CARD,) * 6
"""The 36-tile player deck, built once (every deal asks for it)."""

_DISCARDS: dict[tuple[object, ...], tuple[Action, ...]] = {}
"""The discards of a roll and how many of each rolled face the hand holds (all they depend on;
a few thousand keys), listed again and again in play and in search; emptied when it holds
:data:`DISCARDS_KEPT`, as every cache of a long run is."""
DISCARDS_KEPT = 8192


def remembered_discards(key: tuple[object, ...], roll: tuple[Card, ...], hand: list[Card]
                        ) -> tuple[Action, ...]:
    """:func:`discards`, remembered under ``key`` (the roll and the counts it depends on)."""
    actions = _DISCARDS.get(key)
    if actions is None:
        if len(_DISCARDS) >= DISCARDS_KEPT:
            _DISCARDS.clear()
        actions = _DISCARDS[key] = discards(roll, hand)
    return actions


def discards(roll: tuple[Card, ...], hand: list[Card]) -> tuple[Action, ...]:
    """Every legal discard: a multiset of own tiles, one die showing each (fine point 14)."""
    dice = Counter(roll)
    held = Counter(hand)
    tiles = [t for t in PLAIN_VALUES if t in dice and t in held]
    limits = [range(min(dice[t], held[t]) + 1) for t in tiles]
    actions = []
    for counts in product(*limits):
        if any(counts):
            chosen = [t for t, k in zip(tiles, counts, strict=True) for _ in range(k)]
            actions.append(discard(chosen))
    return tuple(actions)
