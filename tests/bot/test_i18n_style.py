"""Every message, not only those a game happens to show: Persian digits, French spacing.

Each msgid the code can show (as ``python -m bot.catalog`` extracts it now) is rendered
with numbers in every placeholder that is not a person; the whole games in
``test_i18n_games.py`` cover what is laid out outside the catalog.
"""

from __future__ import annotations

from string import Formatter

import pytest

from bot.catalog import extract, read, typeset
from bot.words.i18n import VERBATIM, translator
from tests.bot.i18n_checks import NNBSP, french_spacing, latin_digits, watching


def sample(template: str, plural: bool = False) -> dict[str, object]:
    """A value for each placeholder: numbers and cards with digits; names and ids plain."""
    values: dict[str, object] = {}
    for _, field, _, _ in Formatter().parse(template):
        if field is None or field.startswith("cmd_") or (plural and field == "n"):
            continue
        values[field] = 42 if field == "user" else "ana" if field in VERBATIM else "🟡3 ×12"
    return values


def rendered(language: str) -> list[tuple[str, str]]:
    """``(msgid, text)`` of every message in ``language`` (both plural forms' numbers)."""
    tr = translator(language)
    out = []
    for message in extract():
        if not message.id or message.context:
            continue  # command names and descriptions: Discord shows no Persian client
        if isinstance(message.id, tuple):
            singular, plural = message.id
            for n in (1, 3, 1_000_000):
                out.append((singular, tr.plural(singular, plural, n, **sample(plural, True))))
        else:
            out.append((message.id, tr(message.id, **sample(message.id))))
    return out


def test_the_detectors() -> None:
    assert latin_digits("۳ <@42> <t:1700000000:R> <#9> https://x.y/1 <:lama:77>") == []
    assert latin_digits("کارت 🟡3") and latin_digits("ana2", {"ana2"}) == []
    assert french_spacing(f"Main{NNBSP}: «{NNBSP}oui{NNBSP}»{NNBSP}?!") == []
    assert french_spacing("Main : x") and french_spacing("Main: x") and french_spacing("« a »")
    assert french_spacing("<t:1700000000:R>") == [], "markup is not prose"
    assert french_spacing("sous la forme nom:valeur") == [], "option syntax is not prose"


def test_the_fragment_watch_catches_a_translation_put_into_a_sentence(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fr = translator("fr")
    with watching(monkeypatch) as fragments:
        fr("{name} gave {what} to {other}.", name="ana", other="ben", what=fr("Rules"))
        fr("Top card: {card}", card="🟡3")
        fr("{title}: new game", title=fr("L.A.M.A. Kadabra"))  # a game's name is a name
        fr("Top card: {card}", card="🟡3" + fr("Host"))  # glued, still a fragment
    assert set(fragments.found) == {"Rules", "Host"}


def test_persian_prints_every_number_in_persian_digits() -> None:
    texts = rendered("fa")
    assert len(texts) > 150
    wrong = [f"{msgid!r}: {found}" for msgid, text in texts if (found := latin_digits(text))]
    assert not wrong, "Latin digits in Persian messages:\n" + "\n".join(wrong)
    assert any("۴۲" not in t and "<@42>" in t for _, t in texts), "mentions keep their digits"


@pytest.mark.parametrize("language", ["en", "fr", "es", "de"])
def test_other_languages_keep_latin_digits(language: str) -> None:
    text = translator(language)("Top card: {card}", card="🟡3")
    assert "🟡3" in text and translator(language).figures("<@1> 2") == "<@1> 2"


def test_french_spaces_every_mark_that_wants_one() -> None:
    wrong = []
    for message in read("fr"):
        if not message.id:
            continue  # the header
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wrong += [f"{message.id!r}: {f}" for text in strings if text for f in french_spacing(text)]
    wrong += [f"{msgid!r}: {f}" for msgid, text in rendered("fr") for f in french_spacing(text)]
    assert not wrong, ("French wants U+202F before : ; ! ? and inside « » (python -m bot.catalog "
                       "puts it in):\n" + "\n".join(wrong))


def test_the_catalog_tool_typesets_french() -> None:
    assert typeset("fr", "Main : « a » ; b ! c ?") == (
        f"Main{NNBSP}: «{NNBSP}a{NNBSP}»{NNBSP}; b{NNBSP}! c{NNBSP}?")
    assert typeset("fr", typeset("fr", "a : b")) == f"a{NNBSP}: b"
    assert typeset("de", "a : b") == "a : b"
    assert typeset("fr", "l'option {name}") == "l’option {name}"
