"""Components V2: one place turns a rendered message into Discord's modern layout.

The rendering functions (cogs/render.py, hand_view.py, endings.py, ladder_text.py...) stay
pure and say *what* a message shows: a turn line, a title, a body, named sections (fields),
a picture, a footer, its buttons. :func:`layout` lays that out as one card: the turn line
above it (where a mention reads first), then one container holding the title and body, a
text display per section, the picture in a media gallery (``attachment://name``), the
footer in small print and, under a divider, the buttons that act on what is shown.

The message carries the flag ``IS_COMPONENTS_V2`` (discord.py sets it for any view whose
``has_components_v2()`` is true); with it Discord refuses ``content`` and ``embeds``, so an
edit of a message posted before the upgrade (an embed) clears both in the same edit
(:meth:`Layout.kwargs`' ``edit``): the message turns into its V2 form in place, and keeps
its id, so the buttons, the one-table-per-round rule and the hour-old rule are unchanged.

Discord's limits, and what gives way first when a message would pass them (never reached
by today's messages: the most crowded, a Kadabra hand with every play, the give-a-chip menu,
Draw and Quit, counts 27 of the 40 components and about 600 of the 4,000 characters in any
of the five languages, tests/bot/test_layout.py; a hand keeps at most five rows of buttons,
cogs/hand_view.py, so no hand passes 34):

- 40 components, nested ones counted: first the divider goes, then the sections are merged
  into the body's text display, then the picture (the text says everything it shows); the
  buttons go last, a row at a time from the end, never the row the hand's Quit is on.
- 4,000 characters of text in all: first the footer, then the sections from the last, then
  the body is clipped.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from functools import lru_cache
from types import SimpleNamespace
from typing import Any

import discord

from bot.words.markdown import escape

MAX_COMPONENTS = 40
MAX_TEXT = 4000
TEXT, CONTAINER, ROW, GALLERY, FILE, SEPARATOR = 10, 17, 1, 12, 13, 14  # component types
SCHEME = "attachment://"


class Layout:
    """A V2 message's components, as Discord's JSON (like cogs.render.Components: sent as a
    finished view, so discord.py stores nothing for it; the clicks are routed by
    bot/process/clicks.py)."""

    __discord_ui_view__ = True
    timeout = None

    def __init__(self, components: list[dict[str, Any]]) -> None:
        self.components = components

    def to_components(self) -> list[dict[str, Any]]:
        return self.components

    def is_finished(self) -> bool:
        return True

    def is_dispatchable(self) -> bool:
        return False

    def has_components_v2(self) -> bool:
        return True

    def texts(self) -> list[str]:
        """Every text display's content, in order (what a reader sees as text)."""
        return [c["content"] for c in walk(self.components) if c.get("type") == TEXT]


class _Part(SimpleNamespace):
    """A part of a :class:`Sheet` (footer, picture, field) read as an Embed's: its keys as
    attributes, None for any other, false when empty."""

    def __getattr__(self, name: str) -> None:  # (called only for a key it has not got)
        return None

    def __len__(self) -> int:
        return len(vars(self))


class Sheet:
    """What a rendered message shows (title, body, sections, picture, footer): the layout's
    input, with the part of :class:`discord.Embed`'s interface the renderers use and its
    :meth:`to_dict` (the same dict, for the outbox's bodies), without its cost: the hands
    and the table are drawn at every move, and discord.py never sends them as embeds."""

    __slots__ = (
        "_fields",
        "_footer",
        "_image",
        "colour",
        "description",
        "timestamp",
        "title",
    )
    type = "rich"

    def __init__(self, *, title: str | None = None, colour: discord.Colour | None = None,
                 description: str | None = None,
                 timestamp: datetime.datetime | None = None) -> None:
        self.title = title
        self.description = description
        self.colour = colour
        self.timestamp = timestamp
        self._footer: dict[str, Any] | None = None
        self._image: dict[str, Any] | None = None
        self._fields: list[dict[str, Any]] | None = None

    @property
    def footer(self) -> Any:
        """As an Embed's: ``.text`` (None when unset)."""
        return _Part(**(self._footer or {}))

    @property
    def image(self) -> Any:
        """As an Embed's: ``.url`` (None when unset); false when there is none."""
        return _Part(**(self._image or {}))

    @property
    def fields(self) -> list[Any]:
        """As an Embed's: each with ``.name``, ``.value``, ``.inline``."""
        return [_Part(**f) for f in self._fields or ()]

    def set_footer(self, *, text: str | None = None) -> Sheet:
        self._footer = {} if text is None else {"text": str(text)}
        return self

    def set_image(self, *, url: str | None) -> Sheet:
        self._image = None if url is None else {"url": str(url)}
        return self

    def add_field(self, *, name: str, value: str, inline: bool = True) -> Sheet:
        field = {"inline": inline, "name": str(name), "value": str(value)}
        if self._fields is None:
            self._fields = [field]
        else:
            self._fields.append(field)
        return self

    def remove_field(self, index: int) -> Sheet:
        if self._fields is not None and -len(self._fields) <= index < len(self._fields):
            del self._fields[index]
        return self

    def to_dict(self) -> dict[str, Any]:
        """As :meth:`discord.Embed.to_dict` gives it (the same keys, in the same order)."""
        result: dict[str, Any] = {}
        if self._footer is not None:
            result["footer"] = self._footer
        if self._image is not None:
            result["image"] = self._image
        if self._fields is not None:
            result["fields"] = self._fields
        result["flags"] = 0
        if self.colour is not None:
            result["color"] = self.colour.value
        if self.timestamp is not None:
            result["timestamp"] = self.timestamp.astimezone(tz=datetime.UTC).isoformat()
        result["type"] = self.type
        if self.description:
            result["description"] = self.description
        if self.title:
            result["title"] = self.title
        return result


