"""Messages as the fake stores them, with readable views of embeds and components."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

EPHEMERAL = 1 << 6
LOADING = 1 << 7
IS_COMPONENTS_V2 = 1 << 15

BUTTON_STYLES = {1: "primary", 2: "secondary", 3: "success", 4: "danger", 5: "link", 6: "premium"}
SELECT_TYPES = {3, 5, 6, 7, 8}


@dataclass
class Button:
    """A button as the user sees it."""

    label: str | None
    custom_id: str | None
    style: int
    disabled: bool
    emoji: str | None
    url: str | None = None

    @property
    def style_name(self) -> str:
        return BUTTON_STYLES.get(self.style, str(self.style))


@dataclass
class SelectOption:
    """One option of a string select."""

    label: str
    value: str
    description: str | None = None
    default: bool = False
    emoji: str | None = None


@dataclass
class Select:
    """A select menu (string select has options; user/role/channel selects have none)."""

    custom_id: str
    type: int
    placeholder: str | None
    options: list[SelectOption]
    min_values: int
    max_values: int
    disabled: bool


@dataclass
class EmbedField:
    name: str
    value: str
    inline: bool


@dataclass
class Embed:
    """A readable embed."""

    title: str | None
    description: str | None
    fields: list[EmbedField] = field(default_factory=list)
    footer: str | None = None
    color: int | None = None
    author: str | None = None
    url: str | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Embed:
        return cls(
            title=data.get("title"),
            description=data.get("description"),
            fields=[
                EmbedField(f.get("name", ""), f.get("value", ""), bool(f.get("inline", False)))
                for f in data.get("fields", [])
            ],
            footer=(data.get("footer") or {}).get("text"),
            color=data.get("color"),
            author=(data.get("author") or {}).get("name"),
            url=data.get("url"),
        )

    @property
    def text(self) -> str:
        lines = [x for x in (self.author, self.title, self.description) if x]
        lines += [f"{f.name}: {f.value}" for f in self.fields]
        if self.footer:
            lines.append(self.footer)
        return "\n".join(lines)


def emoji_text(emoji: dict[str, Any] | None) -> str | None:
    if not emoji:
        return None
    return emoji.get("name") or None


def walk_components(components: Any) -> Iterator[dict[str, Any]]:
    """All components, depth first (action rows, containers, sections and their children,
    a section's accessory after its texts). Anything not a component dict is skipped (the
    validators refuse it)."""
    for comp in components if isinstance(components, list) else []:
        if not isinstance(comp, dict):
            continue
        yield comp
        yield from walk_components(comp.get("components"))
        accessory = comp.get("accessory")
        if isinstance(accessory, dict):
            yield from walk_components([accessory])


THUMBNAIL, MEDIA_GALLERY, FILE = 11, 12, 13
ATTACHMENT_SCHEME = "attachment://"


def media_items(components: Any) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """Every unfurled media item of a V2 message, with the component holding it: a
    thumbnail's ``media``, each gallery item's ``media``, a file component's ``file``."""
    for comp in walk_components(components):
        kind = comp.get("type")
        if kind == THUMBNAIL and isinstance(comp.get("media"), dict):
            yield comp, comp["media"]
        elif kind == MEDIA_GALLERY:
            for item in comp.get("items") if isinstance(comp.get("items"), list) else []:
                if isinstance(item, dict) and isinstance(item.get("media"), dict):
                    yield comp, item["media"]
        elif kind == FILE and isinstance(comp.get("file"), dict):
            yield comp, comp["file"]


def attachment_refs(components: Any) -> list[str]:
    """The file names a V2 message's components reference (``attachment://name``)."""
    refs = []
    for _, media in media_items(components):
        url = media.get("url")
        if isinstance(url, str) and url.startswith(ATTACHMENT_SCHEME):
            refs.append(url.removeprefix(ATTACHMENT_SCHEME))
    return refs


def number_components(components: list[dict[str, Any]]) -> None:
    """Discord gives every component of a V2 message an ``id`` (an int unique in the
    message): those left out are numbered in order, skipping ids the message uses
    (component reference, "Anatomy of a Component"). Numbered depth first here."""
    used = {c["id"] for c in walk_components(components) if isinstance(c.get("id"), int)}
    n = 0
    for comp in walk_components(components):
        if "id" not in comp:
            n += 1
            while n in used:
                n += 1
            comp["id"] = n


