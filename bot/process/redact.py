"""Secrets out of the logs: interaction tokens and the bot token, whoever logs them.

At DEBUG, discord.py logs every gateway event whole (an INTERACTION_CREATE carries the
interaction's ``token``) and every webhook request's URL (``/interactions/<id>/<token>/
callback``, ``/webhooks/<app>/<token>/...``). An interaction token lets anyone answer as the
bot for 15 minutes, and logs get pasted into bug reports. :class:`Redact` sits on the log
handlers, so it sees every record that is written, from any logger, and replaces the tokens
with ``<token>``; the ids stay, so a log still tells which interaction it was about.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

HIDDEN = "<token>"

PATTERNS = (
    # a URL's token segment after the interaction's or application's id
    re.compile(r"(/(?:interactions|webhooks)/\d+/)[^/\s?#'\"]+"),
    # a "token" field, as a dict's repr or JSON
    re.compile(r"""(['"]token['"]\s*:\s*['"])[^'"]+"""),
    # an Authorization header's bot token
    re.compile(r"(\bBot\s+)[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}"),
)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` without tokens: the patterns above, and each of ``secrets`` wherever it is."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, HIDDEN)
    for pattern in PATTERNS:
        text = pattern.sub(rf"\g<1>{HIDDEN}", text)
    return text


class Redact(logging.Filter):
    """Rewrites a record's message (and its traceback's text) without tokens; drops nothing.

    On a handler rather than a logger: a logger's filter does not see the records its
    children pass up, and discord.py logs from many loggers."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.secrets = tuple(s for s in secrets if s)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # (arguments that do not fit: the handler reports it as usual)
            return True
        cleaned = redact(message, self.secrets)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, self.secrets)
        if record.stack_info:
            record.stack_info = redact(record.stack_info, self.secrets)
        return True


def redact_handlers(secrets: Iterable[str] = (), logger: logging.Logger | None = None) -> None:
    """Put :class:`Redact` on every handler of ``logger`` (the root logger by default); one
    already there learns ``secrets`` too."""
    target = logger or logging.getLogger()
    secrets = tuple(s for s in secrets if s)
    for handler in target.handlers:
        present = [f for f in handler.filters if isinstance(f, Redact)]
        for found in present:
            found.secrets = (*found.secrets, *(s for s in secrets if s not in found.secrets))
        if not present:
            handler.addFilter(Redact(secrets))
