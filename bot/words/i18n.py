"""One translation layer for every user-facing string.

Messages are English gettext msgids with ``{name}`` placeholders, kept in
``bot/words/locales/<lang>/LC_MESSAGES/lama.po`` (read with Babel, compiled in
memory). Plurals use each catalog's ``Plural-Forms`` (``tr.plural``).

The language of an answer: the server's ``language`` setting if a moderator
set one (:func:`pick`), else the user's Discord locale, else English. Public
messages use the server setting, else the locale of the session's host.

User-supplied names go through :meth:`Translator.name` (escaped for markdown and
isolated, in every language) or :meth:`Translator.plain` (isolated only, where Discord
shows text literally); see bot/words/markdown.py.

Right-to-left languages (Persian) get every placeholder wrapped in Unicode
isolates (FSI … PDI), so names, numbers and cards keep their own direction
inside the sentence; mentions are isolated whole, never broken up.

Numbers are written in the language's own digits (Persian: ۰–۹, as the Persian
rulebook writes them) in one place, :meth:`Translator.figures`: every
placeholder value and plural count goes through it, and the few numbers laid
out outside a sentence (a seat's chips, a place in a list) call it directly.
Discord markup (``<@…>``, ``<#…>``, ``<t:…:R>``, custom emoji, URLs) and
people's names (placeholders in :data:`VERBATIM`) keep their digits.

Signs are the language's own too (CLDR's, through Babel: :func:`signs`), for every signed
number shown (a skill, a round's ``+3``/``-2`` points, a negative total): negative numbers
through :meth:`Translator.figures` and :meth:`Translator.decimal`, signed deltas through
:meth:`Translator.signed`. Persian writes a LEFT-TO-RIGHT MARK then the MINUS SIGN U+2212
(``‎−۲٫۸``; ``‎+۳``): the number reads left to right with its sign on the left of the
digits, as Persian schoolbooks and CLDR write it, and the mark (a strong left-to-right
character) keeps the sign there in a right-to-left line whether or not the number is
isolated. With the bare hyphen-minus and no isolate (a client that ignores isolates) the
sign ends up on the digits' right, and ``-۲٫۸`` reads as ``۲٫۸-``.

A placeholder ``{cmd_start}`` (``{cmd_config__language}`` for a nested one)
is filled with the slash command as this language's Discord client shows it
(``/lama start``, ``/lama commencer``), so texts name commands correctly.
"""

from __future__ import annotations

import gettext
import io
import logging
import re
import unicodedata
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path
from string import Formatter

from babel.lists import format_list
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal, get_minus_sign_symbol, get_plus_sign_symbol

from bot.words.markdown import escape, one_line

log = logging.getLogger(__name__)

LOCALES = Path(__file__).parent / "locales"
DOMAIN = "lama"
DEFAULT = "en"
LANGUAGES = ("en", "fr", "es", "de", "fa")
TEMPLATES_KEPT = 4096
"""Parsed templates kept per cache (every catalog's messages fit: about 330 per language)."""
LOCALES_KEPT = 64
FILLED_KEPT = 4096
"""Filled texts kept (the newest): a table or a hand is drawn again at every move with
mostly the same lines (seats, cards, counts, names), each filled once, not at every draw."""
_FILLED: OrderedDict[tuple[object, ...], str] = OrderedDict()
NAMES_KEPT = 1024
"""Names as shown (the newest): every seat of the games running at once."""
_NAMES: OrderedDict[tuple[bool, bool, str], str] = OrderedDict()
"""Translators kept, by the locale asked for (Discord has about 30 locales)."""
"""Every language the bot speaks (``/lama config language`` offers these)."""
RTL = frozenset({"fa"})
LANGUAGE_SETTING = "language"
"""The guild setting key; its value is one of :data:`LANGUAGES` or ``auto``."""
AUTO = "auto"

