"""``rng.shuffled_deck`` writes ``Random.shuffle`` out for speed: it must shuffle exactly as
``Random.shuffle`` does, or every seeded game (and record without its decks) would change."""

from __future__ import annotations

import random

from game import find_rules, variant_names
from game.rng import shuffled_deck


def test_shuffled_deck_is_random_shuffle() -> None:
    decks = [list(find_rules(v).deck()) for v in variant_names()] + [
        list(range(size)) for size in (0, 1, 2, 3, 7, 64, 65, 200)
    ]
    for deck in decks:
        for seed in ("s", 7, "bench:12", "x" * 40):
            for round_no in (1, 2, 17):
                expected = list(deck)
                random.Random(f"{seed}:deck:{round_no}").shuffle(expected)
                assert shuffled_deck(seed, round_no, deck) == tuple(expected)
