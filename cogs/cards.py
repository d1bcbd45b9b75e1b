"""Cards, tiles, chips and events as people read them (value, colour emoji, 🦙, ⭐/➕)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.i18n import Translator
from game import Card, Event, EventKind

VALUE_EMOJI = {1: "🔴", 2: "🟠", 3: "🟡", 4: "🟢", 5: "🔵", 6: "🟣"}
SYMBOL_EMOJI = {"*": "⭐", "+": "➕"}
LLAMA = "🦙"
WHITE = "⚪"
BLACK = "⚫"
TOKEN = "🎩"


def card_text(card: Card) -> str:
    """``3`` → ``🟡3``, ``L`` → ``🦙``, ``2/3*`` → ``🟠2/3⭐``."""
    if not card.numbers:
        return LLAMA
    plain = card.token.rstrip("*+")
    return f"{VALUE_EMOJI[card.numbers[0]]}{plain}{SYMBOL_EMOJI.get(card.symbol.value, '')}"


def token_text(token: str) -> str:
    return card_text(Card.parse(token))


def cards_text(cards: Sequence[Card]) -> str:
    return " ".join(card_text(c) for c in cards) if cards else "—"


def chips_text(white: int, black: int) -> str:
    return f"{WHITE}{white} {BLACK}{black}"


def colour_text(tr: Translator, colour: str | None) -> str:
    return {
        "white": tr("a white chip"),
        "black": tr("a black chip"),
        "token": tr("the magic token"),
    }.get(colour or "", tr("nothing"))


def event_text(tr: Translator, event: Event, names: Sequence[str]) -> str | None:
    """One line for the table's log, or ``None`` for events not worth a line.

    Always shown where Discord renders markdown: the names are escaped here."""
    who = tr.name(names[event.seat]) if event.seat is not None else "?"
    other = tr.name(names[event.other]) if event.other is not None else None
    kind = event.kind
    card = event.card
    if kind is EventKind.ROUND_STARTED:
        return tr("Round started; {name} plays first.", name=who)
    if kind is EventKind.PLAYED and card is not None:
        return tr("{name} played {card}.", name=who, card=token_text(card))
    if kind is EventKind.DREW:
        return tr("{name} drew a card.", name=who)
    if kind is EventKind.DREW_CARD and card is not None:
        return tr("You drew {card}.", card=token_text(card))
    if kind is EventKind.FORCED_DRAW:
        return tr("{name} had to draw a card.", name=who)
    if kind is EventKind.QUIT:
        return tr("{name} quit the round.", name=who)
    if kind is EventKind.SKIPPED:
        return tr("{name} gave back the magic token to skip.", name=who)
    if kind is EventKind.PASSED:
        return tr("{name} kept the drawn card.", name=who)
    if kind is EventKind.STOPPED:
        return tr("{name} stopped the round.", name=who)
    if kind is EventKind.GAVE:
        return tr("{name} gave {what} to {other}.", name=who, what=colour_text(tr, card),
                  other=other)
    if kind is EventKind.TOOK_TOKEN:
        return tr("{name} took the magic token.", name=who)
    if kind is EventKind.STAGED:
        return tr("{name} put {what} on the magic stage.", name=who, what=colour_text(tr, card))
    if kind is EventKind.TOOK_STAGE:
        return tr("{name} took the magic stage.", name=who)
    if kind is EventKind.ROLLED:
        dice = " ".join(token_text(t) for t in event.cards)
        return tr("{name} rolled {dice}.", name=who, dice=dice)
    if kind is EventKind.THREE_LLAMAS:
        return tr("Three llamas! {name} returned {what}.", name=who, what=colour_text(tr, card))
    if kind is EventKind.DISCARDED:
        return tr("{name} discarded {tiles}.", name=who,
                  tiles=" ".join(token_text(t) for t in event.cards))
    if kind is EventKind.TOOK_TILE and card is not None:
        return tr("{name} took {tile} from the llama row.", name=who, tile=token_text(card))
    if kind is EventKind.BUSTED:
        return tr("{name} busted and took the rest of the llama row.", name=who)
    if kind is EventKind.RETURNED_CHIP:
        return tr("{name} emptied their hand and returned {what}.", name=who,
                  what=colour_text(tr, card))
    return None
