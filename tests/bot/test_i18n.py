"""The translation layer: catalogs, the choice of language, right-to-left text, commands."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

from bot.catalog import extract
from bot.words import i18n
from bot.words.command_i18n import CommandTranslator, valid_name
from bot.words.i18n import FSI, PDI, pick, translator
from tests.bot.conftest import World


def test_english_catalog_lists_every_message() -> None:
    path = i18n.LOCALES / "en" / "LC_MESSAGES" / "lama.po"
    with path.open("rb") as handle:
        catalog = read_po(handle)
    known = {(m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in catalog if m.id}
    used = {(m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in extract() if m.id}
    missing = used - known
    assert not missing, f"run python -m bot.catalog: {sorted(missing, key=str)[:5]}"
    assert len(used) > 150
    assert (i18n.COMMAND_NAME, "start") in used and (i18n.COMMAND_CHOICE, "kadabra") in used
    assert (None, "L.A.M.A. tutorial (house rules)") in used, "engine titles are extracted"


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
        assert i18n.translator("fr").plural("{n} card", "{n} cards", 2_000_000) == (
            "2000000 de cartes")
        assert i18n.translator("fr")("Quit") == "Quit", "untranslated: the English msgid"
        assert i18n.translator("de")("Draw") == "Draw"
        assert i18n.translator(None).language == "en"
        assert i18n.translator("en-GB")("Play {card}", card="3") == "Play 3"
        assert i18n.available() == ["en", "fr"]
    finally:
        i18n.translator.cache_clear()


def test_server_setting_then_locale_then_english() -> None:
    assert i18n.candidates("es-ES") == ["es_ES", "es", "en"]
    assert pick("fa", "fr") == "fa"
    assert pick("auto", "es-419") == "es"
    assert pick(None, "pt-BR") == "en"
    assert pick(None, None) == "en"
    assert translator("es-ES").language == "es"


def test_persian_isolates_placeholders_but_keeps_mentions_whole() -> None:
    fa = translator("fa")
    text = fa("<@{user}>, it is your turn.", user=42)
    assert text.startswith(f"{FSI}<@42>{PDI}") and "<@" + FSI not in text
    played = fa("{name} played {card}.", name="AI 1", card="🟡3")
    assert f"{FSI}AI 1{PDI}" in played and f"{FSI}🟡۳{PDI}" in played, "a name keeps its digits"
    assert fa.isolate("ana") == f"{FSI}ana{PDI}"
    assert translator("fr").isolate("ana") == "ana"
    assert FSI not in translator("fr")("{name} played {card}.", name="x", card="y")


def test_commands_are_named_as_each_client_shows_them() -> None:
    text = "There is no L.A.M.A. game in this channel. Start one with {cmd_start}."
    assert translator("en")(text).endswith("/lama start.")
    assert translator("fr")(text).endswith("/lama nouvelle-partie.")
    assert translator("de")(text).endswith("/lama neues-spiel.")
    assert f"{FSI}/lama start{PDI}" in translator("fa")(text), "no Persian Discord client"
    assert translator("fr").decimal(2.5) == "2,5" and translator("fa").decimal(2.5) == "۲٫۵"


async def test_synced_commands_carry_valid_localizations(world: World) -> None:
    (lama,) = world.fake.global_commands
    start = next(c for c in lama["options"] if c["name"] == "start")
    assert start["name_localizations"] == {
        "fr": "nouvelle-partie", "es-ES": "nueva-partida", "es-419": "nueva-partida",
        "de": "neues-spiel"}
    variant = next(o for o in start["options"] if o["name"] == "variant")
    assert variant["name_localizations"]["de"] == "variante"
    assert variant["description_localizations"]["fr"] == "Variante (classique par défaut)"
    dice = next(c for c in variant["choices"] if c["value"] == "dice")
    assert dice["name_localizations"]["es-ES"] == "dados"

    def walk(node: dict) -> list[dict]:
        return [node, *(n for o in node.get("options", []) for n in walk(o))]

    for node in walk(lama):
        assert all(valid_name(n) for n in node.get("name_localizations", {}).values())
        assert all(len(d) <= 100 for d in node.get("description_localizations", {}).values())
        for choice in node.get("choices", []):
            assert all(len(n) <= 100 for n in choice.get("name_localizations", {}).values())


async def test_a_catalog_change_resyncs_the_commands(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = world.bot
    assert await bot.sync_commands() is False, "nothing changed"
    original = CommandTranslator.translate

    async def changed(self: CommandTranslator, string, locale, context):  # type: ignore[no-untyped-def]
        text = await original(self, string, locale, context)
        return "mano-nueva" if text == "mano" else text

    monkeypatch.setattr(CommandTranslator, "translate", changed)
    syncs = world.fake.command_syncs
    assert await bot.sync_commands() is True
    assert world.fake.command_syncs == syncs + 1
    assert await bot.sync_commands() is False


async def test_the_language_setting_is_read_from_memory(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def no_reads(*args: object) -> None:
        raise AssertionError("an interaction read a guild setting from SQLite")

    monkeypatch.setattr(world.bot.store, "guild_setting", no_reads)
    await world.bot.sessions.guild_settings.set(world.guild.id, "language", "de")
    reply = await world.cleo.slash(world.table, "lama hand")
    assert "In diesem Kanal läuft kein L.A.M.A.-Spiel" in reply.message.text
    stored = await world.bot.store.guild_settings("language")
    assert stored == {world.guild.id: "de"}


async def test_messages_follow_the_users_locale(world: World) -> None:
    reply = await world.cleo.slash(world.table, "lama hand")
    assert reply.ephemeral and "Il n’y a pas de partie de L.A.M.A." in reply.message.text
    reply = await world.ana.slash(world.table, "lama hand")
    assert "There is no L.A.M.A. game" in reply.message.text
