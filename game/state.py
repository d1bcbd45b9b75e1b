"""The full state of a game: one mutable value behind :class:`game.Game`.

Only the rule sets (``game/rules/``) change it, and only after checking the
action is legal. Nothing outside ``game/`` should read it: use
:func:`game.views.player_view` (one seat's view) or the referee summary.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from game.cards import Card


class Phase(Enum):
    """What the game waits for (docs/record.md ``phase``)."""

    PLAY = "play"  # an ordinary action from the player to act
    DRAWN = "drawn"  # tutorial: play the drawn card or pass
    RESOLVE = "resolve"  # dice: discard or take after a roll
    DEAL = "deal"  # a new round needs its chance outcome (a deck)
    FINISHED = "finished"


class ResolveMode(Enum):
    """Dice: what a roll obliges the player to do."""

    DISCARD = "discard"
    TAKE = "take"


@dataclass(slots=True)
class RoundChance:
    """The chance outcomes of one round: its shuffled deck (top first) and rolls."""

    deck: tuple[Card, ...]
    rolls: list[tuple[Card, Card, Card]] = field(default_factory=list)


@dataclass(slots=True)
class State:
    """Everything about a game at one moment. Seats are 0-based indices."""

    players: int
    round_no: int = 1
    phase: Phase = Phase.DEAL
    to_act: int | None = None
    hands: list[list[Card]] = field(default_factory=list)
    quit: list[bool] = field(default_factory=list)
    white: list[int] = field(default_factory=list)
    black: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)  # tutorial running totals
    round_points: list[list[int]] = field(default_factory=list)
    draw_pile: list[Card] = field(default_factory=list)  # the top of the pile is the END
    top: Card | None = None
    stage_white: int = 0
    stage_black: int = 0
    token: int | None = None  # kadabra magic token holder; None: the supply
    row: list[Card] | None = None  # dice llama row
    pending_roll: tuple[Card, Card, Card] | None = None
    resolve_mode: ResolveMode | None = None
    pending_drawn: Card | None = None  # tutorial
    pile_emptied: bool = False  # tutorial: the pile ran out during this turn
    stopper: int | None = None  # tutorial: who called stop, this round
    stop_on_llama: bool = False
    rolls_used: int = 0  # dice: rolls consumed this round
    busted: tuple[Card, ...] = ()  # dice: the row tiles this round's ender took on a bust
    round_over: bool = False
    ender: int | None = None  # who ended the round (starts the next one)
    emptied: bool = False  # the ender emptied their hand
    winners: tuple[int, ...] = ()

    @classmethod
    def new(cls, players: int) -> State:
        """A game before its first deal."""
        return cls(
            players=players,
            hands=[[] for _ in range(players)],
            quit=[False] * players,
            white=[0] * players,
            black=[0] * players,
            totals=[0] * players,
            round_points=[[] for _ in range(players)],
        )

    def score(self, seat: int) -> int:
        """docs/rules.md: white + 10 × black (tutorial: the running total)."""
        return self.white[seat] + 10 * self.black[seat] + self.totals[seat]

    def clone(self) -> State:
        """An independent copy (for AI search); cards are shared immutable values."""
        return State(
            players=self.players,
            round_no=self.round_no,
            phase=self.phase,
            to_act=self.to_act,
            hands=[list(h) for h in self.hands],
            quit=list(self.quit),
            white=list(self.white),
            black=list(self.black),
            totals=list(self.totals),
            round_points=[list(p) for p in self.round_points],
            draw_pile=list(self.draw_pile),
            top=self.top,
            stage_white=self.stage_white,
            stage_black=self.stage_black,
            token=self.token,
            row=None if self.row is None else list(self.row),
            pending_roll=self.pending_roll,
            resolve_mode=self.resolve_mode,
            pending_drawn=self.pending_drawn,
            pile_emptied=self.pile_emptied,
            stopper=self.stopper,
            stop_on_llama=self.stop_on_llama,
            rolls_used=self.rolls_used,
            busted=self.busted,
            round_over=self.round_over,
            ender=self.ender,
            emptied=self.emptied,
            winners=self.winners,
        )
