"""Actions: small frozen values with a text form that round-trips.

``Action.parse(str(action)) == action`` for every action. Actions say nothing
about who acts; :meth:`game.Game.apply` takes the seat separately, as a
record's ``player`` field does. A Kadabra gift names its recipient by seat.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from game.cards import Card, sort_cards
from game.errors import MalformedRecord


class ActionType(Enum):
    """The action types of docs/record.md."""

    PLAY = "play"
    DRAW = "draw"
    QUIT = "quit"
    SKIP = "skip"
    PASS = "pass"
    STOP = "stop"
    ROLL = "roll"
    DISCARD = "discard"
    TAKE = "take"


@dataclass(frozen=True, slots=True)
class Action:
    """One action. Only the fields its ``type`` uses are set.

    - ``card``: the card played (``play``) or the row tile taken (``take``);
    - ``give_to``: the seat receiving a Kadabra ``1``'s gift;
    - ``tiles``: the tiles discarded (``discard``), sorted.
    """

    type: ActionType
    card: Card | None = None
    give_to: int | None = None
    tiles: tuple[Card, ...] = ()

    def __str__(self) -> str:
        card = self.card.token if self.card is not None else "?"
        if self.type is ActionType.PLAY:
            text = f"play {card}"
            return text if self.give_to is None else f"{text} @{self.give_to}"
        if self.type is ActionType.TAKE:
            return f"take {card}"
        if self.type is ActionType.DISCARD:
            return "discard " + " ".join(t.token for t in self.tiles)
        return self.type.value

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"

    @staticmethod
    def parse(text: str) -> Action:
        """Inverse of ``str``: ``"play 1 @2"``, ``"discard 3 3 L"``, ``"draw"``…"""
        words = text.split()
        if not words:
            raise MalformedRecord("empty action text")
        try:
            kind = ActionType(words[0])
        except ValueError:
            raise MalformedRecord(f"unknown action {words[0]!r} in {text!r}") from None
        rest = words[1:]
        try:
            if kind is ActionType.PLAY:
                if len(rest) == 1:
                    return play(Card.parse(rest[0]))
                if len(rest) == 2 and rest[1].startswith("@") and rest[1][1:].isdigit():
                    return play(Card.parse(rest[0]), int(rest[1][1:]))
            elif kind is ActionType.TAKE:
                if len(rest) == 1:
                    return take(Card.parse(rest[0]))
            elif kind is ActionType.DISCARD:
                if rest:
                    return discard([Card.parse(t) for t in rest])
            elif not rest:
                return SIMPLE[kind]
        except ValueError as exc:
            raise MalformedRecord(f"{exc} in action {text!r}") from None
        raise MalformedRecord(f"cannot read action {text!r}")


def describe(action: Action, players: tuple[str, ...] | list[str]) -> str:
    """The text form with the gift's recipient named, for messages to people."""
    if action.give_to is not None and 0 <= action.give_to < len(players):
        return f"play {action.card} to {players[action.give_to]}"
    return str(action)


def play(card: Card, give_to: int | None = None) -> Action:
    """Play ``card``; ``give_to`` is the Kadabra ``1`` recipient's seat."""
    return Action(ActionType.PLAY, card=card, give_to=give_to)


def take(tile: Card) -> Action:
    """Dice: take ``tile`` from the llama row."""
    return Action(ActionType.TAKE, card=tile)


def discard(tiles: list[Card] | tuple[Card, ...]) -> Action:
    """Dice: discard ``tiles`` (a multiset; order does not matter)."""
    return Action(ActionType.DISCARD, tiles=tuple(sort_cards(tiles)))


def tile_counts(action: Action) -> Counter[Card]:
    """The discarded tiles as a multiset."""
    return Counter(action.tiles)


DRAW = Action(ActionType.DRAW)
QUIT = Action(ActionType.QUIT)
SKIP = Action(ActionType.SKIP)
PASS = Action(ActionType.PASS)
STOP = Action(ActionType.STOP)
ROLL = Action(ActionType.ROLL)
SIMPLE = {a.type: a for a in (DRAW, QUIT, SKIP, PASS, STOP, ROLL)}


def uniform_pick(legal: Sequence[Action], draw: float) -> Action:
    """Each of ``legal`` with equal chance, by ``draw`` in [0, 1): ``legal[int(draw * n)]``
    (the ``random`` AI's choice; ``RuleSet.play_round_uniformly`` makes it inline)."""
    return legal[int(draw * len(legal))]
