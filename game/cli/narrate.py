"""What ``python -m game play`` prints: events, the table, round scores and why, standings.

Everything is told from seat 0's side in plain English: "You play 3", "ben plays 4".
Seats are numbered from 1 for people (the intro's "seat 1 of 3", ``@2`` in a gift),
while the engine counts from 0. Only what seat 0 may see is used: other players'
hands appear as counts, never as cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from game.actions import Action, ActionType
from game.cards import Card, hand_points, sort_cards
from game.events import Event, EventKind
from game.rules import LLAMA_POINTS
from game.views import PlayerView

ME = 0
ORDER = {
    kind: index
    for index, kind in enumerate((
        ActionType.PLAY, ActionType.TAKE, ActionType.DISCARD, ActionType.ROLL, ActionType.PASS,
        ActionType.SKIP, ActionType.DRAW, ActionType.STOP, ActionType.QUIT,
    ))
}
"""Options are listed plays first (by card), the turn-ending choices last."""


def ordered(legal: Sequence[Action]) -> list[Action]:
    """``legal`` in a stable order: the same choices get the same place every turn."""

    def key(action: Action) -> tuple[object, ...]:
        card = action.card.sort_key if action.card is not None else (0, 0, 0)
        tiles = tuple(t.sort_key for t in action.tiles)
        gift = -1 if action.give_to is None else action.give_to
        return (ORDER[action.type], card, gift, len(tiles), tiles)

    return sorted(legal, key=key)


def ordinal(n: int) -> str:
    """``1`` -> ``1st``, ``2`` -> ``2nd``, ``11`` -> ``11th``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def chip(colour: str | None) -> str:
    return {"white": "a white chip", "black": "a black chip", "token": "the magic token"}.get(
        colour or "", "nothing"
    )


@dataclass(frozen=True)
class Narrator:
    """Names the seats from seat 0's side: ``You`` / ``you`` for seat 0."""

    names: tuple[str, ...]

    def who(self, seat: int) -> str:
        return "You" if seat == ME else self.names[seat]

    def whom(self, seat: int | None) -> str:
        if seat is None:
            return "the supply"
        return "you" if seat == ME else self.names[seat]

    def does(self, seat: int, third: str, second: str) -> str:
        """``ben plays`` / ``You play``: the verb agrees with the subject."""
        return f"{self.who(seat)} {second if seat == ME else third}"

    def their(self, seat: int) -> str:
        return "your" if seat == ME else "their"

    def label(self, action: Action) -> str:
        """An option as typed, seats from 1: ``play 1 @2 (gives to ben)``."""
        if action.give_to is None or action.card is None:
            return str(action)
        return f"play {action.card} @{action.give_to + 1} (gives to {self.whom(action.give_to)})"

    def event(self, event: Event) -> str | None:
        """One line of table log, or ``None`` for events told elsewhere."""
        s = event.seat if event.seat is not None else ME
        kind = event.kind
        card = event.card
        cards = " ".join(event.cards)
        if kind is EventKind.ROUND_STARTED:
            return self.does(s, "starts", "start") + (f"; the pile shows {card}" if card else "")
        if kind is EventKind.PLAYED:
            return self.does(s, "plays", "play") + f" {card}"
        simple = {
            EventKind.DREW: ("draws a card", "draw a card"),
            EventKind.FORCED_DRAW: ("must draw a card", "must draw a card"),
            EventKind.QUIT: ("quits the round", "quit the round"),
            EventKind.SKIPPED: ("gives back the magic token and skips",
                                "give back the magic token and skip"),
            EventKind.PASSED: ("keeps the drawn card", "keep the drawn card"),
            EventKind.STOPPED: (f"stops the round (top card {card})",
                                f"stop the round (top card {card})"),
            EventKind.ROLLED: (f"rolls {cards}", f"roll {cards}"),
            EventKind.DISCARDED: (f"discards {cards}", f"discard {cards}"),
            EventKind.TOOK_TILE: (f"takes {card} from the llama row",
                                  f"take {card} from the llama row"),
            EventKind.BUSTED: (f"busts and takes {cards}", f"bust and take {cards}"),
            EventKind.GAVE: (f"gives {chip(card)} to {self.whom(event.other)}",
                             f"give {chip(card)} to {self.whom(event.other)}"),
            EventKind.TOOK_TOKEN: (f"takes the magic token from {self.whom(event.other)}",
                                   f"take the magic token from {self.whom(event.other)}"),
            EventKind.STAGED: (f"puts {chip(card)} on the magic stage",
                               f"put {chip(card)} on the magic stage"),
            EventKind.THREE_LLAMAS: (f"rolled three llamas and gives back {chip(card)}",
                                     f"rolled three llamas and give back {chip(card)}"),
            EventKind.RETURNED_CHIP: (f"emptied their hand and gives back {chip(card)}",
                                      f"emptied your hand and give back {chip(card)}"),
        }
        if kind in simple:
            third, second = simple[kind]
            return self.does(s, third, second)
        if kind is EventKind.DREW_CARD:  # private: only ever shown to its drawer
            return f"{self.who(s)} got {card}"
        if kind is EventKind.TOOK_STAGE:
            white, black = (*event.points, 0, 0)[:2]
            stage = f" the magic stage ({white} white, {black} black)"
            return self.does(s, "takes", "take") + stage
        return None


@dataclass
class RoundEnd:
    """The table as the round's last action left it, from seat 1's view.

    ``hands`` holds the cards seat 1 may know: its own, and everyone's tiles in a game
    whose tiles lie face up; ``None`` for a hidden hand (only its size is known).
    """

    hands: list[list[Card] | None]
    sizes: list[int]
    holder: int | None
    returned: dict[int, str | None] = field(default_factory=dict)
    stopped_on_llama: int | None = None


