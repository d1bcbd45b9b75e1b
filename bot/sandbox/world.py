"""The sandbox's server: one guild, one #lama channel, members the page plays as.

It also turns the fake's messages into the JSON the page draws, so the page never sees
the fake's objects, only plain data (escaped by the page when drawn).
"""

from __future__ import annotations

import re
from typing import Any

from bot.words.i18n import N_, Translator
from fakediscord import MANAGE_GUILD, MANAGE_MESSAGES, FakeDiscord, Guild, Member, TextChannel
from fakediscord.dms import DmMessage
from fakediscord.messages import Message

from .layout import IS_COMPONENTS_V2, layout_json, row_json

FIRST_MEMBERS = ("ana", "ben", "cleo")
ADMIN = "ana"
"""The server's admin (Manage Server): the language switch runs ``/lama config`` as her."""

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".gif", ".webp")
MEMBER_NAME = re.compile(r"^[\w.-]{1,32}$")
APPLICATION_COMMAND = 2


class SandboxError(ValueError):
    """Something the page asked for that cannot be done: a msgid and its parameters."""

    def __init__(self, message: str, **params: object) -> None:
        super().__init__(message.format(**params))
        self.message = message
        self.params = params

    def text(self, tr: Translator) -> str:
        return tr(self.message, **self.params)


