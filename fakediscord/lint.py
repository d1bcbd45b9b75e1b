"""Lint: what Discord silently ignores in a request, which is always a bug of the bot.

Discord drops unknown fields (``contnet``, ``lable``, ``colour``) and flags an endpoint does
not take (``EPHEMERAL`` on a channel message) without an error. The fake records each as a
:class:`Lint`; ``FakeDiscord.check()`` (run at the end of ``fake.run``) fails on any.
Field lists follow Discord's message, embed, component, allowed-mentions and
interaction-response documentation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .messages import EPHEMERAL, IS_COMPONENTS_V2, Message

SUPPRESS_EMBEDS = 1 << 2
SUPPRESS_NOTIFICATIONS = 1 << 12
IS_VOICE_MESSAGE = 1 << 13

ENDPOINT_FLAGS = {
    "channel-create": SUPPRESS_EMBEDS
    | SUPPRESS_NOTIFICATIONS
    | IS_VOICE_MESSAGE
    | IS_COMPONENTS_V2,
    "channel-edit": SUPPRESS_EMBEDS | IS_COMPONENTS_V2,
    "callback-message": EPHEMERAL | SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS | IS_COMPONENTS_V2,
    "callback-defer": EPHEMERAL,
    "callback-update": SUPPRESS_EMBEDS | IS_COMPONENTS_V2,
    "followup": EPHEMERAL | SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS | IS_COMPONENTS_V2,
    "webhook-edit": SUPPRESS_EMBEDS | IS_COMPONENTS_V2,
}
"""The message flags each endpoint takes; other known flags are dropped (lint)."""

_COMMON = {"content", "embeds", "allowed_mentions", "components", "attachments", "flags"}
# discord.py always sends ``tts`` (False on edits too); Discord ignores it there, so it is no
# bug of the bot and is not linted.
BODY_FIELDS = {
    "channel-create": _COMMON
    | {"nonce", "enforce_nonce", "tts", "message_reference", "sticker_ids", "poll", "embed"},
    "channel-edit": _COMMON | {"tts"},
    "callback-message": _COMMON | {"tts", "poll"},
    "callback-defer": {"flags"},
    "callback-update": _COMMON | {"tts"},
    "followup": _COMMON | {"tts", "username", "avatar_url", "thread_name", "applied_tags", "poll"},
    "webhook-edit": _COMMON | {"tts", "poll"},
}
EMBED_FIELDS = set(  # "flags": discord.py sends each embed's flags back
    [
        "title",
        "type",
        "description",
        "url",
        "timestamp",
        "color",
        "footer",
        "image",
        "thumbnail",
        "video",
        "provider",
        "author",
        "fields",
        "flags",
    ]
)
EMBED_PARTS = {
    "footer": {"text", "icon_url", "proxy_icon_url"},
    "image": {"url", "proxy_url", "height", "width"},
    "thumbnail": {"url", "proxy_url", "height", "width"},
    "video": {"url", "proxy_url", "height", "width"},
    "provider": {"name", "url"},
    "author": {"name", "url", "icon_url", "proxy_icon_url"},
}
FIELD_FIELDS = {"name", "value", "inline"}
_SELECT = {
    "type",
    "id",
    "custom_id",
    "placeholder",
    "min_values",
    "max_values",
    "disabled",
    "required",
}
COMPONENT_FIELDS: dict[int, set[str]] = {
    1: {"type", "id", "components"},
    2: {"type", "id", "style", "label", "emoji", "custom_id", "sku_id", "url", "disabled"},
    3: _SELECT | {"options"},
    4: {
        "type",
        "id",
        "custom_id",
        "style",
        "label",
        "min_length",
        "max_length",
        "required",
        "value",
        "placeholder",
    },
    5: _SELECT | {"default_values"},
    6: _SELECT | {"default_values"},
    7: _SELECT | {"default_values"},
    8: _SELECT | {"default_values", "channel_types"},
    9: {"type", "id", "components", "accessory"},
    10: {"type", "id", "content"},
    11: {"type", "id", "media", "description", "spoiler"},
    12: {"type", "id", "items"},
    13: {"type", "id", "file", "spoiler"},
    14: {"type", "id", "divider", "spacing"},
    17: {"type", "id", "components", "accent_color", "spoiler"},
    18: {"type", "id", "label", "description", "component"},
}
OPTION_FIELDS = {"label", "value", "description", "emoji", "default"}
GALLERY_ITEM_FIELDS = {"media", "description", "spoiler"}
MEDIA_FIELDS = {"url"}  # the rest of an unfurled media item is the API's answer, ignored
EMOJI_FIELDS = {"id", "name", "animated"}
MENTION_FIELDS = {"parse", "roles", "users", "replied_user"}


@dataclass
class Lint:
    """One thing Discord would have ignored silently."""

    method: str
    path: str
    problem: str


def _unknown(out: list[str], where: str, data: Any, known: set[str]) -> None:
    if isinstance(data, dict):
        out.extend(
            f"{where}.{k}: unknown field (ignored by Discord)" for k in sorted(set(data) - known)
        )


def _components(out: list[str], where: str, components: Any) -> None:
    for i, comp in enumerate(components if isinstance(components, list) else []):
        if not isinstance(comp, dict):
            continue
        here = f"{where}.{i}"
        known = COMPONENT_FIELDS.get(comp.get("type"))  # type: ignore[arg-type]
        if known is not None:
            _unknown(out, here, comp, known)
        _unknown(out, f"{here}.emoji", comp.get("emoji"), EMOJI_FIELDS)
        for k, opt in enumerate(comp.get("options") or []):
            _unknown(out, f"{here}.options.{k}", opt, OPTION_FIELDS)
            if isinstance(opt, dict):
                _unknown(out, f"{here}.options.{k}.emoji", opt.get("emoji"), EMOJI_FIELDS)
        _components(out, f"{here}.components", comp.get("components"))
        for key in ("accessory", "component"):
            if isinstance(comp.get(key), dict):
                _components(out, f"{here}.{key}", [comp[key]])
        for key in ("media", "file"):
            _unknown(out, f"{here}.{key}", comp.get(key), MEDIA_FIELDS)
        for k, item in enumerate(comp.get("items") or []):
            _unknown(out, f"{here}.items.{k}", item, GALLERY_ITEM_FIELDS)
            if isinstance(item, dict):
                _unknown(out, f"{here}.items.{k}.media", item.get("media"), MEDIA_FIELDS)


def unshown_lint(msg: Message, body: Any) -> list[str]:
    """Files a V2 message carries but shows nowhere: Discord keeps them in the message's
    ``attachments`` yet draws only those a component references (``attachment://name``),
    so an upload no component names is sent for nothing. Linted when the request sends
    ``attachments`` (a new upload or the list kept)."""
    if not isinstance(body, dict) or "attachments" not in body or not msg.v2:
        return []
    shown = {id(a) for a in msg.shown_attachments}
    return [f"attachments: {a.get('filename')!r} is not shown: no component references "
            f"attachment://{a.get('filename')} (Components V2)"
            for a in msg.attachments if id(a) not in shown]


def message_lint(body: Any, endpoint: str, prefix: str = "") -> list[str]:
    """Lint of a message body sent to ``endpoint`` (a key of BODY_FIELDS)."""
    out: list[str] = []
    if not isinstance(body, dict):
        return out
    _unknown(out, prefix.rstrip(".") or "body", body, BODY_FIELDS[endpoint])
    for i, embed in enumerate(body.get("embeds") or []):
        where = f"{prefix}embeds.{i}"
        _unknown(out, where, embed, EMBED_FIELDS)
        if not isinstance(embed, dict):
            continue
        for part, known in EMBED_PARTS.items():
            _unknown(out, f"{where}.{part}", embed.get(part), known)
        for j, field in enumerate(embed.get("fields") or []):
            _unknown(out, f"{where}.fields.{j}", field, FIELD_FIELDS)
    _unknown(out, f"{prefix}allowed_mentions", body.get("allowed_mentions"), MENTION_FIELDS)
    _components(out, f"{prefix}components", body.get("components"))
    flags = body.get("flags")
    if isinstance(flags, int) and not isinstance(flags, bool):
        dropped = flags & ~ENDPOINT_FLAGS[endpoint]
        if dropped:
            out.append(f"{prefix}flags: {dropped} not taken by this endpoint (dropped by Discord)")
    return out
