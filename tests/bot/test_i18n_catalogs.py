"""Every catalog translates every message the bot can show, with the same placeholders.

The reference is what ``python -m bot.catalog`` extracts from the code *now*, not the
committed English catalog, so a message added anywhere is reported here by its msgid.
"""

from __future__ import annotations

from string import Formatter

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.plurals import get_plural

from bot.catalog import extract, read
from bot.words.command_i18n import valid_name
from bot.words.i18n import (
    COMMAND_CHOICE,
    COMMAND_DESCRIPTION,
    COMMAND_NAME,
    DEFAULT,
    DISCORD_LOCALES,
    LANGUAGES,
    translator,
)
from cogs.rules_text import rules_paragraphs
from game import variant_names

OTHERS = [language for language in LANGUAGES if language != DEFAULT]


@pytest.fixture(scope="module")
def template() -> Catalog:
    return extract()


def fields(text: str) -> set[str]:
    return {f for _, f, _, _ in Formatter().parse(text) if f is not None}


def label(message: Message) -> str:
    ctx = f"[{message.context}] " if message.context else ""
    return f"{ctx}{message.id!r}"


@pytest.mark.parametrize("language", OTHERS)
def test_every_message_is_translated(template: Catalog, language: str) -> None:
    catalog = read(language)
    missing, fuzzy = [], []
    for message in template:
        if not message.id:
            continue
        found = catalog.get(message.id, message.context)
        strings = () if found is None else (
            found.string if isinstance(found.string, tuple) else (found.string,))
        if found is None or not all(strings):
            missing.append(label(message))
        elif found.fuzzy:
            fuzzy.append(label(message))
    assert not missing, (
        f"{len(missing)} msgids have no {language} translation (run python -m bot.catalog, "
        f"then translate them in bot/words/locales/{language}/LC_MESSAGES/lama.po):\n"
        + "\n".join(missing))
    assert not fuzzy, f"{language}: fuzzy translations to review:\n" + "\n".join(fuzzy)


@pytest.mark.parametrize("language", OTHERS)
def test_placeholders_and_plural_forms_match(template: Catalog, language: str) -> None:
    catalog = read(language)
    expected_forms = get_plural(language).num_plurals
    assert catalog.num_plurals == expected_forms, "Plural-Forms header"
    wrong = []
    for message in template:
        found = catalog.get(message.id, message.context) if message.id else None
        if found is None or not found.string:
            continue  # reported by test_every_message_is_translated
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        wanted = set().union(*(fields(i) for i in ids))
        strings = found.string if isinstance(found.string, tuple) else (found.string,)
        if isinstance(message.id, tuple) and len(strings) != expected_forms:
            wrong.append(f"{label(message)}: {len(strings)} forms, {expected_forms} wanted")
        for text in strings:
            if fields(text) != wanted:
                wrong.append(f"{label(message)}: {sorted(fields(text))} != {sorted(wanted)}")
    assert not wrong, f"{language}:\n" + "\n".join(wrong)


@pytest.mark.parametrize("language", LANGUAGES)
def test_command_strings_follow_discords_rules(template: Catalog, language: str) -> None:
    catalog = template if language == DEFAULT else read(language)
    wrong = []
    names: dict[str, str] = {}
    for message in catalog:
        text = message.id if language == DEFAULT else message.string
        if not message.id or not isinstance(text, str):
            continue
        if message.context == COMMAND_NAME:
            if not valid_name(text):
                wrong.append(f"name {text!r} for {message.id!r}")
            if language in DISCORD_LOCALES and names.setdefault(text, message.id) != message.id:
                wrong.append(f"name {text!r} used for {message.id!r} and {names[text]!r}")
        elif message.context in (COMMAND_DESCRIPTION, COMMAND_CHOICE) and not (
            1 <= len(text) <= 100
        ):
            wrong.append(f"{len(text)} characters: {text!r}")
    assert not wrong, f"{language}:\n" + "\n".join(wrong)


@pytest.mark.parametrize("language", LANGUAGES)
def test_rules_in_every_language_use_the_engines_numbers(language: str) -> None:
    tr = translator(language)
    for variant in variant_names():
        text = "\n\n".join(rules_paragraphs(tr, variant))
        assert 200 < len(text) < 4096, variant
    kadabra = "\n".join(rules_paragraphs(tr, "kadabra"))
    for fact in ("60", "🦙 ×12", "🔴1 ×8"):  # in the language's own digits (Persian: ۶۰)
        assert tr.figures(fact) in kadabra
    dice = "\n".join(rules_paragraphs(tr, "dice"))
    assert tr.figures("43") in dice and tr.figures("🟡3 🟢4 🔵5 🟣6 🦙 🦙") in dice
    if language == "fa":
        assert "۶۰" in kadabra and "60" not in kadabra
