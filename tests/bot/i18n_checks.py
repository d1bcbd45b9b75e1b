"""Checks on what a language's readers see: fragments, digits, French spacing.

- **Fragments.** :class:`Fragments` watches the translator while whole games run: every
  text a msgid was translated into is remembered, and every placeholder value is looked
  up among them. A value that is (or, for a fixed text, contains) a translation is a
  sentence built from translated pieces, which other languages cannot inflect. The rule
  sets' titles are exempt: they are the games' names, put into a sentence like a
  player's name.
- **Digits.** :func:`latin_digits` finds Latin digits in a Persian text outside Discord
  markup (mentions, timestamps, custom emoji, links), whose digits are addresses.
- **Signs.** :func:`bare_signs` finds a plus or minus sign before a Persian digit without the
  LEFT-TO-RIGHT MARK that keeps it on the digits' left (bot/words/i18n.py ``signs``).
- **French spacing.** :func:`french_spacing` finds ``: ; ! ? »`` without the narrow
  no-break space (U+202F) before them, and ``«`` without one after it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from bot.words.i18n import MARKUP, Translator
from game import find_rules, variant_names

NNBSP = "\u202f"
"""The space French puts before ``: ; ! ?`` and inside « » (one kind, everywhere)."""
LATIN_DIGIT = re.compile(r"[0-9]")
BARE_SIGN = re.compile("(?<!\u200e)[-+\u2212][\u2066-\u2069]*[۰-۹]")
FRENCH_MARKS = re.compile(
    r"(?P<before>.?)(?P<mark>[!?»]|[:;](?=\s|$))|«(?P<after>.?)", re.S)
"""A colon glued to the next word (``nom:valeur``, ``https:``) is syntax, not punctuation."""


def titles() -> frozenset[str]:
    """The rule sets' titles (names of games, not fragments)."""
    return frozenset(find_rules(v).title for v in variant_names())


class Fragments:
    """Records msgids whose translation was passed as a placeholder value."""

    def __init__(self) -> None:
        self.exact: dict[str, str] = {}  # translated text → msgid
        self.fixed: dict[str, str] = {}  # translations of msgids without placeholders
        self.found: dict[str, str] = {}  # msgid → the template it was put into
        self.exempt = titles()
        self.names: set[str] = set()  # the titles' translations: names, never searched

    def translated(self, msgid: str, text: str) -> None:
        if msgid in self.exempt:
            self.names.add(text)
            return
        if not re.search(r"[^\W\d_]{2,}", text):
            return
        self.exact[text] = msgid
        if "{" not in msgid:
            self.fixed[text] = msgid

    def filled(self, template: str, params: dict[str, object]) -> None:
        for value in params.values():
            if not isinstance(value, str) or value in self.names:
                continue
            msgid = self.exact.get(value) or next(
                (m for text, m in self.fixed.items() if len(text) > 2 and text in value), None)
            if msgid is not None:
                self.found.setdefault(msgid, template)


@contextmanager
def watching(monkeypatch: pytest.MonkeyPatch) -> Iterator[Fragments]:
    """Instrument :class:`Translator` for the duration (every language, every instance)."""
    fragments = Fragments()
    call, plural, fill = Translator.__call__, Translator.plural, Translator._filled_kept

    def tr_call(self: Translator, message: str, /, **params: Any) -> str:
        text = call(self, message, **params)
        fragments.translated(message, text)
        return text

    def tr_plural(self: Translator, singular: str, plural_: str, n: int, /, **params: Any) -> str:
        text = plural(self, singular, plural_, n, **params)
        fragments.translated(singular, text)
        return text

    def tr_fill(self: Translator, names: tuple[str, ...], template: str,
                params: dict[str, object]) -> str:  # (every text with placeholders)
        fragments.filled(template, params)
        return fill(self, names, template, params)

    monkeypatch.setattr(Translator, "__call__", tr_call)
    monkeypatch.setattr(Translator, "plural", tr_plural)
    monkeypatch.setattr(Translator, "_filled_kept", tr_fill)
    yield fragments


def latin_digits(text: str, names: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    """Latin digits of ``text`` outside markup and people's names, each with its context."""
    bare = MARKUP.sub(" ", text)
    for name in names:
        bare = bare.replace(name, " ")
    return [bare[max(0, m.start() - 12):m.end() + 12] for m in LATIN_DIGIT.finditer(bare)]


def french_spacing(text: str) -> list[str]:
    """Places in ``text`` where French wants a narrow no-break space and has none (as the
    reader sees it: a backslash before ASCII punctuation shows that mark alone)."""
    bare = MARKUP.sub(" ", re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text))
    faults = []
    for match in FRENCH_MARKS.finditer(bare):
        if match["mark"]:
            ok = match["before"] in (NNBSP, "") or match["before"] in ":;!?"
        else:
            ok = match["after"] == NNBSP
        if not ok:
            faults.append(bare[max(0, match.start() - 15):match.end() + 5])
    return faults


def bare_signs(text: str) -> list[str]:
    """Signs before Persian digits that a right-to-left line may put on their right."""
    return [m[0] for m in BARE_SIGN.finditer(text)]
