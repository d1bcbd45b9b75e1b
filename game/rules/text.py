"""The short rules of every rule set: one source for ``/lama rules`` and ``python -m game play``.

The paragraphs are English templates with ``{placeholders}``; every number (deck, hand
size, target, dice faces, Kadabra counts, points) is read from the rule sets at display
time, so changing, say, the Kadabra deck split changes the rules text too and no
translation states a number by hand. The bot translates the templates (they are
gettext msgids, marked with :func:`N_` for ``python -m bot.catalog``) and draws cards
with emoji; the terminal game prints them as they are, with card tokens.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Protocol

from game.cards import PLAIN_VALUES, Card, sort_cards
from game.rules import dice as dice_rules
from game.rules import kadabra as kadabra_rules
from game.rules import tutorial as tutorial_rules
from game.rules.base import HAND_SIZE
from game.rules.items import BLACK_POINTS, LLAMA_POINTS, WHITE_POINTS
from game.rules.registry import find

FULL_RULES = "docs/rules.md"
"""Where the project keeps the complete rules, with the choices the published rules leave."""


def N_(message: str) -> str:
    """Mark ``message`` as a msgid for the bot's catalogs; it is translated where shown."""
    return message


class Say(Protocol):
    """Fills a template (the bot's translator also translates it first)."""

    def __call__(self, message: str, /, **facts: object) -> str: ...


def fill(message: str, /, **facts: object) -> str:
    """The untranslated :class:`Say`: English, placeholders filled."""
    return message.format(**facts)


def token(card: Card) -> str:
    """A card as its token (``3``, ``L``, ``2/3*``): the plain-text drawing."""
    return card.token


CLASSIC = (
    N_("{cards} cards: {deck}. Everyone is dealt {hand} cards; the next card, turned face up, "
       "starts the discard pile."),
    N_("On your turn, play a card of the same value as the top card or the next one ({order}), "
       "draw a card, or quit the round. You cannot draw from an empty pile, nor when everyone "
       "else has quit."),
    N_("The round ends as soon as someone plays their last card or everyone has quit. Cards "
       "left in hand score each distinct number once, at face value; any llamas together score "
       "{llama}. You take your points as chips: ⚪ white = {white}, ⚫ black = {black}."),
    N_("Emptying your hand returns one of your chips (a black one if you have one). The game "
       "ends when someone has {target} points or more; the fewest points wins."),
)
KADABRA = (
    N_("{classic} with magic. {cards} cards: {deck}. Everyone starts the game with {white} "
       "white chips."),
    N_("Double cards count as both their numbers: they go wherever either number could, and "
       "left in hand they score both."),
    N_("A 1 makes you give a chip to a player still in the round: a white one, else the magic "
       "token, else a black one. A ➕ card makes the next player draw a card. A ⭐ card brings "
       "you the magic token 🎩."),
    N_("Each 🦙 you play puts one of your lowest chips on the magic stage. From {show} chips "
       "on, the magic show is on: play a 🦙, skip with the token, or take every chip on the "
       "stage and then play as usual."),
    N_("Instead of playing, the token's holder may give it back to skip their turn. Whoever "
       "holds it when the round ends scores {token} more points."),
)
DICE = (
    N_("{cards} tiles: the llama row ({row}), laid out anew every round, and {deck_size} player "
       "tiles: {deck}. Everyone gets {hand} tiles, face up."),
    N_("On your turn, roll the {dice} dice or quit. The dice: {faces}."),
    N_("If all {dice} dice show 🦙, give back a chip. Otherwise, if dice match your tiles, "
       "discard one tile per matching die. Otherwise take one matching tile from the llama row; "
       "if nothing matches, take the whole row and the round ends."),
    N_("Scoring as in {classic}: distinct numbers once, llamas together {llama}; emptying your "
       "tiles returns a chip. The game ends at {target} points; the fewest points wins."),
)
TUTORIAL = (
    N_("House rules from a Persian tutorial, without chips. {cards} cards: {deck}. Everyone is "
       "dealt {hand} cards."),
    N_("Play a card at least as high as the top card (🦙 counts {llama_value}: it goes on "
       "anything, and only a 🦙 goes on a 🦙), draw a card, or stop the round. A card you draw "
       "and can play may be played at once, or kept (Pass)."),
    N_("The round ends when someone stops it, plays their last card, or at the end of the turn "
       "that empties the draw pile. Everyone scores minus the cards in their hand (🦙 = "
       "{penalty}); stopping on a 🦙 scores +{bonus} instead."),
    N_("After {rounds} rounds, the highest total wins."),
)
MORE = N_("The full rules, with every choice the published rules leave open: `{path}` in the "
          "lama project.")