COMMAND_NAME = "command name"
"""msgctxt of slash command, group and option names (Discord's name rules apply)."""
COMMAND_DESCRIPTION = "command description"
COMMAND_CHOICE = "command choice"
DISCORD_LOCALES: dict[str, tuple[str, ...]] = {
    "fr": ("fr",),
    "es": ("es-ES", "es-419"),
    "de": ("de",),
}
"""The Discord client locales each catalog localizes commands for (Discord has no Persian)."""

FSI, LRI, PDI, RLM = "\u2068", "\u2066", "\u2069", "\u200f"
TURN_MARKERS = {False: "▶️", True: "◀️"}
"""The marker before the name of the player to act, by direction (right to left: True): it
points at the name, which stands after it in reading order (to its left in a right-to-left
line). The sandbox's turn badge (bot/sandbox/static/turn.js) looks for either."""
DIGITS = {"fa": str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")}
"""Languages whose numbers are not written with Latin digits, and their digits."""


@lru_cache(maxsize=len(LANGUAGES))
def signs(language: str) -> tuple[str, str]:
    """``language``'s minus and plus signs (one of :data:`LANGUAGES`), as CLDR writes them:
    ``-``/``+``, and for Persian LRM + U+2212 MINUS SIGN / LRM + ``+`` (the choice: this
    module's docstring). Read when a translator is first made, not at import: Babel's data
    for the five languages cost 0.16 s of every process that imports this module."""
    return get_minus_sign_symbol(language), get_plus_sign_symbol(language)


VERBATIM = frozenset({"name", "other", "user"})
"""Placeholders that hold a person's name or id: shown exactly as given."""
MARKUP = re.compile(
    r"<(?:@[!&]?\d+|#\d+|t:-?\d+(?::[a-zA-Z])?|a?:\w+:\d+|/[^<>\n]+:\d+)>|https?://\S+")
"""Discord markup and links: their digits are addresses, never numbers to translate."""
_ISOLATE_MARKS = re.compile("[\u2066-\u2069]")
_DIRECTIONAL = frozenset({"R", "AL", "AN", "LRE", "LRO", "RLE", "RLO", "PDF"})
"""Bidi classes that can reorder an LTR line around them (Unicode Bidi Algorithm)."""
_MENTION_OPENERS = ("<@", "<@!", "<@&", "<#", "<t:")
_MENTION = re.compile(r"<(?:@[!&]?|#|t:)[0-9]+(?::[a-zA-Z])?>")


def N_(message: str) -> str:
    """Mark ``message`` for extraction; it is translated where it is shown."""
    return message


@lru_cache(maxsize=TEMPLATES_KEPT)
def _fields(template: str) -> tuple[str, ...]:
    """The placeholder names of ``template`` (``{a.b}`` → ``a``)."""
    names = []
    for _, field, _, _ in Formatter().parse(template):
        if field is not None:
            names.append(re.split(r"[.\[]", field, maxsplit=1)[0])
    return tuple(names)


@lru_cache(maxsize=TEMPLATES_KEPT)
def _isolated(template: str) -> str:
    """``template`` with each placeholder between FSI and PDI (mentions excepted)."""
    out = []
    for literal, field, spec, conversion in Formatter().parse(template):
        out.append(literal.replace("{", "{{").replace("}", "}}"))
        if field is None:
            continue
        body = "{" + field + (f"!{conversion}" if conversion else "") + (
            f":{spec}" if spec else "") + "}"
        in_mention = literal.endswith(_MENTION_OPENERS)
        out.append(body if in_mention else FSI + body + PDI)
    return "".join(out)


class Translator:
    """Translate msgids into one language and fill their placeholders."""

    def __init__(self, language: str, catalog: gettext.NullTranslations) -> None:
        self.language = language
        self.rtl = language in RTL
        self.turn_marker = TURN_MARKERS[self.rtl]
        self.minus, self.plus = signs(language if language in LANGUAGES else DEFAULT)
        self._catalog = catalog
        self._digits = DIGITS.get(language)
        self._templates: dict[str, tuple[str, tuple[str, ...]]] = {}  # msgid -> translated
        # template and its placeholders: a move asks for about 30 texts, nearly all seen before

    def figures(self, value: object) -> str:
        """``value`` as text with this language's digits (markup and links left as they are);
        a negative number with this language's minus sign."""
        if isinstance(value, int | float) and not isinstance(value, bool) and value < 0:
            return self.minus + self.figures(-value)
        text = str(value)
        table = self._digits
        if table is None:
            return text
        if "<" not in text and "http" not in text:  # (no markup: MARKUP needs one of them)
            return text.translate(table)
        out, last = [], 0
        for markup in MARKUP.finditer(text):
            out += [text[last:markup.start()].translate(table), markup[0]]
            last = markup.end()
        out.append(text[last:].translate(table))
        return "".join(out)

    def __call__(self, message: str, /, **params: object) -> str:
        found = self._templates.get(message)
        if found is None:
            if len(self._templates) >= TEMPLATES_KEPT:  # (msgids are the code's own: never)
                self._templates.clear()
            template = self._catalog.gettext(message)
            found = self._templates[message] = (template, _fields(template))
        template, names = found
        return self._filled_kept(names, template, params) if names else template

    def plural(self, singular: str, plural: str, n: int, /, **params: object) -> str:
        """The form of ``singular``/``plural`` for ``n``; ``{n}`` is filled too."""
        return self._fill(self._catalog.ngettext(singular, plural, n), {"n": n, **params})

    def decimal(self, value: float, digits: int = 1) -> str:
        """``value`` with ``digits`` decimals, written as this language writes numbers (its
        minus sign included; a negative value that rounds to zero is shown as zero)."""
        text = format_decimal(abs(value), format="#,##0." + "0" * digits,
                              locale=self.language, numbering_system="default")
        sign = self.minus if value < 0 and text.strip("0.,٫٬\u00a0\u202f") else ""
        return sign + self.figures(text)

    def signed(self, value: int) -> str:
        """``value`` with its sign shown whatever it is (a round's points: ``+3``, ``-2``,
        ``+0``), in this language's signs and digits."""
        return self.figures(value) if value < 0 else self.plus + self.figures(value)

    def pattern(self, message: str) -> str:
        """The translation of ``message`` with its placeholders left unfilled."""
        return self._catalog.gettext(message)

    def context(self, context: str, message: str) -> str | None:
        """``message`` translated in ``context``, or None when this catalog has none."""
        text = self._catalog.pgettext(context, message)
        return None if text == message and self.language != DEFAULT else text

    def command(self, path: str) -> str:
        """``"start"`` → ``/lama start`` as this language's Discord client names it."""
        parts = ["lama", *path.split()]
        if self.language in DISCORD_LOCALES:
            parts = [self._catalog.pgettext(COMMAND_NAME, p) for p in parts]
        return "/" + " ".join(parts)

    def join(self, items: list[str]) -> str:
        """``items`` as this language lists them ("ana and ben", « ana et ben », «ana و ben»)."""
        return format_list(items, style="standard", locale=self.language) if items else ""

    def isolate(self, text: str) -> str:
        """``text`` kept in its own direction inside a right-to-left line."""
        return FSI + text + PDI if self.rtl and text else text

    def name(self, text: str) -> str:
        """A user-supplied name where Discord renders markdown: escaped and isolated."""
        key = (self.rtl, True, text)  # (each seat's name is written at every draw: once)
        shown = _NAMES.get(key)
        if shown is None:
            shown = _NAMES[key] = self._isolate_name(escape(text))
            if len(_NAMES) > NAMES_KEPT:  # the oldest goes
                _NAMES.popitem(last=False)
        return shown

    def plain(self, text: str) -> str:
        """A user-supplied name where Discord shows text literally (labels, footers): isolated."""
        return self._isolate_name(one_line(text))

    def _isolate_name(self, text: str) -> str:
        """Isolated in every language when it could change the line's direction (a
        right-to-left letter or override ends with the name instead of running on to the end
        of the line); a name's own isolate marks are dropped so it cannot close ours early."""
        text = _ISOLATE_MARKS.sub("", text)
        if text and (self.rtl or any(unicodedata.bidirectional(c) in _DIRECTIONAL
                                     for c in text)):
            return FSI + text + PDI
        return text

    def _fill(self, template: str, params: dict[str, object]) -> str:
        names = _fields(template)
        return self._filled_kept(names, template, params) if names else template

    def _filled_kept(self, names: tuple[str, ...], template: str, params: dict[str, object]
                     ) -> str:
        """``template`` filled, from :data:`_FILLED` when it was filled so before."""
        try:  # (the types too: True == 1, and its text is not 1's)
            key = (self.language, template, *params.items(), *map(type, params.values()))
            return _FILLED[key]
        except KeyError:
            text = _FILLED[key] = self._filled(names, template, params)
            if len(_FILLED) > FILLED_KEPT:  # the oldest goes
                _FILLED.popitem(last=False)
            return text
        except TypeError:  # a value that cannot be a key: filled, not kept
            return self._filled(names, template, params)

    def _filled(self, names: tuple[str, ...], template: str, params: dict[str, object]
                ) -> str:
        values = dict(params)
        for name in names:
            if name not in values and name.startswith("cmd_"):
                values[name] = self.command(name[4:].replace("__", " "))
        if self._digits is not None:
            values = self._localized(template, values)
        if not self.rtl:
            return template.format(**values)
        text = _isolated(template).format(**values)
        # (_MENTION starts with "<": a text without one has nothing to isolate)
        return _MENTION.sub(lambda m: FSI + m[0] + PDI, text) if "<" in text else text

    def _localized(self, template: str, values: dict[str, object]) -> dict[str, object]:
        """``values`` with their numbers in this language's digits (names and markup kept)."""
        plain = _plain_fields(template)
        return {k: self.figures(v) if k in plain and not isinstance(v, bool) else v
                for k, v in values.items()}


@lru_cache(maxsize=TEMPLATES_KEPT)
def _plain_fields(template: str) -> frozenset[str]:
    """Placeholders of ``template`` that hold numbers or text, not names or markup."""
    plain, kept = set(), set(VERBATIM)
    for literal, field, spec, conversion in Formatter().parse(template):
        if field is None:
            continue
        name = re.split(r"[.\[]", field, maxsplit=1)[0]
        in_markup = literal.endswith(_MENTION_OPENERS)
        (kept if spec or conversion or in_markup else plain).add(name)
    return frozenset(plain - kept)


def _load(language: str) -> gettext.NullTranslations | None:
    path = LOCALES / language / "LC_MESSAGES" / f"{DOMAIN}.po"
    if not path.is_file():
        return None
    return _compiled(language, path)


@lru_cache(maxsize=LOCALES_KEPT)
def _compiled(language: str, path: Path) -> gettext.GNUTranslations:
    """A catalog read once (0.1 s of CPU each): the many Discord locales that fall back on
    the same catalog (``en-GB``, ``pt-BR`` and other locales the bot has none for: English;
    ``es-419``: Spanish) share it. (Translations only read it.)"""
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


def language_of(locale: str | None) -> str | None:
    """The language of a Discord locale if the bot speaks it (``"es-419"`` → ``"es"``)."""
    if not locale:
        return None
    language = str(locale).replace("_", "-").split("-")[0].lower()
    return language if language in LANGUAGES else None


def pick(server: str | None, locale: str | None) -> str:
    """The server's language setting if set, else the locale's language, else English."""
    if server in LANGUAGES:
        return server
    return language_of(locale) or DEFAULT


@lru_cache(maxsize=LOCALES_KEPT)
def translator(locale: str | None = None) -> Translator:
    """The translator for a language or Discord locale, English if none fits."""
    for language in candidates(locale):
        catalog = _load(language)
        if catalog is not None:
            return Translator(language, catalog)
    log.warning("no %s catalog found in %s; using the msgids", DEFAULT, LOCALES)
    return Translator(DEFAULT, gettext.NullTranslations())


def available() -> list[str]:
    """The languages that have a catalog."""
    return sorted(p.name for p in LOCALES.iterdir() if (p / "LC_MESSAGES").is_dir())
