"""Components V2 messages written out as Discord's documented JSON, and the page's form of them.

Field names as in discord-api-types (payloads/v10/message.ts): a container (17) with
``accent_color`` and ``components``; a text display (10) with ``content``; a section (9) with
``components`` and an ``accessory``; a thumbnail (11) and the items of a media gallery (12)
with ``media.url``; a file (13) with ``file.url``; a separator (14) with ``divider`` and
``spacing``; action rows (1) of buttons (2) and string selects (3).
"""

from __future__ import annotations

from typing import Any

from bot.sandbox.layout import layout_json
from bot.words.i18n import translator

V2 = 1 << 15
GOLD = 0xF0B232


def text(content: str) -> dict[str, Any]:
    return {"type": 10, "content": content}


def button(label: str, custom_id: str, style: int = 2) -> dict[str, Any]:
    return {"type": 2, "style": style, "label": label, "custom_id": custom_id}


def row(*items: dict[str, Any]) -> dict[str, Any]:
    return {"type": 1, "components": list(items)}


def card(*components: dict[str, Any], accent: int | None = GOLD) -> dict[str, Any]:
    found: dict[str, Any] = {"type": 17, "components": list(components)}
    if accent is not None:
        found["accent_color"] = accent
    return found


def table(lang: str, to_act: str, others: tuple[str, ...], deadline: int,
          game: str = "g1") -> list[dict[str, Any]]:
    """A table in `lang` whose turn marker (▶️, ◀️ right to left) is on `to_act`; the bot's
    own words."""
    tr = translator(lang)
    seat = [f"{tr.turn_marker} **{to_act}** · {tr.plural('{n} card', '{n} cards', 5)}"]
    seat += [f"▫️ **{name}** · {tr.plural('{n} card', '{n} cards', 6)}" for name in others]
    body = "\n".join([
        tr("Top card: {card}", card="🟡3"),
        tr.plural("{n} card left to draw", "{n} cards left to draw", 40),
        "", *seat, "", f"⏱ <t:{deadline}:R> · `/lama hand`",
    ])
    return [card(
        text(f"### {tr('{title}: round {n}', title='L.A.M.A.', n=2)}\n{body}"),
        {"type": 12, "items": [{"media": {"url": "attachment://table.png"},
                                "description": "the discard pile"}]},
        {"type": 14, "divider": True, "spacing": 1},
        row(button("🃏 " + tr("My hand"), f"lama:v2:hand:{game}", 1),
            button(tr("Rules"), f"lama:v2:rules:{game}")),
    )]


def kitchen_sink(when: int) -> list[dict[str, Any]]:
    """Every component kind once, and every timestamp style."""
    styles = " · ".join(f"{s}: <t:{when}:{s}>" for s in "tTdDfF")
    return [
        text("A line above the card, with a **bold** word"),
        card(
            text("# Heading\n## Smaller\n- a list item\n-# small print"),
            {"type": 9, "components": [text("A section with a thumbnail beside it")],
             "accessory": {"type": 11, "media": {"url": "attachment://thumb.png"}}},
            {"type": 9, "components": [text("A section with a button beside it")],
             "accessory": button("Beside", "lama:v2:side:g1", 3)},
            {"type": 14, "divider": False, "spacing": 2},
            text(f"{styles}\nrelative: <t:{when}:R>"),
            {"type": 12, "items": [{"media": {"url": "attachment://a.png"}},
                                   {"media": {"url": "attachment://b.png"}}]},
            {"type": 13, "file": {"url": "attachment://record.json"}},
            {"type": 14},
            row(button("One", "lama:v2:one:g1", 1), button("Two", "lama:v2:two:g1", 4)),
            row({"type": 3, "custom_id": "lama:v2:pick:g1", "placeholder": "Pick…",
                 "options": [{"label": "ana", "value": "1"}, {"label": "ben", "value": "2"}]}),
            accent=0x5865F2,
        ),
    ]


FILES = ("table.png", "thumb.png", "a.png", "b.png", "record.json", "unused.png")


def page_message(message_id: int, components: list[dict[str, Any]], *, to: str | None = None,
                 ) -> dict[str, Any]:
    """The message as bot/sandbox/world.py sends it to the page (its files: /attachments/N)."""
    files = [{"filename": name, "url": f"/attachments/{i + 1}",
              "image": name.endswith(".png"), "cdn": None} for i, name in enumerate(FILES)]
    layout, _ = layout_json(components, files)
    return {"id": str(message_id), "to": to, "author": "lama", "bot": True,
            "time": "2026-01-01T00:00:00+00:00", "edited": False, "deleted": False,
            "loading": False, "used": None, "content": None, "attachments": [], "embeds": [],
            "v2": True, "layout": layout, "rows": []}
