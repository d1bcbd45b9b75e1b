"""Discord's layout rules for components: action rows, and Components V2 messages.

From Discord's components reference: a legacy message holds up to 5 action rows at the top;
a row holds 1–5 buttons or one select. A V2 message (flag ``IS_COMPONENTS_V2``) holds up to
40 components counting nested ones, with no ``content``, ``embeds``, ``poll`` or
``sticker_ids``; at the top and inside a container only rows, sections, text displays, media
galleries, files and separators (and containers at the top); a section holds 1–3 text
displays and a button or thumbnail accessory; a gallery 1–10 items; a file component only an
``attachment://`` reference; component ``id`` values are unique in the message. The 4,000
characters of text are observed, not documented (discord.py's ``LayoutView`` says the same).
"""

from __future__ import annotations

from typing import Any, Protocol

from .messages import ATTACHMENT_SCHEME, SELECT_TYPES, walk_components


class FormErrors(Protocol):
    """Where a broken rule goes (``validate.FormErrors``, which calls these checks)."""

    def add(self, path: str, code: str, message: str) -> None: ...


ROW, BUTTON, SECTION, TEXT, THUMBNAIL, GALLERY, FILE, SEPARATOR, CONTAINER = (
    1, 2, 9, 10, 11, 12, 13, 14, 17)
IN_CONTAINER = {ROW, SECTION, TEXT, GALLERY, FILE, SEPARATOR}
AT_TOP = IN_CONTAINER | {CONTAINER}
V2_MAX_COMPONENTS = 40
V2_TEXT_LIMIT = 4000
MAX_MEDIA_DESCRIPTION = 1024
V2_LEGACY = "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2"


