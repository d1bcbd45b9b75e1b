"""The catalogs use each language's rulebook words (docs/glossary/<lang>.md).

For every glossary row: a translation whose msgid has the English term must contain one
of the chosen forms, and no translation may contain a rejected form (except inside a
chosen one). The format is described in docs/glossary/README.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.catalog import read
from bot.words.i18n import COMMAND_NAME

GLOSSARY = Path(__file__).resolve().parents[2] / "docs" / "glossary"
LANGUAGES = ("fr", "es", "de", "fa")
NONE = "—"


@dataclass(frozen=True)
class Term:
    english: tuple[re.Pattern[str], ...]
    chosen: tuple[re.Pattern[str], ...]
    rejected: tuple[re.Pattern[str], ...]
    row: str


PLACEHOLDER = re.compile(r"\{[^{}]*\}")


def unfilled(text: str) -> str:
    """``text`` with every placeholder as ``{}`` (``{dice}`` is not the word "dice")."""
    return PLACEHOLDER.sub("{}", text)


def _form(text: str, word_start: bool, english: bool) -> re.Pattern[str]:
    """A glossary form as a pattern: ``…`` is any words in between.

    English forms are matched as written (``Dice`` in a title is not the word "dice");
    translations in any case.
    """
    parts = [re.escape(unfilled(p.strip()) if english else p.strip()) for p in text.split("…")]
    body = r"[^.;:!?]*?".join(parts)
    return re.compile((r"(?<!\w)" if word_start else "") + body,
                      0 if english else re.IGNORECASE)


def _forms(cell: str, word_start: bool, english: bool = False) -> tuple[re.Pattern[str], ...]:
    cell = cell.strip()
    if cell == NONE:
        return ()
    return tuple(_form(f, word_start, english) for f in cell.split(" / ") if f.strip())


def glossary(language: str) -> list[Term]:
    """The rows of ``docs/glossary/<language>.md``'s table."""
    terms = []
    for line in (GLOSSARY / f"{language}.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or len(cells) != 4 or cells[0] in ("English", "---"):
            continue
        english, chosen, rejected, _ = cells
        terms.append(Term(_forms(english, True, english=True), _forms(chosen, False),
                          _forms(rejected, True), line))
    return terms


def translations(language: str) -> list[tuple[str, str]]:
    """``(msgid, msgstr)`` of every form of every translated message but command names."""
    pairs = []
    for message in read(language):
        if not message.id or message.context == COMMAND_NAME:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for index, text in enumerate(strings):
            if text:
                pairs.append((ids[min(index, len(ids) - 1)], text))
    return pairs


def problems(term: Term, pairs: list[tuple[str, str]]) -> list[str]:
    found = []
    for msgid, text in pairs:
        chosen = [m.span() for p in term.chosen for m in p.finditer(text)]
        if term.chosen and any(p.search(unfilled(msgid)) for p in term.english) and not chosen:
            found.append(f"misses the chosen word: {msgid!r} → {text!r}")
        for pattern in term.rejected:
            for match in pattern.finditer(text):
                if not any(a <= match.start() and match.end() <= b for a, b in chosen):
                    found.append(f"uses the rejected {match[0]!r}: {text!r}")
    return found


def test_the_glossary_reader_and_checks() -> None:
    (term,) = [t for t in glossary("es") if "default" in t.row]
    assert problems(term, [("default 40", "40 por defecto")]) == []
    assert problems(term, [("default 40", "defecto: 40")])  # rejected, and chosen missing
    (draw,) = [t for t in glossary("de") if "nachzieh" in t.row]
    assert problems(draw, [("{name} drew a card.", "{name} zieht eine Karte nach.")]) == []
    assert problems(draw, [("{name} drew a card.", "{name} zieht eine Karte.")])
    (series,) = [t for t in glossary("de") if t.row.startswith("| L.L.A.M.A.")]
    assert problems(series, [("L.L.A.M.A.", "L.L.A.M.A.")]), "a chosen form inside a rejected"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_glossary_cites_its_rulebook_and_has_terms(language: str) -> None:
    text = (GLOSSARY / f"{language}.md").read_text(encoding="utf-8")
    assert "Follows the" in text and "**" in text, "names the rulebook edition it follows"
    assert "/work/" not in text and "seeds" not in text, "no path outside the project"
    assert len(glossary(language)) >= 10


@pytest.mark.parametrize("language", LANGUAGES)
def test_catalogs_use_the_glossarys_words(language: str) -> None:
    pairs = translations(language)
    found = [f"{term.row}\n    {p}" for term in glossary(language) for p in problems(term, pairs)]
    assert not found, f"{language} (docs/glossary/{language}.md):\n" + "\n".join(found)
