"""The only place a ``random.Random`` is built.

Every chance outcome is a pure function of the game's seed and where it
occurs (round, roll index), so a game restored from its record and its seed
draws exactly what it would have drawn had it never stopped.
``random.Random`` seeded with a string hashes it with SHA-512, which gives the
same sequence on every machine and Python version.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from hashlib import sha512
from importlib import import_module
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


def _rng(seed: int | str, *where: object) -> random.Random:
    return random.Random(":".join(str(part) for part in (seed, *where)))


class Twister(Protocol):
    """The Mersenne Twister under ``random.Random`` (CPython's ``_random.Random``): what
    the fast path draws with (``random``, ``getrandbits``)."""

    def random(self) -> float: ...

    def getrandbits(self, k: int, /) -> int: ...

    def getstate(self) -> tuple[int, ...]: ...

    def seed(self, n: int, /) -> None: ...


def seeded(text: str) -> Twister:
    """The Twister of ``random.Random(text)``, in the same state, built for less.

    ``Random.seed`` (version 2, the default) turns a ``str`` into the integer of its UTF-8
    bytes followed by their SHA-512 digest and seeds the Twister with that integer
    (``super().seed``); this hands that integer to the Twister's own constructor
    (``random.Random``'s C base class seeds from its argument) in one call, without
    ``Random.seed``'s Python layer, the ``random.Random`` subclass and its second
    ``__init__`` pass (about 40% of the cost: the Twister's own set-up is the rest). The
    fast path builds several generators a game with it; it draws ``random()`` and
    ``getrandbits`` only (what ``random.Random`` adds in Python, such as ``gauss``, is not
    there). tests/game/test_rng.py checks the state and every draw against
    ``random.Random(text)``.
    """
    data = text.encode()
    return _TWISTER(_FROM_BYTES(data + _SHA512(data).digest()))


def seed_of(text: str) -> int:
    """The integer ``random.Random(text)`` seeds its Twister with (:func:`seeded`'s): a
    Twister of the fast path reseeded with it (``twister.seed(seed_of(text))``, no new
    object) is in :func:`seeded`'s state. A whole game on the fast path reseeds one scratch
    Twister for its decks and rolls; tests/game/test_rng.py checks the state."""
    data = text.encode()
    return _FROM_BYTES(data + _SHA512(data).digest())


def scratch() -> Twister:
    """A Twister to reseed (:func:`seed_of`). Building one seeds it, as dear as a reseed,
    so a caller keeps it from game to game; one per caller, never shared between threads
    (a reseed and its draws must not interleave with another's)."""
    return _TWISTER(0)


_TWISTER: Callable[[int], Twister] = random.Random.__base__  # type: ignore[assignment]
"""``_random.Random``: ``random.Random``'s C base, seeding itself from its argument."""
_FROM_BYTES = int.from_bytes


def _builtin_sha512() -> Callable[[bytes], Any]:
    """CPython's own SHA-512 (the standard library's ``_sha2``, 3.12+, or ``_sha512``, 3.11,
    found by name: each is the standard library only in its own versions): hashlib's digest
    without OpenSSL's set-up per call, about 0.3 µs less a generator; hashlib's if neither."""
    for name in ("_sha2", "_sha512"):
        try:
            made: Callable[[bytes], Any] = import_module(name).sha512
        except (ImportError, AttributeError):
            continue
        return made
    return sha512


_SHA512 = _builtin_sha512()


def shuffled_deck(seed: int | str, round_no: int, deck: Sequence[T]) -> tuple[T, ...]:
    """The deck of round ``round_no``, shuffled (:func:`shuffle` with the round's generator)."""
    return tuple(shuffle(_rng(seed, "deck", round_no), deck))


def fast_shuffled_deck(seed: int | str, round_no: int, deck: Sequence[T]) -> list[T]:
    """:func:`shuffled_deck`'s cards, as a list: the generator built by :func:`seeded`, the
    shuffle unrolled (:func:`unrolled_shuffle`)."""
    shuffle_ = _UNROLLED.get(len(deck))
    if shuffle_ is None:
        shuffle_ = _UNROLLED[len(deck)] = unrolled_shuffle(len(deck))
    return shuffle_(seeded(f"{seed}:deck:{round_no}").getrandbits, list(deck))


def unrolled_shuffle(size: int) -> Callable[[Callable[[int], int], list[Any]], list[Any]]:
    """:func:`shuffle`'s steps for a deck of ``size`` cards as straight-line code (each
    place, its bit count and bound written in): the loop's own work was half the shuffle's
    cost. Each step's place is final once filled, so its card is kept in a local and only
    the swapped-out card written back; the result is a new list (``cards``, a scratch copy
    of the deck, is left partly shuffled). tests/game/test_rng.py checks it against
    ``Random.shuffle``."""
    if size < 2:
        return _made(["def shuffle(getrandbits, cards):", "    return list(cards)"])
    places = ", ".join(_place(p) for p in range(size))
    return _made([*_steps("shuffle", size), f"    return [{places}]"])


def unrolled_deal(
    size: int, players: int, hand_size: int, first: int = 0
) -> Callable[..., tuple[Any, ...]]:
    """:func:`unrolled_shuffle`'s steps, then the cards laid out as ``RuleSet.deal`` deals
    them, without the deck's list: each hand in deal order (card ``k`` of the deck to the
    ``k % players``-th seat from the first player), the turned-up card (``None`` when none
    is left) and the draw pile (the rest, its top last). With ``first``, the hands are in
    seat order for that first player instead (seat ``s`` holds the ``(s - first) %
    players``-th hand of the deal order): a whole game's round then needs no rotation."""
    dealt = players * hand_size
    hands = [
        "[" + ", ".join(_place(p) for p in range((s - first) % players, dealt, players)) + "]"
        for s in range(players)
    ]
    top = _place(dealt) if dealt < size else "None"
    pile = "[" + ", ".join(_place(p) for p in range(size - 1, dealt, -1)) + "]"
    return _made([*_steps("deal", size), f"    return ({', '.join(hands)}, {top}, {pile})"])


def _steps(name: str, size: int) -> list[str]:
    """The head and the unrolled steps of a shuffle of ``size`` cards (``size`` >= 2)."""
    lines = [f"def {name}(getrandbits, cards):"]
    for i in range(size - 1, 0, -1):
        n, k = i + 1, (i + 1).bit_length()
        lines += [
            f"    j = getrandbits({k})",
            f"    while j >= {n}:",
            f"        j = getrandbits({k})",
            f"    c{i} = cards[j]",
            f"    cards[j] = cards[{i}]",
        ]
    return lines


def _place(place: int) -> str:
    """Where a shuffle's card at ``place`` ends up: place 0 in the list, others in a local."""
    return "cards[0]" if place == 0 else f"c{place}"


def _made(lines: list[str]) -> Callable[..., Any]:
    namespace: dict[str, Any] = {}
    exec("\n".join(lines), namespace)  # our own text: integers written into a template
    name = lines[0][4 : lines[0].index("(")]
    made: Callable[..., Any] = namespace[name]
    return made


def fast_dealt(
    seed: int | str, round_no: int, deck: Sequence[T], players: int, hand_size: int
) -> tuple[Any, ...]:
    """:func:`fast_shuffled_deck`'s cards laid out for ``RuleSet.deal_out`` (``players``
    hands of ``hand_size``, the turned-up card, the pile: :func:`unrolled_deal`): the fast
    path deals each round from this."""
    key = (len(deck), players, hand_size)
    deal = _DEALS.get(key)
    if deal is None:
        deal = _DEALS[key] = unrolled_deal(*key)
    return deal(seeded(f"{seed}:deck:{round_no}").getrandbits, list(deck))


_DEALS: dict[tuple[int, int, int], Callable[..., tuple[Any, ...]]] = {}
"""Per deck size, seat count and hand size, its unrolled deal (2-6 seats a rule set's deck)."""


Deal = Callable[..., tuple[Any, ...]]
"""An unrolled deal: ``deal(getrandbits, cards)``, the hands, the turned-up card, the pile."""


def seat_deals(size: int, players: int, hand_size: int) -> tuple[Deal, ...]:
    """For each first player, :func:`unrolled_deal` with the hands in seat order, made once
    per deck size, seat count and hand size: a fused whole game deals its rounds with
    these (``deals[first](getrandbits, list(deck))``)."""
    key = (size, players, hand_size)
    deals = _SEAT_DEALS.get(key)
    if deals is None:
        deals = _SEAT_DEALS[key] = tuple(
            unrolled_deal(size, players, hand_size, first) for first in range(players)
        )
    return deals


_SEAT_DEALS: dict[tuple[int, int, int], tuple[Deal, ...]] = {}
"""Per deck size, seat count (2-6) and hand size, a deal per first player."""


_UNROLLED: dict[int, Callable[[Callable[[int], int], list[Any]], list[Any]]] = {}


def shuffle(generator: random.Random, deck: Sequence[T]) -> list[T]:
    """``deck`` shuffled by ``generator.shuffle``, a new list.

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
    getrandbits = generator.getrandbits
    for i, n, k in steps:
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]
    return cards


_STEPS: dict[int, tuple[tuple[int, int, int], ...]] = {}
"""Per deck size, the shuffle's steps: the place filled, how many cards it draws from, and
the bits drawn for that (one entry per rule set's deck)."""


def roll(seed: int | str, round_no: int, index: int, dice: Sequence[Sequence[T]]) -> tuple[T, ...]:
    """The faces of roll number ``index`` (0-based) of round ``round_no``."""
    rng = _rng(seed, "roll", round_no, index)
    return tuple(die[rng.randrange(len(die))] for die in dice)


def fast_roll(
    seed: int | str, round_no: int, index: int, dice: Sequence[Sequence[T]]
) -> tuple[T, ...]:
    """:func:`roll`'s faces, the generator built by :func:`seeded` and ``randrange`` written
    out (``_randbelow``: ``getrandbits`` of the size's bit length until below it)."""
    getrandbits = seeded(f"{seed}:roll:{round_no}:{index}").getrandbits
    faces = []
    for die in dice:
        n = len(die)
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        faces.append(die[j])
    return tuple(faces)


def unrolled_roll(
    dice: Sequence[Sequence[T]], reseeding: bool = False
) -> Callable[..., tuple[T, ...]]:
    """:func:`fast_roll` for these ``dice``, written out (the generator's seeding as
    :func:`seeded`'s, each die's rejection sampling with its size and bit count): one call
    a roll instead of four, no loop, no list. With ``reseeding`` it takes a scratch
    Twister's ``seed`` and ``getrandbits`` after the seed, round and index, and reseeds it
    (:func:`seed_of`) instead of building one. tests/game/test_rng.py checks both against
    :func:`roll`."""
    lines = [
        "def roll(seed, round_no, index):",
        '    data = f"{seed}:roll:{round_no}:{index}".encode()',
        "    getrandbits = twister(from_bytes(data + sha512(data).digest())).getrandbits",
    ]
    if reseeding:
        lines = [
            "def roll(seed, round_no, index, reseed, getrandbits):",
            '    data = f"{seed}:roll:{round_no}:{index}".encode()',
            "    reseed(from_bytes(data + sha512(data).digest()))",
        ]
    for d, die in enumerate(dice):
        n = len(die)
        k = n.bit_length()
        lines += [
            f"    j = getrandbits({k})",
            f"    while j >= {n}:",
            f"        j = getrandbits({k})",
            f"    f{d} = die{d}[j]",
        ]
    lines.append("    return (" + "".join(f"f{d}, " for d in range(len(dice))) + ")")
    namespace: dict[str, Any] = {"twister": _TWISTER, "from_bytes": _FROM_BYTES, "sha512": _SHA512}
    namespace.update({f"die{d}": tuple(die) for d, die in enumerate(dice)})
    exec("\n".join(lines), namespace)  # our own text: integers written into a template
    made: Callable[..., tuple[T, ...]] = namespace["roll"]
    return made


def new_seed() -> int:
    """A fresh seed for a game whose host gave none (the only unseeded draw)."""
    return random.SystemRandom().randrange(2**63)


def chooser(seed: int | str, *where: object) -> random.Random:
    """A private generator for an AI player's choices."""
    return _rng(seed, "ai", *where)


def fast_chooser(seed: str, *where: str) -> Twister:
    """:func:`chooser`'s Twister, in the same state, built by :func:`seeded`."""
    return seeded(":".join((seed, "ai", *where)))
