"""Escaping for Discord markdown, isolation of names, and Discord's lengths."""

from __future__ import annotations

import re

from bot.words.i18n import FSI, PDI, translator
from bot.words.markdown import clip, escape

PUNCTUATION = re.compile(r"\\([!-/:-@\[-`{-~])")


def shown(text: str) -> str:
    """What Discord displays for escaped text: a backslash before punctuation disappears."""
    return PUNCTUATION.sub(r"\1", text)


def test_escaped_names_are_shown_as_typed_with_no_markdown_left() -> None:
    for name in ["[Free Nitro](https://evil.example)", "```", "**", "||", "~~", "# x", "> y",
                 "@everyone", "<@123>", "a_b_", "- item", "1. first", "back\\slash", "ana"]:
        escaped = escape(name)
        assert shown(escaped) == name, name
        bare = re.sub(r"\\.", "", escaped)  # what markdown could still act on
        assert not re.search(r"[*_~`|>#\[\]()<@:\\-]", bare), (name, escaped)


def test_a_name_never_breaks_a_line() -> None:
    assert "\n" not in escape("one\ntwo\r\nthree") and shown(escape("a\nb")) == "a b"


def test_names_are_isolated_in_every_language_when_they_could_turn_a_line() -> None:
    rlo = "\u202e"
    for language in ("en", "fr", "es", "de", "fa"):
        tr = translator(language)
        assert tr.name(f"ab{rlo}cd") == f"{FSI}ab{rlo}cd{PDI}"
        assert tr.name("علی") == f"{FSI}علی{PDI}"
        assert tr.plain(f"x{rlo}") == f"{FSI}x{rlo}{PDI}"
        # a name's own isolate marks cannot close the isolate early
        assert tr.name(f"{PDI}{rlo}x") == f"{FSI}{rlo}x{PDI}"
    assert translator("en").name("ana") == "ana", "plain left-to-right names are left as typed"
    assert translator("fa").name("ana") == f"{FSI}ana{PDI}"


def test_labels_are_cut_to_a_limit() -> None:
    assert clip("x" * 120, 100) == "x" * 99 + "…" and len(clip("x" * 120, 100)) == 100
    assert clip("short", 100) == "short"
