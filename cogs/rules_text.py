"""``/lama rules``: the engine's rules text in the reader's language, with emoji cards.

The paragraphs and their numbers live in ``game/rules/text.py`` (also what
``python -m game play`` prints for ``rules``); here they are only translated and
drawn for Discord, with a last line saying where the complete rules are.
"""

from __future__ import annotations

from bot.words.i18n import Translator
from cogs.cards import card_text
from game.rules.text import full_rules_line
from game.rules.text import rules_paragraphs as engine_paragraphs


def rules_paragraphs(tr: Translator, variant: str) -> list[str]:
    """The rules of ``variant`` in ``tr``'s language, then where the full rules are."""
    return [*engine_paragraphs(variant, tr, card_text), full_rules_line(tr)]