def walk(components: Iterable[dict[str, Any]]) -> Iterable[dict[str, Any]]:
    """Every component, nested ones included (rows, containers, sections, accessories)."""
    for component in components:
        yield component
        yield from walk(component.get("components", ()))
        if "accessory" in component:
            yield component["accessory"]


def count(components: Iterable[dict[str, Any]]) -> int:
    """The components Discord counts against its 40."""
    return sum(1 for _ in walk(components))


def text_length(components: Iterable[dict[str, Any]]) -> int:
    return sum(len(c["content"]) for c in walk(components) if c.get("type") == TEXT)


def text(content: str) -> dict[str, Any]:
    return {"type": TEXT, "content": content}


def gallery(url: str) -> dict[str, Any]:
    return {"type": GALLERY, "items": [{"media": {"url": url}}]}


def layout(content: str | None, embed: dict[str, Any] | None,
           rows: Sequence[dict[str, Any]] = (), files: Sequence[str] = ()
           ) -> list[dict[str, Any]]:
    """``content`` (the turn line), ``embed`` (a rendered message's title, body, sections,
    picture and footer, as :meth:`discord.Embed.to_dict` gives them) and the action
    ``rows``, as one V2 card within Discord's limits (the module docstring). ``files``:
    the names of the message's uploads; those the picture does not show are listed as file
    components (a V2 message shows only the uploads a component references)."""
    embed = embed or {}
    title, body = embed.get("title"), embed.get("description")
    head = "\n".join(x for x in (f"### {title}" if title else None, body) if x)
    fields = [f"**{f['name']}**\n{f['value']}" for f in embed.get("fields", ())]
    footer = (embed.get("footer") or {}).get("text")
    small = _small(footer) if footer else None
    image = (embed.get("image") or {}).get("url")
    top = content or None
    head, fields, small = _fit_text(top, head, fields, small)
    rows = list(rows)
    shown_files = [{"type": FILE, "file": {"url": f"{SCHEME}{name}"}} for name in files
                   if f"{SCHEME}{name}" != image]
    parts = {"divider": bool(rows), "fields": True, "image": image is not None}

    def build() -> list[dict[str, Any]]:
        inner: list[dict[str, Any]] = []
        if parts["fields"]:
            inner += [text(x) for x in (head, *fields) if x]
        else:
            inner.append(text("\n\n".join(x for x in (head, *fields) if x)))
        if parts["image"] and image is not None:
            inner.append(gallery(image))
        inner += shown_files
        if small:
            inner.append(text(small))
        if rows and parts["divider"]:
            inner.append({"type": SEPARATOR, "divider": True, "spacing": 1})
        inner += rows
        card: dict[str, Any] = {"type": CONTAINER, "components": inner}
        if embed.get("color") is not None:
            card["accent_color"] = embed["color"]
        return ([text(top)] if top else []) + [card]

    def counted(built: list[dict[str, Any]]) -> int:  # (= count(built), without a walk:
        # the container holds leaves and rows, rows hold leaves)
        return (len(built) + len(built[-1]["components"])
                + sum(len(row["components"]) for row in rows))

    built = build()
    for give in ("divider", "fields", "image"):  # what gives way first
        if counted(built) <= MAX_COMPONENTS:
            return built
        parts[give] = False
        built = build()
    while counted(built) > MAX_COMPONENTS and len(rows) > 1:
        del rows[-2]  # (the last row, Quit's, stays)
        built = build()
    return built


@lru_cache(maxsize=256)  # (a game's footer says its rules: the same at every move)
def _small(footer: str) -> str:
    """A footer was shown literally; a text display renders markdown: escaped, line by line."""
    return "\n".join(f"-# {escape(line)}" for line in footer.split("\n"))


def _fit_text(top: str | None, head: str, fields: list[str], small: str | None
              ) -> tuple[str, list[str], str | None]:
    """The texts within :data:`MAX_TEXT` in all: the footer goes first, then the sections
    from the last, then the body is clipped."""
    def total() -> int:
        return sum(len(x) for x in (top, head, *fields, small) if x)

    if total() <= MAX_TEXT:
        return head, fields, small
    small = None
    while fields and total() > MAX_TEXT:
        fields = fields[:-1]
    if total() > MAX_TEXT:
        room = max(MAX_TEXT - (total() - len(head)) - 1, 0)
        head = head[:room] + "…"
    return head, fields, small


def rows_of(view: Any) -> list[dict[str, Any]]:
    """A view's action rows (cogs.render.Components, a discord.ui.View, or none)."""
    return [] if view is None else list(view.to_components())


def shown_text(message: discord.Message) -> str:
    """What a message shows as text: its content and embeds (posted before the upgrade)
    or its V2 text displays (public API: ``Message.components`` and their children)."""
    parts = [message.content] if message.content else []
    parts += [e.description or "" for e in message.embeds]
    parts += [c.content for c in _walk_message(message.components)
              if isinstance(c, discord.components.TextDisplay)]
    return "\n".join(parts)


def _walk_message(components: Iterable[Any]) -> Iterable[Any]:
    for component in components:
        yield component
        yield from _walk_message(getattr(component, "children", ()))
        accessory = getattr(component, "accessory", None)
        if accessory is not None:
            yield accessory
