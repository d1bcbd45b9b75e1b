"""The translation layer: one catalog per language, chosen per user, English as fallback."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from bot import i18n
from bot.catalog import extract
from tests.bot.conftest import World


def test_english_catalog_lists_every_message() -> None:
    path = i18n.LOCALES / "en" / "LC_MESSAGES" / "lama.po"
    with path.open("rb") as handle:
        catalog = read_po(handle)
    known = {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}
    used = {m.id if isinstance(m.id, str) else m.id[0] for m in extract() if m.id}
    missing = used - known
    assert not missing, f"run python -m bot.catalog: {sorted(missing)[:5]}"
    assert len(used) > 100


def test_locale_choice_and_fallback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    french = Catalog(locale="fr", fuzzy=False)
    french.add("Draw", "Piocher")
    # CLDR French has three forms: one (0, 1), many (millions), other.
    french.add(("{n} card", "{n} cards"), ("{n} carte", "{n} de cartes", "{n} cartes"))
    target = tmp_path / "fr" / "LC_MESSAGES" / "lama.po"
    target.parent.mkdir(parents=True)
    with target.open("wb") as handle:
        write_po(handle, french)
    english = i18n.LOCALES / "en"
    (tmp_path / "en").symlink_to(english, target_is_directory=True)
    monkeypatch.setattr(i18n, "LOCALES", tmp_path)
    i18n.translator.cache_clear()
    try:
        assert i18n.translator("fr")("Draw") == "Piocher"
        assert i18n.translator("fr").plural("{n} card", "{n} cards", 2) == "2 cartes"
        assert i18n.translator("fr").plural("{n} card", "{n} cards", 1) == "1 carte"
        assert i18n.translator("fr")("Quit") == "Quit", "untranslated: the English msgid"
        assert i18n.translator("de")("Draw") == "Draw"
        assert i18n.translator(None).language == "en"
        assert i18n.translator("en-GB")("Play {card}", card="3") == "Play 3"
        assert i18n.available() == ["en", "fr"]
    finally:
        i18n.translator.cache_clear()


def test_candidates() -> None:
    assert i18n.candidates("es-ES") == ["es_ES", "es", "en"]
    assert i18n.candidates("fr") == ["fr", "en"]
    assert i18n.candidates(None) == ["en"]


async def test_messages_follow_the_users_locale(world: World) -> None:
    # cleo's Discord is in French: with no French catalog yet, she reads English.
    reply = await world.cleo.slash(world.table, "lama hand")
    assert reply.ephemeral and "There is no L.A.M.A. game" in reply.message.text
