"""One translation layer for every user-facing string.

Messages are English gettext msgids with ``{name}`` placeholders, kept in
``bot/locales/<lang>/LC_MESSAGES/lama.po`` (read with Babel, compiled in
memory). The language is chosen per interaction from the user's Discord
locale, falling back to English (the msgids themselves).
"""

from __future__ import annotations

import gettext
import io
import logging
from functools import cache
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

log = logging.getLogger(__name__)

LOCALES = Path(__file__).parent / "locales"
DOMAIN = "lama"
DEFAULT = "en"


def N_(message: str) -> str:
    """Mark ``message`` for extraction; it is translated where it is shown."""
    return message


class Translator:
    """Translate msgids into one language and fill their placeholders."""

    def __init__(self, language: str, catalog: gettext.NullTranslations) -> None:
        self.language = language
        self._catalog = catalog

    def __call__(self, message: str, /, **params: object) -> str:
        text = self._catalog.gettext(message)
        return text.format(**params) if params else text

    def plural(self, singular: str, plural: str, n: int, /, **params: object) -> str:
        """The form of ``singular``/``plural`` for ``n``; ``{n}`` is filled too."""
        return self._catalog.ngettext(singular, plural, n).format(n=n, **params)


def _load(language: str) -> gettext.NullTranslations | None:
    path = LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    if not path.is_file():
        return None
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=language.replace("-", "_"))
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


def candidates(locale: str | None) -> list[str]:
    """``"es-ES"`` → ``["es_ES", "es", "en"]``: the catalogs to try, in order."""
    result: list[str] = []
    if locale:
        code = str(locale).replace("-", "_")
        result.append(code)
        language = code.split("_")[0].lower()
        if language not in result:
            result.append(language)
    if DEFAULT not in result:
        result.append(DEFAULT)
    return result


@cache
def translator(locale: str | None = None) -> Translator:
    """The translator for a Discord locale (``interaction.locale``), English if none fits."""
    for language in candidates(locale):
        catalog = _load(language)
        if catalog is not None:
            return Translator(language, catalog)
    log.warning("no %s catalog found in %s; using the msgids", DEFAULT, LOCALES)
    return Translator(DEFAULT, gettext.NullTranslations())


def available() -> list[str]:
    """The languages that have a catalog."""
    return sorted(p.name for p in LOCALES.iterdir() if (p / "LC_MESSAGES").is_dir())
