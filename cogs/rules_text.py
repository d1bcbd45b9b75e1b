"""``/lama rules``: short rules in the reader's language, with the engine's own numbers.

The paragraphs are msgids with placeholders; every number (deck, hand size,
target, dice faces, Kadabra counts) is read from the rule set in ``game/``
and inserted at display time, so a host who swaps, say, the Kadabra deck
split sees the rules follow and no translation states a number by hand.
RULES.md is the reference the texts summarise.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

from bot.i18n import N_, Translator
from cogs.cards import card_text, cards_text
from game import Card, find_rules
from game.cards import PLAIN_VALUES, sort_cards
from game.rules import HAND_SIZE
from game.rules import dice as dice_rules
from game.rules import kadabra as kadabra_rules
from game.rules import tutorial as tutorial_rules

# RULES.md values the engine applies inline (game/rules/__init__.py, score_round)
WHITE_POINTS = 1
BLACK_POINTS = 10
LLAMA_POINTS = BLACK_POINTS  # any llamas left in hand: one black chip
STOP_BONUS = 1  # tutorial: stopping on a llama

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


def composition(cards: Iterable[Card]) -> str:
    """``🔴1 ×8 · 🟠2 ×8 · … · 🦙 ×8``: each card of a deck and how many there are."""
    counts = Counter(cards)
    return " · ".join(f"{card_text(card)} ×{counts[card]}" for card in sort_cards(list(counts)))


def _classic(tr: Translator) -> list[str]:
    deck = find_rules("classic").deck()
    order = " → ".join(card_text(c) for c in (*PLAIN_VALUES, PLAIN_VALUES[0]))
    facts = {"cards": len(deck), "deck": composition(deck), "hand": HAND_SIZE, "order": order,
             "llama": LLAMA_POINTS, "white": WHITE_POINTS, "black": BLACK_POINTS,
             "target": find_rules("classic").option_defaults["target"]}
    return [tr(p, **facts) for p in CLASSIC]


def _kadabra(tr: Translator) -> list[str]:
    rules = find_rules("kadabra")
    deck = rules.deck()
    facts = {"classic": tr(find_rules("classic").title), "cards": len(deck),
             "deck": composition(deck), "white": kadabra_rules.STARTING_WHITE,
             "show": kadabra_rules.SHOW_THRESHOLD, "token": BLACK_POINTS}
    return [tr(p, **facts) for p in KADABRA]


def _dice(tr: Translator) -> list[str]:
    rules = find_rules("dice")
    deck = rules.deck()
    row = list(PLAIN_VALUES)  # RULES.md §3: one tile of each value (game/rules/dice.py)
    faces = " · ".join(cards_text(die) for die in dice_rules.DICE)
    facts = {"cards": len(deck) + len(row), "row": cards_text(row), "deck_size": len(deck),
             "deck": composition(deck), "hand": HAND_SIZE, "dice": len(dice_rules.DICE),
             "faces": faces, "classic": tr(find_rules("classic").title), "llama": LLAMA_POINTS,
             "target": rules.option_defaults["target"]}
    return [tr(p, **facts) for p in DICE]


def _tutorial(tr: Translator) -> list[str]:
    rules = find_rules("tutorial")
    deck = rules.deck()
    facts = {"cards": len(deck), "deck": composition(deck), "hand": HAND_SIZE,
             "llama_value": tutorial_rules.LLAMA_PLAY_VALUE,
             "penalty": tutorial_rules.LLAMA_PENALTY, "bonus": STOP_BONUS,
             "rounds": rules.option_defaults["rounds"]}
    return [tr(p, **facts) for p in TUTORIAL]


PARAGRAPHS: dict[str, Callable[[Translator], list[str]]] = {
    "classic": _classic,
    "kadabra": _kadabra,
    "dice": _dice,
    "tutorial": _tutorial,
}


def rules_paragraphs(tr: Translator, variant: str) -> list[str]:
    """The rules of ``variant`` in ``tr``'s language."""
    return PARAGRAPHS[variant](tr)
