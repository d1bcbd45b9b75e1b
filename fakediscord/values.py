"""Discord's checks on the values inside a message body (types, URLs, mentions, flags).

Rules from Discord's message, embed, component and allowed-mentions documentation; each
broken one adds a field error to Discord's 50035 ``errors`` tree.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Protocol
from urllib.parse import urlsplit

from .messages import walk_components


class FormErrors(Protocol):
    """Where a broken rule goes (``validate.FormErrors``, which calls these checks)."""

    def add(self, path: str, code: str, message: str) -> None: ...

MAX_COLOR = 0xFFFFFF
MENTION_TYPES = {"roles", "users", "everyone"}
MAX_MENTION_IDS = 100
MAX_NONCE = 25
KNOWN_FLAGS = (
    (1 << 0)
    | (1 << 1)
    | (1 << 2)
    | (1 << 3)
    | (1 << 4)
    | (1 << 5)
    | (1 << 6)
    | (1 << 7)
    | (1 << 8)
    | (1 << 12)
    | (1 << 13)
    | (1 << 14)
    | (1 << 15)
)
"""Message flags Discord defines (its message-flags table); other bits are refused."""


def _bool(err: FormErrors, path: str, value: Any) -> None:
    if value is not None and not isinstance(value, bool):
        err.add(path, "BASE_TYPE_BOOLEAN", "Must be either true or false.")


def _url(err: FormErrors, path: str, value: Any, *, attachment: bool = True) -> None:
    if value is None:
        return
    if not isinstance(value, str):
        err.add(path, "URL_TYPE_INVALID_URL", "Not a well formed URL.")
        return
    parts = urlsplit(value)
    schemes = ("http", "https", "attachment") if attachment else ("http", "https")
    if parts.scheme not in schemes or not (parts.netloc or parts.scheme == "attachment"):
        err.add(path, "URL_TYPE_INVALID_URL", "Not a well formed URL.")


def _emoji(err: FormErrors, path: str, emoji: Any) -> None:
    if emoji is None:
        return
    if not isinstance(emoji, dict) or not (emoji.get("name") or emoji.get("id")):
        err.add(path, "COMPONENT_INVALID_EMOJI", "Invalid emoji")


def check_embed_values(err: FormErrors, prefix: str, embeds: list[Any]) -> None:
    for i, embed in enumerate(embeds):
        p = f"{prefix}embeds.{i}"
        if not isinstance(embed, dict):
            err.add(p, "DICT_TYPE_CONVERT", "Only dictionaries may be used.")
            continue
        color = embed.get("color")
        if color is not None and (
            isinstance(color, bool) or not isinstance(color, int) or not 0 <= color <= MAX_COLOR
        ):
            err.add(
                f"{p}.color", "NUMBER_TYPE_MAX", f"int value should be <= {MAX_COLOR} and >= 0."
            )
        _url(err, f"{p}.url", embed.get("url"), attachment=False)
        for part in ("image", "thumbnail"):
            _url(err, f"{p}.{part}.url", (embed.get(part) or {}).get("url"))
        _url(err, f"{p}.footer.icon_url", (embed.get("footer") or {}).get("icon_url"))
        author = embed.get("author") or {}
        _url(err, f"{p}.author.url", author.get("url"), attachment=False)
        _url(err, f"{p}.author.icon_url", author.get("icon_url"))
        stamp = embed.get("timestamp")
        if stamp is not None:
            try:
                dt.datetime.fromisoformat(str(stamp))
            except ValueError:
                err.add(
                    f"{p}.timestamp",
                    "DATE_TIME_TYPE_PARSE",
                    f"Could not parse {stamp}. Should be ISO8601.",
                )
        for j, field in enumerate(embed.get("fields") or []):
            if isinstance(field, dict):
                _bool(err, f"{p}.fields.{j}.inline", field.get("inline"))


def check_component_values(err: FormErrors, prefix: str, components: list[Any]) -> None:
    for c in walk_components(components):
        kind = c.get("type")
        _bool(err, f"{prefix}components.disabled", c.get("disabled"))
        _emoji(err, f"{prefix}components.emoji", c.get("emoji"))
        if kind == 2 and c.get("style") not in (5, None) and "url" in c:
            err.add(
                f"{prefix}components.url",
                "COMPONENT_INVALID_URL",
                "Only link buttons may have a url",
            )
        if kind == 2 and c.get("style") == 5:
            _url(err, f"{prefix}components.url", c.get("url"), attachment=False)
        if kind in (3, 5, 6, 7, 8) and not c.get("custom_id"):
            err.add(f"{prefix}components.custom_id", "BASE_TYPE_REQUIRED", "This field is required")
        for k, opt in enumerate(c.get("options") or []):
            label = opt.get("label") if isinstance(opt, dict) else None
            if not isinstance(label, str) or not label:
                err.add(
                    f"{prefix}components.options.{k}.label",
                    "BASE_TYPE_BAD_LENGTH",
                    "Must be between 1 and 100 in length.",
                )
            if isinstance(opt, dict):
                _emoji(err, f"{prefix}components.options.{k}.emoji", opt.get("emoji"))


def check_allowed_mentions(err: FormErrors, prefix: str, mentions: Any) -> None:
    if mentions is None:
        return
    p = f"{prefix}allowed_mentions"
    if not isinstance(mentions, dict):
        err.add(p, "DICT_TYPE_CONVERT", "Only dictionaries may be used.")
        return
    parse = mentions.get("parse") or []
    for k, kind in enumerate(parse):
        if kind not in MENTION_TYPES:
            err.add(
                f"{p}.parse.{k}",
                "BASE_TYPE_CHOICES",
                "Value must be one of {'everyone', 'roles', 'users'}.",
            )
    for kind in ("users", "roles"):
        ids = mentions.get(kind) or []
        if ids and kind in parse:
            err.add(
                f"{p}.parse",
                "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
                f'parse:["{kind}"] and {kind}: [ids] are mutually exclusive.',
            )
        if len(ids) > MAX_MENTION_IDS:
            err.add(f"{p}.{kind}", "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
    _bool(err, f"{p}.replied_user", mentions.get("replied_user"))


def check_flags_and_nonce(err: FormErrors, prefix: str, body: dict[str, Any]) -> None:
    flags = body.get("flags")
    if flags is not None and (isinstance(flags, bool) or not isinstance(flags, int)):
        err.add(f"{prefix}flags", "NUMBER_TYPE_COERCE", f'Value "{flags}" is not int.')
    elif flags is not None and flags & ~KNOWN_FLAGS:
        err.add(f"{prefix}flags", "MESSAGE_FLAGS_INVALID", "Unknown message flag bits.")
    nonce = body.get("nonce")
    if nonce is not None and (
        isinstance(nonce, bool)
        or not isinstance(nonce, int | str)
        or (isinstance(nonce, str) and len(nonce) > MAX_NONCE)
    ):
        err.add(f"{prefix}nonce", "BASE_TYPE_BAD_LENGTH", "Must be 25 or fewer in length.")
    _bool(err, f"{prefix}enforce_nonce", body.get("enforce_nonce"))


def check_values(err: FormErrors, prefix: str, body: dict[str, Any]) -> None:
    """All value checks of a message body."""
    embeds = body.get("embeds") or []
    if isinstance(embeds, list):
        check_embed_values(err, prefix, embeds)
    components = body.get("components") or []
    if isinstance(components, list):
        check_component_values(err, prefix, components)
    check_allowed_mentions(err, prefix, body.get("allowed_mentions"))
    check_flags_and_nonce(err, prefix, body)
