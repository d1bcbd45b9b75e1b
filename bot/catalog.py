"""``python -m bot.catalog``: extract every user-facing string, update every catalog.

1. Messages: ``tr(...)``, ``tr.plural(...)`` and ``N_(...)`` calls in ``bot/`` and ``cogs/``,
   and the rules text the engine shares with the terminal game (``game/rules/text.py``).
2. Slash commands: names, descriptions, options and choices, read from the command tree
   with every cog loaded (msgctxt ``command name`` / ``command description`` /
   ``command choice``).
3. The rule sets' titles (``game/``), which the table and the rules show.

The English catalog ``bot/words/locales/en/LC_MESSAGES/lama.po`` is rewritten (msgstr empty:
the msgid is the English text). Every other catalog is updated with Babel's
``Catalog.update``: new msgids arrive untranslated (or ``fuzzy`` with a guess from a
similar old msgid), vanished ones are kept as obsolete ``#~`` entries and come back
if the msgid returns. ``tests/bot/test_i18n_catalogs.py`` names whatever is missing.
French translations get their narrow no-break spaces (:func:`typeset`) on every run.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sys
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from bot.words.i18n import COMMAND_NAME, DEFAULT, DOMAIN, LANGUAGES, LOCALES

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parent.parent
KEYWORDS = {"tr": None, "N_": None, "plural": (1, 2)}
METHOD_MAP = [("**.py", "python")]
SOURCES = {"bot": METHOD_MAP, "cogs": METHOD_MAP, "game": [("rules/text.py", "python")]}
STABLE_DATE = datetime(2026, 1, 1, tzinfo=UTC)  # no date churn: merges of catalogs stay clean
TITLES = "rule set title"  # a comment, not a context: titles are plain msgids


def command_entries() -> list[tuple[str, str, str]]:
    """``(msgctxt, msgid, where)`` of the loaded command tree (every cog loaded, no login)."""
    from bot.app import create_bot
    from bot.process.settings import Settings
    from bot.words.command_i18n import command_strings, make_translatable

    async def walk() -> list[tuple[str, str, str]]:
        bot = create_bot(Settings(_env_file=None, lama_db=":memory:"))  # type: ignore[call-arg]
        names = bot.wiring.names
        for extension in names:
            await bot.load_extension(extension)
        make_translatable([bot.lama])
        entries = list(command_strings([bot.lama]))
        for extension in reversed(names):
            await bot.unload_extension(extension)
        return entries

    return asyncio.run(walk())


def title_entries() -> list[tuple[str, str]]:
    """``(msgid, where)`` of every rule set's title."""
    from game import find_rules, variant_names

    return [(find_rules(name).title, f"game/rules ({name})") for name in variant_names()]


def extract() -> Catalog:
    """A catalog of every msgid the bot can show."""
    catalog = Catalog(locale=DEFAULT, domain=DOMAIN, project="lama", fuzzy=False,
                      creation_date=STABLE_DATE)
    for source, method_map in SOURCES.items():
        for filename, lineno, message, comments, context in extract_from_dir(
            ROOT / source, method_map, keywords=KEYWORDS, comment_tags=("TRANSLATORS:",),
            strip_comment_tags=True,
        ):
            catalog.add(message, None, [(f"{source}/{filename}", lineno)],
                        auto_comments=comments, context=context)
    for context, message, where in command_entries():
        existing = catalog.get(message, context)
        if existing is None:
            catalog.add(message, None, [(where, 0)], context=context)
        else:
            existing.locations.append((where, 0))
    for message, where in title_entries():
        existing = catalog.get(message)
        if existing is None:
            catalog.add(message, None, [(where, 0)], auto_comments=[TITLES])
    return catalog


def path_of(language: str) -> Path:
    return LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def read(language: str) -> Catalog:
    with path_of(language).open("rb") as handle:
        return read_po(handle, locale=language, domain=DOMAIN)


def write(catalog: Catalog, language: str = DEFAULT) -> Path:
    path = path_of(language)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        write_po(handle, catalog, width=100, omit_header=False, sort_output=True,
                 include_lineno=False)  # file names only: line moves do not churn catalogs
    return path


FRENCH_SPACE = "\u202f"
"""French puts a narrow no-break space before ``: ; ! ?`` and inside « » (one kind everywhere)."""


def typeset(language: str, text: str) -> str:
    """``text`` with its language's typography (French only, idempotent): narrow no-break
    spaces around punctuation, typographic apostrophes."""
    if language != "fr":
        return text
    text = re.sub(r"(?<=\w)'(?=\w)", "’", text)  # the catalog's apostrophe: l’option
    text = re.sub(r"[ \u00a0]([:;!?»])", FRENCH_SPACE + r"\1", text)
    return re.sub(r"«[ \u00a0]", "«" + FRENCH_SPACE, text)


def _typeset_all(catalog: Catalog, language: str) -> None:
    for message in catalog:
        if not message.id or message.context == COMMAND_NAME:
            continue
        if isinstance(message.string, tuple):
            message.string = tuple(typeset(language, s) for s in message.string)
        elif message.string:
            message.string = typeset(language, message.string)


def update(template: Catalog, language: str) -> tuple[Path, int]:
    """Bring ``language``'s catalog up to ``template``; returns it and its untranslated count."""
    if path_of(language).is_file():
        catalog = read(language)
        for message in list(catalog.obsolete.values()):  # a returning msgid finds its old text
            if catalog.get(message.id, message.context) is None:
                catalog[message.id] = message
        catalog.obsolete.clear()
    else:
        catalog = Catalog(locale=language, domain=DOMAIN, project="lama", fuzzy=False)
    catalog.update(template, update_header_comment=False)
    _typeset_all(catalog, language)
    missing = sum(1 for m in catalog if m.id and (m.fuzzy or not all(
        m.string if isinstance(m.string, tuple) else (m.string,))))
    return write(catalog, language), missing


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    template = extract()
    path = write(template)
    log.info("%d messages written to %s", len(template), path)
    for language in LANGUAGES:
        if language == DEFAULT:
            continue
        path, missing = update(template, language)
        log.info("%s: %d untranslated or fuzzy", path, missing)
    return 0


if __name__ == "__main__":
    sys.exit(main())
