"""What happened, for the table log, and who may see it.

Every change the engine makes returns a list of :class:`Event`. An event that
reveals a hidden card (the card a player drew) has ``private_to`` set to the
one seat allowed to see it; :func:`visible_to` filters a list for a viewer.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class EventKind(Enum):
    """Everything the engine reports."""

    ROUND_STARTED = "round_started"  # seat: first player; card: the turned-up card
    PLAYED = "played"  # seat played card (other: gift recipient, if any)
    DREW = "drew"  # seat drew a card (public: no card)
    DREW_CARD = "drew_card"  # private to seat: which card
    FORCED_DRAW = "forced_draw"  # kadabra +: seat had to draw (public: no card)
    QUIT = "quit"
    SKIPPED = "skipped"  # kadabra: returned the token to skip
    PASSED = "passed"  # tutorial: kept the drawn card
    STOPPED = "stopped"  # tutorial: ended the round
    GAVE = "gave"  # kadabra 1: seat gave `card` ("white", "black", "token") to other
    TOOK_TOKEN = "took_token"  # kadabra *: seat took the token (other: from whom, None: supply)
    STAGED = "staged"  # kadabra L: seat put a chip (`card`: "white"/"black") on the stage
    TOOK_STAGE = "took_stage"  # kadabra: seat took the stage (`points`: white, black)
    ROLLED = "rolled"  # dice: `cards` are the faces of dice A, B, C
    THREE_LLAMAS = "three_llamas"  # dice: seat returned a chip (`card`: colour or None)
    DISCARDED = "discarded"  # dice: `cards`
    TOOK_TILE = "took_tile"  # dice: `card` from the llama row
    BUSTED = "busted"  # dice: seat took all remaining row tiles (`cards`)
    RETURNED_CHIP = "returned_chip"  # emptied hand: `card` colour returned, or None
    ROUND_OVER = "round_over"  # `points`: what each seat's scoring added; `scores`: why
    GAME_OVER = "game_over"  # `cards`: unused; `points`: final scores; winners in `winners`


class ScoreKind(Enum):
    """One reason a round's scoring changed a seat's score (docs/rules.md scoring)."""

    VALUE = "value"  # a number left in hand, counted once (`value`; `cards`: those showing it)
    LLAMAS = "llamas"  # the llamas left in hand: 10 together (`cards`: the llamas)
    CARD = "card"  # tutorial: one card left in hand, minus its face value (L: 10)
    RETURNED = "returned"  # emptied hand: returned a chip (`chip`: colour; None: had none)
    TOKEN = "token"  # kadabra: held the magic token at the round's end (one black chip)
    STOPPED = "stopped"  # tutorial: stopped the round on a llama (+1 instead of the hand)
    BUSTED = "busted"  # dice: took the rest of the row (`cards`); 0: they count as VALUE/LLAMAS


@dataclass(frozen=True, slots=True)
class ScoreItem:
    """One line of a seat's round scoring; ``points`` is its signed share of the change."""

    kind: ScoreKind
    points: int
    value: str | None = None  # VALUE/CARD: the value token counted ("3", "L")
    chip: str | None = None  # RETURNED: "white", "black", or None (nothing to return)
    cards: tuple[str, ...] = ()  # the cards (or tiles) this item is about, sorted


@dataclass(frozen=True, slots=True)
class SeatScore:
    """Why one seat's score changed at a round's end: its items add up to the change."""

    seat: int
    items: tuple[ScoreItem, ...]
    tiles: bool = False  # what the seat held are dice tiles, not cards

    @property
    def points(self) -> int:
        return sum(item.points for item in self.items)

    def of(self, kind: ScoreKind) -> tuple[ScoreItem, ...]:
        """The items of one kind, in order."""
        return tuple(item for item in self.items if item.kind is kind)


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened. ``private_to`` is ``None`` for public events."""

    kind: EventKind
    seat: int | None = None
    card: str | None = None
    other: int | None = None
    cards: tuple[str, ...] = ()
    points: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    scores: tuple[SeatScore, ...] = ()  # ROUND_OVER: each seat's breakdown, by seat
    private_to: int | None = None

    def visible_to(self, seat: int | None) -> bool:
        """Whether ``seat`` (``None``: a spectator) may see this event."""
        return self.private_to is None or self.private_to == seat


_SHARED: dict[tuple[int, int | None, str | None, int | None, int | None], Event] = {}
"""Events are immutable values: the common ones are made once each and shared (building a
frozen dataclass of ten fields cost more than the action it reports). Keys are a kind (by
identity: members live as long as the process), a seat, a card token or chip colour,
another seat and a viewer: a few thousand at most (emptied past :data:`SHARED_KEPT`)."""
SHARED_KEPT = 8192


def shared(
    kind: EventKind,
    seat: int | None = None,
    card: str | None = None,
    other: int | None = None,
    private_to: int | None = None,
) -> Event:
    """``Event(kind, seat=seat, card=card, other=other, private_to=private_to)``, made once."""
    key = (id(kind), seat, card, other, private_to)  # (an Enum's hash is Python code)
    event = _SHARED.get(key)
    if event is None:
        if len(_SHARED) >= SHARED_KEPT:
            _SHARED.clear()
        event = _SHARED[key] = Event(kind, seat=seat, card=card, other=other, private_to=private_to)
    return event


def visible_to(events: list[Event], seat: int | None) -> list[Event]:
    """The events of ``events`` that ``seat`` may see."""
    return [e for e in events if e.visible_to(seat)]