def check_row(err: FormErrors, p: str, row: dict[str, Any]) -> None:
    """An action row: 1–5 buttons, or one select alone."""
    children = row.get("components") if isinstance(row.get("components"), list) else []
    kinds = [c.get("type") for c in children if isinstance(c, dict)]
    if any(k not in SELECT_TYPES and k != BUTTON for k in kinds):
        err.add(f"{p}.components", "UNION_TYPE_CHOICES",
                "An action row holds only buttons and selects.")
    elif not children or len(children) > 5:
        err.add(f"{p}.components", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length.")
    elif any(k in SELECT_TYPES for k in kinds) and len(children) != 1:
        err.add(f"{p}.components", "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                "The specified component exceeds the maximum width")


def check_legacy_layout(err: FormErrors, components: list[Any]) -> None:
    if len(components) > 5:
        err.add("components", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
    for i, row in enumerate(components):
        if not isinstance(row, dict) or row.get("type") != ROW:
            err.add(f"components.{i}.type", "UNION_TYPE_CHOICES",
                    'Value of field "type" must be 1.')
        else:
            check_row(err, f"components.{i}", row)


def check_v2_message(
    err: FormErrors, body: dict[str, Any], components: list[Any], setting_on: Any
) -> None:
    """A V2 message body. ``setting_on``: the stored message when this edit sets the flag
    (its content and embeds must be cleared in the same edit)."""
    for key in ("content", "embeds", "poll", "sticker_ids"):
        if body.get(key):
            err.add(key, V2_LEGACY, f"The '{key}' field cannot be used when using components v2")
    if setting_on is not None:
        for key, left in (("content", setting_on.content), ("embeds", setting_on.embed_dicts)):
            if left and key not in body:
                err.add(key, V2_LEGACY, f"The message's '{key}' must be cleared (null or "
                        "empty) in the edit that sets the components v2 flag")
    every = list(walk_components(components))
    if len(every) > V2_MAX_COMPONENTS:
        err.add("components", "BASE_TYPE_MAX_LENGTH",
                f"Must be {V2_MAX_COMPONENTS} or fewer in length.")
    text = sum(len(c["content"]) for c in every
               if c.get("type") == TEXT and isinstance(c.get("content"), str))
    if text > V2_TEXT_LIMIT:
        err.add("components", "BASE_TYPE_MAX_LENGTH",
                f"Text displays must hold {V2_TEXT_LIMIT} or fewer characters in all.")
    ids = [c["id"] for c in every if "id" in c]
    if len(ids) != len(set(map(str, ids))):
        err.add("components.id", "COMPONENT_ID_DUPLICATED", "Component ids must be unique")
    _place(err, "components", components, AT_TOP)


def _place(err: FormErrors, where: str, children: list[Any], allowed: set[int]) -> None:
    for i, comp in enumerate(children):
        p = f"{where}.{i}"
        if not isinstance(comp, dict) or comp.get("type") not in allowed:
            err.add(f"{p}.type", "UNION_TYPE_CHOICES",
                    f'Value of field "type" must be one of {sorted(allowed)}.')
            continue
        _check_v2_component(err, p, comp)


def _check_v2_component(err: FormErrors, p: str, comp: dict[str, Any]) -> None:
    kind = comp["type"]
    if kind == CONTAINER:
        children = comp.get("components")
        if not isinstance(children, list) or not children:
            err.add(f"{p}.components", "BASE_TYPE_REQUIRED", "This field is required")
        else:
            _place(err, f"{p}.components", children, IN_CONTAINER)
    elif kind == ROW:
        check_row(err, p, comp)
    elif kind == SECTION:
        texts = comp.get("components")
        if not isinstance(texts, list) or not 1 <= len(texts) <= 3:
            err.add(f"{p}.components", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 3 in length.")
        else:
            _place(err, f"{p}.components", texts, {TEXT})
        accessory = comp.get("accessory")
        if not isinstance(accessory, dict) or accessory.get("type") not in (BUTTON, THUMBNAIL):
            err.add(f"{p}.accessory", "UNION_TYPE_CHOICES",
                    'Value of field "type" must be one of (2, 11).')
        elif accessory["type"] == THUMBNAIL:
            _check_media(err, f"{p}.accessory", accessory, "media")
    elif kind == TEXT:
        content = comp.get("content")
        if not isinstance(content, str) or not content:
            err.add(f"{p}.content", "BASE_TYPE_REQUIRED", "This field is required")
    elif kind == GALLERY:
        items = comp.get("items")
        if not isinstance(items, list) or not 1 <= len(items) <= 10:
            err.add(f"{p}.items", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 10 in length.")
        else:
            for k, item in enumerate(items):
                _check_media(err, f"{p}.items.{k}", item, "media")
    elif kind == FILE:
        _check_media(err, p, comp, "file")
        url = (comp.get("file") or {}).get("url") if isinstance(comp.get("file"), dict) else None
        if isinstance(url, str) and not url.startswith(ATTACHMENT_SCHEME):
            err.add(f"{p}.file.url", "UNFURLED_MEDIA_ITEM_ATTACHMENT_REQUIRED",
                    "A file component takes only an attachment:// reference")
    elif kind == SEPARATOR and comp.get("spacing", 1) not in (1, 2):
        err.add(f"{p}.spacing", "BASE_TYPE_CHOICES", "Value must be one of (1, 2).")


def _check_media(err: FormErrors, p: str, holder: Any, key: str) -> None:
    """An unfurled media item (``url``: http(s) or ``attachment://``) and its alt text."""
    media = holder.get(key) if isinstance(holder, dict) else None
    url = media.get("url") if isinstance(media, dict) else None
    if not isinstance(url, str) or not url.startswith(("http://", "https://", ATTACHMENT_SCHEME)):
        err.add(f"{p}.{key}.url", "URL_TYPE_INVALID_URL", "Not a well formed URL.")
    description = holder.get("description") if isinstance(holder, dict) else None
    if description is not None and (
        not isinstance(description, str) or len(description) > MAX_MEDIA_DESCRIPTION
    ):
        err.add(f"{p}.description", "BASE_TYPE_MAX_LENGTH",
                f"Must be {MAX_MEDIA_DESCRIPTION} or fewer in length.")