# What a message needs of the model above it (fakediscord.model's User, Member, Guild and
# TextChannel are these): the model imports messages, never the other way round.
class User(Protocol):
    @property
    def id(self) -> int: ...

    def payload(self) -> dict[str, Any]: ...


class Member(Protocol):
    @property
    def id(self) -> int: ...

    @property
    def user(self) -> User: ...

    def payload(self, *, with_user: bool = True) -> dict[str, Any]: ...


class Guild(Protocol):
    @property
    def id(self) -> int: ...

    @property
    def me(self) -> Member: ...

    @property
    def members(self) -> Sequence[Member]: ...


class TextChannel(Protocol):
    @property
    def id(self) -> int: ...

    @property
    def name(self) -> str: ...

    @property
    def guild(self) -> Guild: ...


class Message:
    """A message stored by the fake; mutated in place by edits."""

    def __init__(
        self,
        id: int,
        channel: TextChannel,
        author: User,
        timestamp: str,
        *,
        ephemeral_to: Member | None = None,
        type: int = 0,
        webhook_id: int | None = None,
    ) -> None:
        self.id = id
        self.channel = channel
        self.author = author
        self.timestamp = timestamp
        self.edited_timestamp: str | None = None
        self.ephemeral_to = ephemeral_to
        self.type = type
        self.webhook_id = webhook_id
        self.content = ""
        self.embed_dicts: list[dict[str, Any]] = []
        self.component_dicts: list[dict[str, Any]] = []
        self.flags = EPHEMERAL if ephemeral_to is not None else 0
        self.attachments: list[dict[str, Any]] = []
        self.deleted = False
        self.interaction_metadata: dict[str, Any] | None = None
        self.edits = 0
        self.pinged: list[int] = []  # the users its creation notified (:meth:`ping`)

    # --- wire format -------------------------------------------------------------------
    def apply(self, body: dict[str, Any]) -> None:
        """Apply a create/edit body: only the keys present change."""
        if "content" in body:
            self.content = body["content"] or ""
        if "embeds" in body:
            self.embed_dicts = list(body["embeds"] or [])
        elif "embed" in body:
            self.embed_dicts = [body["embed"]] if body["embed"] else []
        if "components" in body:
            self.component_dicts = list(body["components"] or [])
        if "flags" in body and body["flags"] is not None:
            # the V2 flag, once set, stays (Discord: it cannot be removed)
            keep = self.flags & (EPHEMERAL | LOADING | IS_COMPONENTS_V2)
            self.flags = (int(body["flags"]) & ~(EPHEMERAL | LOADING)) | keep
        if "attachments" in body:  # new uploads (with a url) and kept ones (by id)
            kept = {str(a.get("id")): a for a in self.attachments}
            self.attachments = [
                a if "url" in a else kept[str(a.get("id"))]
                for a in body["attachments"] or []
                if isinstance(a, dict) and ("url" in a or str(a.get("id")) in kept)
            ]
        if self.v2:  # (in place: the routes lint a request's body before it is stored)
            number_components(self.component_dicts)
            self._unfurl()

    def _unfurl(self) -> None:
        """What Discord adds to a media item that references an upload (``attachment://``):
        the attachment's id, proxy URL and type; a file component also gets its name and
        size. The ``url`` stays as sent (the fake's choice)."""
        by_name = {a.get("filename"): a for a in self.attachments}
        for comp, media in media_items(self.component_dicts):
            url = media.get("url")
            name = url.removeprefix(ATTACHMENT_SCHEME) if isinstance(url, str) else None
            found = by_name.get(name) if url != name else None
            if found is None:
                continue
            media.update({"attachment_id": found["id"], "proxy_url": found["proxy_url"],
                          "content_type": found.get("content_type")})
            if comp.get("type") == FILE:
                comp.update({"name": found["filename"], "size": found["size"]})

    def ping(self, body: dict[str, Any]) -> None:
        """On creation: the users it notifies, as Discord does: those mentioned in its
        content that its ``allowed_mentions`` allow (absent: every mention). An edit
        notifies nobody."""
        mentioned = dict.fromkeys(int(x) for x in re.findall(r"<@!?(\d+)>", self.spoken))
        allowed = body.get("allowed_mentions")
        if isinstance(allowed, dict) and "users" not in (allowed.get("parse") or []):
            ids = {int(u) for u in allowed.get("users") or []}
            mentioned = {u: None for u in mentioned if u in ids}
        self.pinged = list(mentioned)

    def payload(self) -> dict[str, Any]:
        guild = self.channel.guild
        data: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel.id),
            "guild_id": str(guild.id),
            "author": self.author.payload(),
            "content": self.content,
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
            "tts": False,
            "mention_everyone": False,
            "mentions": self._mentions(),
            "mention_roles": [],
            "attachments": self.attachments,
            "embeds": self.embed_dicts,
            "components": self.component_dicts,
            "pinned": False,
            "type": self.type,
            "flags": self.flags,
        }
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
            data["application_id"] = str(self.webhook_id)
        if self.interaction_metadata is not None:
            data["interaction_metadata"] = self.interaction_metadata
        if self.author.id != guild.me.id:
            member = next((m for m in guild.members if m.id == self.author.id), None)
            if member is not None:
                data["member"] = member.payload(with_user=False)
        return data

    def _mentions(self) -> list[dict[str, Any]]:
        users = {u.id: u for u in (m.user for m in self.channel.guild.members)}
        ids = dict.fromkeys(int(x) for x in re.findall(r"<@!?(\d+)>", self.spoken))
        return [users[i].payload() for i in ids if i in users]

    # --- readable views ----------------------------------------------------------------
    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        """True while this is a deferred 'thinking…' placeholder."""
        return bool(self.flags & LOADING)

    @property
    def v2(self) -> bool:
        """True for a Components V2 message (flag ``IS_COMPONENTS_V2``)."""
        return bool(self.flags & IS_COMPONENTS_V2)

    @property
    def shown_attachments(self) -> list[dict[str, Any]]:
        """The attachments a user sees: all of a legacy message's; of a V2 message only
        those a component references (``attachment://name``), the rest stay in
        ``attachments`` (as the API returns them) but are not shown."""
        if not self.v2:
            return list(self.attachments)
        refs = set(attachment_refs(self.component_dicts))
        return [a for a in self.attachments if a.get("filename") in refs]

    @property
    def embeds(self) -> list[Embed]:
        return [Embed.from_dict(e) for e in self.embed_dicts]

    @property
    def buttons(self) -> list[Button]:
        return [
            Button(
                label=c.get("label"),
                custom_id=c.get("custom_id"),
                style=int(c.get("style", 1)),
                disabled=bool(c.get("disabled", False)),
                emoji=emoji_text(c.get("emoji")),
                url=c.get("url"),
            )
            for c in walk_components(self.component_dicts)
            if c.get("type") == 2
        ]

    @property
    def selects(self) -> list[Select]:
        return [
            Select(
                custom_id=c.get("custom_id", ""),
                type=int(c["type"]),
                placeholder=c.get("placeholder"),
                options=[
                    SelectOption(
                        label=o.get("label", ""),
                        value=o.get("value", ""),
                        description=o.get("description"),
                        default=bool(o.get("default", False)),
                        emoji=emoji_text(o.get("emoji")),
                    )
                    for o in c.get("options", [])
                ],
                min_values=int(c.get("min_values", 1)),
                max_values=int(c.get("max_values", 1)),
                disabled=bool(c.get("disabled", False)),
            )
            for c in walk_components(self.component_dicts)
            if c.get("type") in SELECT_TYPES
        ]

    @property
    def spoken(self) -> str:
        """Where a mention pings: the content, or a V2 message's text displays (Discord's
        components reference: they ping as the content does, per ``allowed_mentions``)."""
        return "\n".join([self.content, *self.text_displays])

    @property
    def text_displays(self) -> list[str]:
        """Text of Components V2 text displays."""
        return [
            str(c.get("content", ""))
            for c in walk_components(self.component_dicts)
            if c.get("type") == 10
        ]

    @property
    def text(self) -> str:
        """Plain-text rendering of content, embeds and V2 text displays."""
        parts = [self.content] if self.content else []
        parts += [e.text for e in self.embeds]
        parts += self.text_displays
        return "\n".join(p for p in parts if p)

    def button(self, label_or_id: str) -> Button:
        """The button with this label or custom_id."""
        for b in self.buttons:
            if label_or_id in (b.label, b.custom_id):
                return b
        raise KeyError(f"no button {label_or_id!r} on message {self.id}: {self.buttons}")

    def __repr__(self) -> str:
        kind = "ephemeral " if self.ephemeral else ""
        return f"<{kind}Message {self.id} in #{self.channel.name}: {self.text[:60]!r}>"