def round_end(before: PlayerView, events: Sequence[Event]) -> RoundEnd:
    """Follow the visible events of the round's last action from the view before it."""
    hands: list[list[Card] | None] = [
        list(before.hand) if s.seat == ME else None if s.tiles is None else list(s.tiles)
        for s in before.seats
    ]
    end = RoundEnd(hands, [s.hand_size for s in before.seats], before.token_holder)
    for e in events:
        s = e.seat
        if e.kind is EventKind.ROUND_OVER:
            break
        if s is None:
            continue
        hand = end.hands[s]
        gone: tuple[str, ...] = ()
        came: tuple[str, ...] = ()
        if e.kind is EventKind.PLAYED and e.card is not None:
            gone = (e.card,)
        elif e.kind is EventKind.DISCARDED:
            gone = e.cards
        elif e.kind is EventKind.BUSTED:
            came = e.cards
        elif e.kind in (EventKind.TOOK_TILE, EventKind.DREW_CARD) and e.card is not None:
            came = (e.card,)
        elif e.kind in (EventKind.DREW, EventKind.FORCED_DRAW):
            end.sizes[s] += 1  # the card itself comes in a DREW_CARD only its drawer sees
        end.sizes[s] += len(came) * (e.kind is not EventKind.DREW_CARD) - len(gone)
        if hand is not None:
            hand.extend(Card.parse(t) for t in came)
            for token in gone:
                hand.remove(Card.parse(token))
        if e.kind is EventKind.GAVE and e.card == "token":
            end.holder = e.other
        elif e.kind is EventKind.TOOK_TOKEN:
            end.holder = s
        elif e.kind is EventKind.SKIPPED:
            end.holder = None
        elif e.kind is EventKind.RETURNED_CHIP:
            end.returned[s] = e.card
        elif e.kind is EventKind.STOPPED and e.card == "L":
            end.stopped_on_llama = s
    return end


def reason(n: Narrator, seat: int, end: RoundEnd, view: PlayerView) -> str:
    """Why ``seat`` scored what it did this round, in a few words."""
    if seat in end.returned:
        colour = end.returned[seat]
        return f"emptied {n.their(seat)} hand, " + (
            f"so {chip(colour)} goes back" if colour else "with no chip to give back")
    if end.stopped_on_llama == seat:
        return "stopped the round on a llama"
    piece = "tile" if view.row is not None else "card"
    hand = end.hands[seat]
    if hand:
        left = " ".join(c.token for c in sort_cards(hand))
        if view.uses_chips:
            _, llama = hand_points(hand)
            distinct = sorted({v for c in hand for v in c.numbers})
            repeated = len(distinct) < sum(len(c.numbers) for c in hand)
            once = " (each number once)" if repeated else ""
            parts = ["+".join(str(v) for v in distinct) + once] if distinct else []
            parts += [f"{LLAMA_POINTS} for the llamas"] if llama else []
            why = f"left {left}: " + " and ".join(parts)
        else:
            why = f"minus {n.their(seat)} {piece}s left: {left}"
    else:
        size = end.sizes[seat]
        count = f"{size} {piece}{'s' if size != 1 else ''}"
        why = ("minus " if not view.uses_chips and size else "") + (
            f"{count} left in {n.their(seat)} hand" if size else f"no {piece}s left")
    if view.uses_magic and end.holder == seat:
        why += ", and a black chip for holding the magic token"
    return why


def round_over(
    n: Narrator, before: PlayerView, events: Sequence[Event], after: PlayerView
) -> list[str]:
    """The end of a round: each seat's points, why, and their total."""
    over = next(e for e in events if e.kind is EventKind.ROUND_OVER)
    end = round_end(before, events)
    lines = [f"Round {before.round_no} over:"]
    for seat, points in enumerate(over.points):
        why = reason(n, seat, end, before)
        total = after.seats[seat].score
        lines.append(f"  {n.who(seat)}: {points:+d} ({why}); total {total}")
    return lines


def places(scores: Sequence[int], winners: Sequence[int]) -> list[int]:
    """Each seat's place, 1 best; equal scores share a place (1, 2, 2, 4).

    Whether fewer or more points is better is read from the winners, so no rule set
    is named here.
    """
    if not winners:
        return [1] * len(scores)
    best = scores[winners[0]]
    sign = 1 if all(s >= best for s in scores) else -1
    return [1 + sum(1 for o in scores if sign * o < sign * s) for s in scores]


def standings(n: Narrator, final: PlayerView) -> list[str]:
    """Final scores ranked, then where you placed and who won."""
    scores = [s.score for s in final.seats]
    place = places(scores, final.winners)
    order = sorted(range(len(scores)), key=lambda s: (place[s], s))
    lines = ["Game over. Final standings:"]
    for seat in order:
        points = f"{scores[seat]} point{'s' if abs(scores[seat]) != 1 else ''}"
        lines.append(f"  {place[seat]}. {n.who(seat)}: {points}")
    tied = [n.names[s] for s in order if s != ME and place[s] == place[ME]]
    with_ = f", tied with {', '.join(tied)}" if tied else ""
    if place[ME] == 1:
        lines.append(f"You won{with_}!")
    else:
        lines.append(f"You placed {ordinal(place[ME])}{with_}.")
    lines.append("Winners: " + ", ".join(n.whom(s) for s in final.winners))
    return lines
