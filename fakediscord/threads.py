"""Threads: public (type 11) and private (type 12) threads of a text channel.

Rules from Discord's threads and channel documentation: a thread started from a message is
public and takes the message's id; posting in an archived thread unarchives it unless it is
locked; nothing may be edited in an archived thread (50083); posting needs Send Messages in
Threads, not Send Messages.
"""

from __future__ import annotations

from typing import Any

from .model import TextChannel

PUBLIC_THREAD, PRIVATE_THREAD = 11, 12
ARCHIVE_DURATIONS = (60, 1440, 4320, 10080)
ARCHIVED_THREAD = 50083  # "Operation is not allowed in an archived thread"
THREAD_LOCKED = 160005  # "Thread is locked"
THREAD_ALREADY_CREATED = 160004  # "A thread has already been created for this message"


class Thread(TextChannel):
    """A thread; its permissions are its parent's (shared overwrites)."""

    def __init__(self, parent: TextChannel, id: int, name: str, type: int, owner_id: int) -> None:
        super().__init__(parent.guild, id, name, parent.position)
        self.parent = parent
        self.type = type
        self.owner_id = owner_id
        self.archived = False
        self.locked = False
        self.auto_archive_duration = 1440
        self.overwrites = parent.overwrites
        self.overwrite_types = parent.overwrite_types

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild.id),
            "parent_id": str(self.parent.id),
            "owner_id": str(self.owner_id),
            "name": self.name,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "flags": 0,
            "message_count": 0,
            "member_count": 1,
            "total_message_sent": 0,
            "thread_metadata": {
                "archived": self.archived,
                "auto_archive_duration": self.auto_archive_duration,
                "archive_timestamp": self.guild.fake.clock.iso(),
                "locked": self.locked,
                "invitable": self.type == PRIVATE_THREAD,
            },
        }

    async def archive(self, *, locked: bool = False) -> None:
        """Archive (and maybe lock) the thread, as a moderator or Discord's timer would."""
        self.archived = True
        self.locked = locked
        await self.guild.fake.gateway.dispatch("THREAD_UPDATE", self.payload())

    def update(self, body: dict[str, Any]) -> None:
        """PATCH /channels/{thread}: archived, locked, name, auto_archive_duration."""
        for key in ("archived", "locked"):
            if isinstance(body.get(key), bool):
                setattr(self, key, body[key])
        if isinstance(body.get("name"), str):
            self.name = body["name"]
        if body.get("auto_archive_duration") in ARCHIVE_DURATIONS:
            self.auto_archive_duration = body["auto_archive_duration"]
        self.guild.fake.gateway.dispatch_nowait("THREAD_UPDATE", self.payload())

    def __repr__(self) -> str:
        return f"<Thread #{self.name} {self.id} in #{self.parent.name}>"


def new_thread(
    parent: TextChannel, name: str, *, type: int, owner_id: int, id: int | None = None
) -> Thread:
    """Create a thread and announce it (THREAD_CREATE)."""
    fake = parent.guild.fake
    thread = Thread(parent, id or fake.snowflakes.next(), name, type, owner_id)
    parent.guild.threads.append(thread)
    data = {**thread.payload(), "newly_created": True}
    fake.gateway.dispatch_nowait("THREAD_CREATE", data, parent.guild.id)
    return thread
