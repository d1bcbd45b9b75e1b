"""Cards, tiles, chips and events as people read them (value, colour emoji, 🦙, ⭐/➕)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from bot.words.i18n import N_, Translator
from game import Card, Event, EventKind

VALUE_EMOJI = {1: "🔴", 2: "🟠", 3: "🟡", 4: "🟢", 5: "🔵", 6: "🟣"}
SYMBOL_EMOJI = {"*": "⭐", "+": "➕"}
LLAMA = "🦙"
WHITE = "⚪"
BLACK = "⚫"
TOKEN = "🎩"


FACES: dict[str, str] = {}
"""Card token → ``<:lama_3:id>``, the application's own emoji of that face, once known
(cogs.card_emojis fills it at start-up); empty: the emoji text below."""


def card_text(card: Card) -> str:
    """The card's face emoji where the bot has one, else :func:`plain_text`."""
    return FACES.get(card.token) or plain_text(card)


@lru_cache(maxsize=256)  # (a few dozen faces: written once, not at every draw)
def plain_text(card: Card) -> str:
    """``3`` → ``🟡3``, ``L`` → ``🦙``, ``2/3*`` → ``🟠2/3⭐`` (also where custom emoji do not
    render: button labels, select options)."""
    if not card.numbers:
        return LLAMA
    plain = card.token.rstrip("*+")
    return f"{VALUE_EMOJI[card.numbers[0]]}{plain}{SYMBOL_EMOJI.get(card.symbol.value, '')}"


def token_text(token: str) -> str:
    return card_text(Card.parse(token))


def cards_text(cards: Sequence[Card]) -> str:
    return " ".join(card_text(c) for c in cards) if cards else "—"


def chips_text(white: int, black: int) -> str:
    """Laid out here, translated where shown: as a placeholder value or through ``figures``."""
    return f"{WHITE}{white} {BLACK}{black}"


# What a chip event moved ("white", "black", "token" or None for nothing), each as a whole
# sentence: "gave nothing" needs a negated verb in French, Spanish and Persian, so the
# thing moved is never a fragment put into a sentence.
GAVE = {
    "white": N_("{name} gave a white chip to {other}."),
    "black": N_("{name} gave a black chip to {other}."),
    "token": N_("{name} gave the magic token to {other}."),
    None: N_("{name} had nothing to give to {other}."),
}
STAGED = {
    "white": N_("{name} put a white chip on the magic stage."),
    "black": N_("{name} put a black chip on the magic stage."),
    "token": N_("{name} put the magic token on the magic stage."),
    None: N_("{name} had no chip to put on the magic stage."),
}
THREE_LLAMAS = {
    "white": N_("Three llamas! {name} returned a white chip."),
    "black": N_("Three llamas! {name} returned a black chip."),
    "token": N_("Three llamas! {name} returned the magic token."),
    None: N_("Three llamas! {name} had no chip to return."),
}
RETURNED = {
    "white": N_("{name} emptied their hand and returned a white chip."),
    "black": N_("{name} emptied their hand and returned a black chip."),
    "token": N_("{name} emptied their hand and returned the magic token."),
    None: N_("{name} emptied their hand but had no chip to return."),
}


def by_chip(sentences: dict[str | None, str], chip: str | None) -> str:
    """The sentence of ``sentences`` for the chip ``chip`` (anything unknown: nothing)."""
    return sentences.get(chip, sentences[None])


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
        return tr(by_chip(GAVE, card), name=who, other=other)
    if kind is EventKind.TOOK_TOKEN:
        return tr("{name} took the magic token.", name=who)
    if kind is EventKind.STAGED:
        return tr(by_chip(STAGED, card), name=who)
    if kind is EventKind.TOOK_STAGE:
        return tr("{name} took the magic stage.", name=who)
    if kind is EventKind.ROLLED:
        dice = " ".join(token_text(t) for t in event.cards)
        return tr("{name} rolled {dice}.", name=who, dice=dice)
    if kind is EventKind.THREE_LLAMAS:
        return tr(by_chip(THREE_LLAMAS, card), name=who)
    if kind is EventKind.DISCARDED:
        return tr("{name} discarded {tiles}.", name=who,
                  tiles=" ".join(token_text(t) for t in event.cards))
    if kind is EventKind.TOOK_TILE and card is not None:
        return tr("{name} took {tile} from the llama row.", name=who, tile=token_text(card))
    if kind is EventKind.BUSTED:
        return tr("{name} busted and took the rest of the llama row.", name=who)
    if kind is EventKind.RETURNED_CHIP:
        return tr(by_chip(RETURNED, card), name=who)
    return None