class Drawing:
    """How cards look in the text: one card, a row of them, a deck's make-up."""

    def __init__(self, card: Callable[[Card], str]) -> None:
        self.card = card

    def cards(self, cards: Iterable[Card]) -> str:
        return " ".join(self.card(c) for c in cards) or "—"

    def composition(self, cards: Iterable[Card]) -> str:
        """``1 ×8 · 2 ×8 · … · L ×8``: each card of a deck and how many there are."""
        counts = Counter(cards)
        return " · ".join(f"{self.card(c)} ×{counts[c]}" for c in sort_cards(list(counts)))


def _classic(say: Say, draw: Drawing) -> list[str]:
    rules = find("classic")
    deck = rules.deck()
    order = " → ".join(draw.card(c) for c in (*PLAIN_VALUES, PLAIN_VALUES[0]))
    facts = {"cards": len(deck), "deck": draw.composition(deck), "hand": HAND_SIZE,
             "order": order, "llama": LLAMA_POINTS, "white": WHITE_POINTS,
             "black": BLACK_POINTS, "target": rules.option_defaults["target"]}
    return [say(p, **facts) for p in CLASSIC]


def _kadabra(say: Say, draw: Drawing) -> list[str]:
    deck = find("kadabra").deck()
    facts = {"classic": say(find("classic").title), "cards": len(deck),
             "deck": draw.composition(deck), "white": kadabra_rules.STARTING_WHITE,
             "show": kadabra_rules.SHOW_THRESHOLD, "token": kadabra_rules.TOKEN_POINTS}
    return [say(p, **facts) for p in KADABRA]


def _dice(say: Say, draw: Drawing) -> list[str]:
    rules = find("dice")
    deck = rules.deck()
    row = list(PLAIN_VALUES)  # the llama row: one tile of each value (game/rules/dice.py)
    faces = " · ".join(draw.cards(die) for die in dice_rules.DICE)
    facts = {"cards": len(deck) + len(row), "row": draw.cards(row), "deck_size": len(deck),
             "deck": draw.composition(deck), "hand": HAND_SIZE, "dice": len(dice_rules.DICE),
             "faces": faces, "classic": say(find("classic").title), "llama": LLAMA_POINTS,
             "target": rules.option_defaults["target"]}
    return [say(p, **facts) for p in DICE]


def _tutorial(say: Say, draw: Drawing) -> list[str]:
    rules = find("tutorial")
    deck = rules.deck()
    facts = {"cards": len(deck), "deck": draw.composition(deck), "hand": HAND_SIZE,
             "llama_value": tutorial_rules.LLAMA_PLAY_VALUE,
             "penalty": tutorial_rules.LLAMA_PENALTY, "bonus": tutorial_rules.STOP_BONUS,
             "rounds": rules.option_defaults["rounds"]}
    return [say(p, **facts) for p in TUTORIAL]


PARAGRAPHS: dict[str, Callable[[Say, Drawing], list[str]]] = {
    "classic": _classic,
    "kadabra": _kadabra,
    "dice": _dice,
    "tutorial": _tutorial,
}


def rules_paragraphs(
    variant: str, say: Say = fill, card: Callable[[Card], str] = token
) -> list[str]:
    """The rules of ``variant``: paragraphs filled by ``say``, cards drawn by ``card``.

    ``MalformedRecord`` (from :func:`game.rules.find`) for an unknown variant.
    """
    find(variant)
    return PARAGRAPHS[variant](say, Drawing(card))


def full_rules_line(say: Say = fill) -> str:
    """One line saying where the complete rules are."""
    return say(MORE, path=FULL_RULES)
