"""``python -m bot.catalog``: extract every user-facing string into the English catalog.

Run it after changing a message; translators start from
``bot/locales/en/LC_MESSAGES/lama.po`` (msgstr empty = the English msgid).
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import write_po

from bot.i18n import DEFAULT, DOMAIN, LOCALES

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("bot", "cogs")
KEYWORDS = {"tr": None, "N_": None, "plural": (1, 2)}
METHOD_MAP = [("**.py", "python")]


def extract() -> Catalog:
    """A catalog of every msgid used in ``bot/`` and ``cogs/``."""
    catalog = Catalog(locale=DEFAULT, domain=DOMAIN, project="lama", fuzzy=False)
    for source in SOURCES:
        for filename, lineno, message, comments, context in extract_from_dir(
            ROOT / source, METHOD_MAP, keywords=KEYWORDS, comment_tags=("TRANSLATORS:",),
            strip_comment_tags=True,
        ):
            catalog.add(message, None, [(f"{source}/{filename}", lineno)],
                        auto_comments=comments, context=context)
    return catalog


def write(catalog: Catalog, language: str = DEFAULT) -> Path:
    path = LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        write_po(handle, catalog, width=100, omit_header=False, sort_output=True)
    return path


def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    catalog = extract()
    path = write(catalog)
    log.info("%d messages written to %s", len(catalog), path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
