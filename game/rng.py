"""The only place a ``random.Random`` is built.

Every chance outcome is a pure function of the game's seed and where it
occurs (round, roll index), so a game restored from its record and its seed
draws exactly what it would have drawn had it never stopped.
``random.Random`` seeded with a string hashes it with SHA-512, which gives the
same sequence on every machine and Python version.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


def _rng(seed: int | str, *where: object) -> random.Random:
    return random.Random(":".join(str(part) for part in (seed, *where)))


def shuffled_deck(seed: int | str, round_no: int, deck: Sequence[T]) -> tuple[T, ...]:
    """The deck of round ``round_no``, shuffled.

    Exactly ``Random.shuffle`` (CPython 3.11–3.13: Fisher–Yates from the end, each index
    drawn by ``_randbelow``'s rejection sampling on ``getrandbits``), written out here:
    every deal of every game draws one, and calling ``_randbelow`` once per card was most
    of the deal's cost. tests/game/test_rng.py checks it against ``Random.shuffle``.
    """
    cards = list(deck)
    steps = _STEPS.get(len(cards))
    if steps is None:
        steps = _STEPS[len(cards)] = tuple(
            (i, i + 1, (i + 1).bit_length()) for i in range(len(cards) - 1, 0, -1)
        )
    getrandbits = _rng(seed, "deck", round_no).getrandbits
    for i, n, k in steps:
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards)


_STEPS: dict[int, tuple[tuple[int, int, int], ...]] = {}
"""Per deck size, the shuffle's steps: the place filled, how many cards it draws from, and
the bits drawn for that (one entry per rule set's deck)."""


def roll(seed: int | str, round_no: int, index: int, dice: Sequence[Sequence[T]]) -> tuple[T, ...]:
    """The faces of roll number ``index`` (0-based) of round ``round_no``."""
    rng = _rng(seed, "roll", round_no, index)
    return tuple(die[rng.randrange(len(die))] for die in dice)


def new_seed() -> int:
    """A fresh seed for a game whose host gave none (the only unseeded draw)."""
    return random.SystemRandom().randrange(2**63)


def chooser(seed: int | str, *where: object) -> random.Random:
    """A private generator for an AI player's choices."""
    return _rng(seed, "ai", *where)
