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
    ROUND_OVER = "round_over"  # `points`: what each seat's scoring added
    GAME_OVER = "game_over"  # `cards`: unused; `points`: final scores; winners in `winners`


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
    private_to: int | None = None

    def visible_to(self, seat: int | None) -> bool:
        """Whether ``seat`` (``None``: a spectator) may see this event."""
        return self.private_to is None or self.private_to == seat


def visible_to(events: list[Event], seat: int | None) -> list[Event]:
    """The events of ``events`` that ``seat`` may see."""
    return [e for e in events if e.visible_to(seat)]
