"""A message's components as the page draws them: plain data, nothing the page must trust.

Components V2 (the message flag ``IS_COMPONENTS_V2``) lay a message out as a tree: a
container (17) with an accent colour holds text displays (10), sections (9: up to three
texts and a button or thumbnail beside them), thumbnails (11), media galleries (12), files
(13), separators (14) and action rows (1) of buttons (2) or selects (3, 5-8). Only the
fields the page draws are kept, and a picture only when it is one of the message's own
files: Discord shows an attachment only where a component references it
(``attachment://name``), and the page loads nothing but the sandbox's own files.
"""

from __future__ import annotations

from typing import Any

IS_COMPONENTS_V2 = 1 << 15
ACTION_ROW, BUTTON, STRING_SELECT = 1, 2, 3
AUTO_SELECTS = {5: "user", 6: "role", 7: "mentionable", 8: "channel"}
SECTION, TEXT, THUMBNAIL, GALLERY, FILE, SEPARATOR, CONTAINER = 9, 10, 11, 12, 13, 14, 17
MAX_DEPTH = 4  # a container holds rows and sections; nothing nests deeper on Discord


def media_map(files: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each of the message's files under the names a component may use for it:
    ``attachment://name`` (as sent) and the file's own URL (as the fake answers)."""
    found: dict[str, dict[str, Any]] = {}
    for f in files:
        found[f"attachment://{f['filename']}"] = f
        if f.get("cdn"):
            found[str(f["cdn"])] = f
    return found


def layout_json(components: list[dict[str, Any]], files: list[dict[str, Any]]
                ) -> tuple[list[dict[str, Any]], set[str]]:
    """The V2 tree as the page draws it, and the URLs of the files it shows."""
    media = media_map(files)
    used: set[str] = set()
    tree = [c for c in (_component(comp, media, used, 0) for comp in components) if c]
    return tree, used


def _component(comp: Any, media: dict[str, dict[str, Any]], used: set[str], depth: int
               ) -> dict[str, Any] | None:
    if not isinstance(comp, dict) or depth > MAX_DEPTH:
        return None
    kind = comp.get("type")

    def children(key: str = "components") -> list[dict[str, Any]]:
        items = comp.get(key) or []
        return [c for c in (_component(i, media, used, depth + 1) for i in items) if c]

    def picture(item: Any) -> dict[str, Any]:
        item = item if isinstance(item, dict) else {}
        found = media.get(str((item.get("media") or item.get("file") or {}).get("url")))
        if found is not None:
            used.add(found["url"])
        return {"url": found["url"] if found and found["image"] else None,
                "name": found["filename"] if found else None,
                "file": found["url"] if found else None,
                "description": _text(item.get("description")),
                "spoiler": bool(item.get("spoiler"))}

    if kind == CONTAINER:
        colour = comp.get("accent_color")
        return {"t": CONTAINER, "accent": colour if isinstance(colour, int) else None,
                "spoiler": bool(comp.get("spoiler")), "children": children()}
    if kind == TEXT:
        return {"t": TEXT, "text": _text(comp.get("content")) or ""}
    if kind == SECTION:
        accessory = _component(comp.get("accessory"), media, used, depth + 1)
        return {"t": SECTION, "children": children(), "accessory": accessory}
    if kind in (THUMBNAIL, FILE):
        return {"t": kind, **picture(comp)}
    if kind == GALLERY:
        return {"t": GALLERY, "items": [picture(i) for i in comp.get("items") or []][:10]}
    if kind == SEPARATOR:
        return {"t": SEPARATOR, "divider": comp.get("divider", True) is not False,
                "spacing": 2 if comp.get("spacing") == 2 else 1}
    if kind == ACTION_ROW:
        return {"t": ACTION_ROW, "items": row_json(comp)}
    if kind in (BUTTON, STRING_SELECT, *AUTO_SELECTS):  # a section's accessory
        items = row_json({"components": [comp]})
        return {"t": ACTION_ROW, "items": items} if items else None
    return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def row_json(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The buttons and selects of one action row, in order."""
    items: list[dict[str, Any]] = []
    for comp in row.get("components") or []:
        if not isinstance(comp, dict):
            continue
        kind = comp.get("type")
        if kind == BUTTON:
            items.append({
                "kind": "button",
                "label": _text(comp.get("label")) or "",
                "emoji": _text((comp.get("emoji") or {}).get("name")),
                "custom_id": _text(comp.get("custom_id")),
                "style": int(comp.get("style", 1)) if str(comp.get("style", 1)).isdigit() else 1,
                "link": bool(comp.get("url")),
                "disabled": bool(comp.get("disabled")),
            })
        elif kind == STRING_SELECT or kind in AUTO_SELECTS:
            items.append({
                "kind": "select",
                "custom_id": _text(comp.get("custom_id")),
                "placeholder": _text(comp.get("placeholder")) or "",
                # a user, role, mentionable or channel menu: shown, not chosen from here
                "disabled": bool(comp.get("disabled")) or kind != STRING_SELECT,
                "options": [{"label": _text(o.get("label")) or "",
                             "value": _text(o.get("value")) or "",
                             "description": _text(o.get("description"))}
                            for o in comp.get("options") or [] if isinstance(o, dict)],
            })
    return items
