"""``rng.shuffled_deck`` writes ``Random.shuffle`` out for speed: it must shuffle exactly as
``Random.shuffle`` does, or every seeded game (and record without its decks) would change."""

from __future__ import annotations

import hashlib
import random

from game import find_rules, variant_names
from game.rng import (
    _SHA512,
    chooser,
    fast_chooser,
    fast_dealt,
    fast_roll,
    fast_shuffled_deck,
    roll,
    scratch,
    seed_of,
    seeded,
    shuffled_deck,
    unrolled_deal,
    unrolled_roll,
    unrolled_shuffle,
)


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


def test_seeded_is_random_random_of_the_text() -> None:
    """``rng.seeded`` builds ``random.Random(text)``'s Twister the cheap way: the same
    state, so the same draws (the fast path's generators must be the full engine's)."""
    for text in ("", "0", "s:0:deck:1", "bench:12:3:ai:random", "é☃:x" * 9, "x" * 300):
        expected = random.Random(text)
        generator = seeded(text)
        assert generator.getstate() == expected.getstate()[1]
        assert [generator.random() for _ in range(50)] == [expected.random() for _ in range(50)]
        for k in (1, 6, 31, 32, 33, 64, 100):
            assert generator.getrandbits(k) == expected.getrandbits(k)
        assert generator.getstate() == expected.getstate()[1]


def test_seeded_hashes_with_sha512() -> None:
    """Whichever SHA-512 ``seeded`` found (CPython's own, or hashlib's), the digest is
    hashlib's."""
    for data in (b"", b"sim:12:3:ai:random", "é☃".encode() * 50):
        assert _SHA512(data).digest() == hashlib.sha512(data).digest()


def test_the_fast_chance_is_the_full_engines() -> None:
    """Decks, rolls and choosers built by ``seeded`` are those of ``shuffled_deck``,
    ``roll`` and ``chooser``."""
    dice = [find_rules("dice").deck()[:6], ("a", "b", "c"), tuple(range(9))]
    for index in range(200):
        seed = f"same:{index}"
        for variant in variant_names():
            deck = find_rules(variant).deck()
            round_no = 1 + index % 7
            assert tuple(fast_shuffled_deck(seed, round_no, deck)) == shuffled_deck(
                seed, round_no, deck
            )
        assert fast_roll(seed, 2, index, dice) == roll(seed, 2, index, dice)
        assert fast_chooser(seed, "random").getstate() == chooser(seed, "random").getstate()[1]


def test_the_unrolled_shuffle_is_random_shuffle() -> None:
    """``fast_shuffled_deck`` shuffles with straight-line code made per deck size."""
    for size in (0, 1, 2, 3, 7, 36, 56, 60, 64, 65):
        shuffle = unrolled_shuffle(size)
        for seed in range(300):
            expected = list(range(size))
            random.Random(f"u:{seed}").shuffle(expected)
            assert shuffle(random.Random(f"u:{seed}").getrandbits, list(range(size))) == expected


def test_the_unrolled_deal_lays_out_the_shuffled_deck() -> None:
    """Each hand every ``players``-th card from the top, then the turned-up card, then the
    pile (its top last); no turned-up card when every card is dealt."""
    for size, players in ((56, 2), (56, 6), (36, 4), (36, 6), (9, 3), (3, 1)):
        deal = unrolled_deal(size, players, size // players if size < 10 else 6)
        hand = size // players if size < 10 else 6
        dealt = players * hand
        for seed in range(100):
            deck = list(range(size))
            random.Random(f"d:{seed}").shuffle(deck)
            laid = deal(random.Random(f"d:{seed}").getrandbits, list(range(size)))
            hands = [deck[k:dealt:players] for k in range(players)]
            top = deck[dealt] if dealt < size else None
            assert laid == (*hands, top, deck[dealt + 1 :][::-1])


def test_the_unrolled_deal_for_a_first_player_lays_the_hands_in_seat_order() -> None:
    """With ``first``, seat ``s`` holds the deal order's ``(s - first) % players``-th hand;
    the turned-up card and the pile are the same."""
    for players in (2, 4, 6):
        in_deal_order = unrolled_deal(56, players, 6)
        for first in range(players):
            deal = unrolled_deal(56, players, 6, first)
            for seed in range(30):
                laid = in_deal_order(random.Random(f"f:{seed}").getrandbits, list(range(56)))
                seated = deal(random.Random(f"f:{seed}").getrandbits, list(range(56)))
                hands = [laid[(s - first) % players] for s in range(players)]
                assert seated == (*hands, *laid[players:])


def test_the_fast_deal_is_the_seeded_deck() -> None:
    for name in variant_names():
        deck = find_rules(name).deck()
        for seed, round_no, players in (("s", 1, 4), (7, 3, 2), ("x:9", 12, 6)):
            cards = shuffled_deck(seed, round_no, deck)
            laid = fast_dealt(seed, round_no, deck, players, 6)
            assert [list(h) for h in laid[:players]] == [
                list(cards[k : 6 * players : players]) for k in range(players)
            ]
            assert laid[players + 1][::-1] == list(cards[6 * players + 1 :])


def test_a_reseeded_twister_is_seeded() -> None:
    """``scratch().seed(seed_of(text))`` puts a Twister used before in ``seeded(text)``'s
    state, and a reseeding roll draws ``roll``'s faces."""
    twister = scratch()
    dice = (("a", "b", "c", "d", "e", "f"), ("x", "y"), tuple("0123456789"))
    reroll = unrolled_roll(dice, reseeding=True)
    for text in ("s:deck:1", "é:roll:2:3", "", "x" * 300):
        twister.getrandbits(32)
        twister.seed(seed_of(text))
        assert twister.getstate() == seeded(text).getstate() == random.Random(text).getstate()[1]
    for seed in ("s", 17):
        for index in range(20):
            faces = reroll(seed, 3, index, twister.seed, twister.getrandbits)
            assert faces == roll(seed, 3, index, dice)


def test_the_unrolled_roll_is_roll() -> None:
    """Dice rolls on the fast path (``Dice.seeded_roll``, ``SeededChance.roll``) are
    ``rng.roll``'s: the same faces for every seed, round and index."""
    dice_rules = find_rules("dice")
    dice = (("a", "b", "c", "d", "e", "f"), ("x", "y"), tuple("0123456789"), ("only",))
    unrolled = unrolled_roll(dice)
    for seed in ("s", 17, "x:3", "é"):
        for round_no in (1, 2, 9):
            for index in range(30):
                assert unrolled(seed, round_no, index) == roll(seed, round_no, index, dice)
                assert dice_rules.seeded_roll(seed, round_no, index) == dice_rules.random_roll(
                    seed, round_no, index
                )