class World:
    """What the page shows: the guild, its channel and the members one can play as."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.guild: Guild = fake.add_guild("L.A.M.A. sandbox")
        self.channel: TextChannel = self.guild.add_text_channel("lama")
        self.members: list[Member] = []
        self.admin = self.add_member(ADMIN, permissions=MANAGE_GUILD | MANAGE_MESSAGES)
        for name in FIRST_MEMBERS[1:]:
            self.add_member(name)
        self.language = "auto"

    def add_member(self, name: str, *, permissions: int | None = None) -> Member:
        """A new member the page can play as (names: letters, digits, ``.-_``; unique)."""
        name = name.strip()
        if not MEMBER_NAME.match(name):
            raise SandboxError(N_("A name is 1 to 32 letters, digits, '.', '-' or '_'."))
        if any(m.name.casefold() == name.casefold() for m in self.members):
            raise SandboxError(N_("There is already a member called {name}."), name=name)
        member = self.guild.add_member(name, permissions=permissions)
        self.members.append(member)
        return member

    def member(self, member_id: object) -> Member:
        for member in self.members:
            if str(member.id) == str(member_id):
                return member
        raise SandboxError(N_("No such member."))

    def message(self, message_id: object) -> Message:
        try:
            msg = self.fake.messages[int(str(message_id))]
        except (KeyError, ValueError):
            raise SandboxError(N_("That message is gone.")) from None
        if msg.deleted or not self.shows(msg.channel):
            raise SandboxError(N_("That message is gone."))
        return msg

    # --- the channel and its threads (a game per thread: cogs/threads.py) ------------------
    def threads(self) -> list[TextChannel]:
        """The threads of #lama (a game's, once the server plays in threads)."""
        return [t for t in self.guild.threads
                if getattr(t, "parent", None) is self.channel and not t.deleted]

    def shows(self, channel: TextChannel) -> bool:
        """Whether the page shows ``channel``: #lama or one of its threads."""
        return channel is self.channel or channel in self.threads()

    def channel_of(self, channel_id: object) -> TextChannel:
        """The channel the page sends to: #lama (no id given) or one of its threads."""
        if channel_id in (None, "", str(self.channel.id)):
            return self.channel
        for thread in self.threads():
            if str(thread.id) == str(channel_id):
                return thread
        raise SandboxError(N_("That thread is gone."))

    def channels_json(self) -> list[dict[str, Any]]:
        """The channels the member can switch between: #lama, then its threads."""
        return [{"id": str(c.id), "name": c.name, "thread": c is not self.channel,
                 "archived": bool(getattr(c, "archived", False))}
                for c in (self.channel, *self.threads())]

    # --- direct messages (a relaxed game's opt-in DM: cogs/direct.py) ----------------------
    def dms_json(self) -> dict[str, list[dict[str, Any]]]:
        """The bot's DMs to each member the page plays as, oldest first, by member id (the
        page shows a member only their own: their "Direct messages")."""
        return {str(m.id): [self.dm_json(dm) for dm in self.fake.dms.to(m)]
                for m in self.members}

    def dm_json(self, dm: DmMessage) -> dict[str, Any]:
        """A DM in the shape of a channel's message (``channel`` "dm"), drawn the same way:
        text and embeds only (the bot sends no files or buttons to a DM)."""
        return {
            "id": str(dm.id), "channel": "dm", "to": None, "author": self.fake.bot_user.name,
            "bot": True, "time": dm.timestamp, "edited": False, "deleted": False,
            "loading": False, "used": None, "content": dm.content or None,
            "attachments": [], "embeds": [_embed_json(e, []) for e in dm.embeds],
            "v2": False, "layout": [], "rows": [],
        }

    @property
    def commands(self) -> list[dict[str, Any]]:
        """The bot's synced slash commands (global, and this guild's)."""
        return [*self.fake.global_commands, *self.fake.guild_commands.get(self.guild.id, [])]

    # --- what the page draws ------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        return {
            "type": "snapshot",
            "guild": self.guild.name,
            "channel": self.channel.name,
            "bot": self.fake.bot_user.name,
            "members": [self.member_json(m) for m in self.members],
            "names": self.mention_names(),
            "language": self.language,
            "commands": self.commands,
            "channels": self.channels_json(),
            "dms": self.dms_json(),
            "messages": [self.message_json(m) for m in self.fake.messages.values()
                         if self.shows(m.channel) and not m.deleted],
        }

    def member_json(self, member: Member) -> dict[str, Any]:
        return {"id": str(member.id), "name": member.name, "admin": member is self.admin}

    def message_json(self, msg: Message) -> dict[str, Any]:
        """One message as the page needs it; ``to`` is the member an ephemeral is for."""
        files = self._attachments(msg)
        v2 = bool(msg.flags & IS_COMPONENTS_V2)
        layout, shown = layout_json(msg.component_dicts, files) if v2 else ([], set())
        embeds = [] if v2 else [_embed_json(e, files) for e in msg.embed_dicts]
        shown |= {src for e in embeds for src in (e["image"], e["thumbnail"]) if src}
        return {
            "id": str(msg.id),
            "channel": str(msg.channel.id),
            "to": str(msg.ephemeral_to.id) if msg.ephemeral_to is not None else None,
            "author": msg.author.name,
            "bot": msg.author.bot,
            "time": msg.timestamp,
            "edited": msg.edited_timestamp is not None,
            "deleted": msg.deleted,
            "loading": msg.loading,
            "used": self._used(msg),
            "content": None if v2 else msg.content,
            # a V2 message shows a file only where a component references it; an older
            # message shows every file its embeds do not
            "attachments": [] if v2 else [{k: f[k] for k in ("filename", "url", "image")}
                                          for f in files if f["url"] not in shown],
            "embeds": embeds,
            "v2": v2,
            "layout": layout,
            "rows": [] if v2 else [row_json(row) for row in msg.component_dicts
                                   if isinstance(row, dict)],
        }

    def _attachments(self, msg: Message) -> list[dict[str, Any]]:
        """The message's files the sandbox kept, at the page's own address."""
        found = []
        for attachment in msg.attachments:
            aid = int(attachment.get("id", 0))
            name = str(attachment.get("filename", "file"))
            if aid in self.fake.files:
                found.append({"filename": name, "url": f"/attachments/{aid}",
                              "image": name.lower().endswith(IMAGE_SUFFIXES),
                              "cdn": attachment.get("url")})
        return found

    def mention_names(self) -> dict[str, str]:
        return {str(m.id): m.name for m in self.guild.members}

    def _used(self, msg: Message) -> dict[str, str] | None:
        """"ana used /lama start" above a command's answer, as Discord shows it."""
        meta = msg.interaction_metadata
        if not meta:
            return None
        inter = self.fake.interactions.get(int(meta["id"]))
        if inter is None or inter.type != APPLICATION_COMMAND:
            return None
        names = [inter.data.get("name", "")]
        options = inter.data.get("options") or []
        while options and options[0].get("type") in (1, 2):
            names.append(options[0]["name"])
            options = options[0].get("options") or []
        return {"user": meta["user"]["username"], "command": "/" + " ".join(names)}


def _embed_json(data: dict[str, Any], files: list[dict[str, Any]]) -> dict[str, Any]:
    """An embed; its image only from the message's own files (the page loads nothing else)."""
    local = {f"attachment://{f['filename']}": f["url"] for f in files if f["image"]}
    return {
        "title": data.get("title"),
        "description": data.get("description"),
        "color": data.get("color"),
        "author": (data.get("author") or {}).get("name"),
        "footer": (data.get("footer") or {}).get("text"),
        "fields": [{"name": f.get("name", ""), "value": f.get("value", ""),
                    "inline": bool(f.get("inline"))} for f in data.get("fields") or []],
        "image": local.get(str((data.get("image") or {}).get("url"))),
        "thumbnail": local.get(str((data.get("thumbnail") or {}).get("url"))),
    }
