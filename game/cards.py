"""Card and tile tokens, their values and the play order (docs/rules.md, notation).

Every token maps to one shared :class:`Card` instance, so cards compare by
identity and hash cheaply; ``Card.parse`` is the only way to obtain one.
"""

from __future__ import annotations

from enum import Enum
from functools import reduce
from operator import attrgetter, or_

LLAMA = 7
"""The llama's place in the cyclic play order 1 → … → 6 → L → 1."""


class Symbol(Enum):
    """The Kadabra symbol printed on a card, if any."""

    PLAIN = ""
    STAR = "*"
    DRAW = "+"


_SYMBOL_RANK = {Symbol.PLAIN: 0, Symbol.STAR: 1, Symbol.DRAW: 2}


def next_value(value: int) -> int:
    """docs/rules.md: the next value of 6 is L, of L is 1."""
    return 1 if value == LLAMA else value + 1


def value_token(value: int) -> str:
    """The token of a single value: ``"1"`` … ``"6"``, ``"L"``."""
    return "L" if value == LLAMA else str(value)


class Card:
    """One card (or dice tile) face: its values and its Kadabra symbol.

    Instances are interned: there is exactly one ``Card`` per token. They compare by
    identity only and are ordered by ``sort_key`` (:func:`sort_cards`): a ``Card`` defines
    no comparison method, since any one written in Python makes every ``==`` on a card go
    through Python (``object.__eq__`` looked up and called with a tuple of arguments), and
    the rounds scan hands with ``in``, ``index`` and ``remove`` at every turn (a miss over
    six cards cost about 10x as much; tests/game/test_cards.py holds it).
    """

    __slots__ = ("has_llama", "mask", "numbers", "sort_key", "symbol", "token", "values")

    token: str
    values: tuple[int, ...]
    symbol: Symbol
    numbers: tuple[int, ...]
    has_llama: bool
    mask: int  # bit v set for each value v (the llama's is bit LLAMA)
    sort_key: tuple[int, int, int]

    def __init__(self, token: str, values: tuple[int, ...], symbol: Symbol) -> None:
        self.token = token
        self.values = values
        self.symbol = symbol
        self.numbers = tuple(v for v in values if v != LLAMA)
        self.has_llama = LLAMA in values
        self.mask = sum(1 << v for v in values)
        self.sort_key = (values[0], len(values), _SYMBOL_RANK[symbol])

    @staticmethod
    def parse(token: str) -> Card:
        """The card for ``token``; raises ``KeyError``-free ``ValueError`` if unknown."""
        try:
            return _BY_TOKEN[token]
        except (KeyError, TypeError):
            raise ValueError(f"unknown card token {token!r}") from None

    @property
    def is_double(self) -> bool:
        return len(self.values) == 2

    def __repr__(self) -> str:
        return f"Card.parse({self.token!r})"

    def __str__(self) -> str:
        return self.token

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Card.parse, (self.token,))


def _build() -> dict[str, Card]:
    cards: dict[str, Card] = {}
    for value in range(1, LLAMA + 1):
        token = value_token(value)
        cards[token] = Card(token, (value,), Symbol.PLAIN)
    for value in range(2, 7):
        for symbol in (Symbol.STAR, Symbol.DRAW):
            token = f"{value}{symbol.value}"
            cards[token] = Card(token, (value,), symbol)
    # docs/rules.md §2: the doubles are 2/3, 2/3* and 4/5, 4/5+ (no 2/3+ or 4/5* exists).
    for low, symbol in ((2, Symbol.PLAIN), (2, Symbol.STAR), (4, Symbol.PLAIN), (4, Symbol.DRAW)):
        token = f"{low}/{low + 1}{symbol.value}"
        cards[token] = Card(token, (low, low + 1), symbol)
    return cards


_BY_TOKEN = _build()
ALL_CARDS: tuple[Card, ...] = tuple(sorted(_BY_TOKEN.values(), key=attrgetter("sort_key")))
"""Every card face any rule set may use, in hand order."""

ONE = _BY_TOKEN["1"]
LLAMA_CARD = _BY_TOKEN["L"]
PLAIN_VALUES: tuple[Card, ...] = tuple(_BY_TOKEN[value_token(v)] for v in range(1, LLAMA + 1))
"""``1`` … ``6``, ``L``: the faces of classic, tutorial and dice."""


def sort_cards(cards: list[Card] | tuple[Card, ...]) -> list[Card]:
    """docs/record.md fine point 9: by value, then plain < ``*`` < ``+``."""
    return sorted(cards, key=_sort_key)


_sort_key = attrgetter("sort_key")


def tokens(cards: list[Card] | tuple[Card, ...]) -> list[str]:
    """The sorted tokens of ``cards``."""
    return [c.token for c in sort_cards(cards)]


def hand_points(cards: list[Card] | tuple[Card, ...]) -> tuple[int, bool]:
    """docs/rules.md §1 scoring: distinct numbers once each, and whether any llama is held.

    Returns ``(number_points, has_llama)``; the llamas are worth 10 together.
    (The values held, as one bit mask: every round's end calls this for every seat.)
    """
    mask = reduce(or_, map(_mask, cards), 0)
    return _MASK_POINTS[mask], mask >= _LLAMA_BIT


_mask = attrgetter("mask")
_LLAMA_BIT = 1 << LLAMA
_MASK_POINTS = tuple(sum(v for v in range(1, LLAMA) if m >> v & 1) for m in range(_LLAMA_BIT * 2))
"""The points of each set of values held (bits 1–6; bit 7, the llama, adds none)."""
