"""User-supplied text in Discord messages: escaped where Discord renders markdown, and cut
to Discord's lengths everywhere.

Discord renders markdown (bold, spoilers, code, headings, quotes, lists, masked links
``[text](url)``, bare links, mentions) in message content, embed titles, descriptions and
fields; it shows text literally in button labels, select options, placeholders, footers and
author names, where a backslash would be seen. So a name goes through :func:`escape` in the
first kind of place and only through isolation (:meth:`bot.words.i18n.Translator.name`) in the
second. A backslash before any ASCII punctuation is shown as that character alone.
"""

from __future__ import annotations

import re

_SPECIAL = re.compile(r"([\\*_~`|>#\-\[\]()<:@!.+=])")
_CONTROL_SPACE = re.compile(r"[\r\n\t\v\f\u2028\u2029]+")

# Discord's limits (characters)
BUTTON_LABEL = 80
SELECT_LABEL = 100
SELECT_PLACEHOLDER = 150
EMBED_TITLE = 256
FIELD_NAME = 256
FIELD_VALUE = 1024
FOOTER = 2048
DESCRIPTION = 4096
CONTENT = 2000


def escape(text: str) -> str:
    """``text`` shown literally where Discord renders markdown (one line, no link, no ping)."""
    return _SPECIAL.sub(r"\\\1", one_line(text))


def one_line(text: str) -> str:
    """Line breaks inside user text become spaces: a name never starts a line of its own."""
    return _CONTROL_SPACE.sub(" ", text)


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, with an ellipsis when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
