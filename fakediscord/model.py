"""Data model of the fake Discord: guilds and their text channels (their users, roles and
members: people.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from . import people
from .base import DEFAULT_PERMISSIONS, Snowflakes
from .messages import Message
from .people import Member, Role, User, next_message


# What the model needs of the parts above it, which import this module (never the other
# way round): the gateway (fakediscord.gateway.Gateway) and the fake
# (fakediscord.state.State, which makes threads with fakediscord.threads).
class Gateway(Protocol):
    @property
    def connected_once(self) -> bool: ...

    async def dispatch(self, event: str, data: Any, guild_id: int | None = None) -> None: ...

    def dispatch_nowait(self, event: str, data: Any, guild_id: int | None = None) -> None: ...

    async def flush(self) -> None: ...


class FakeDiscord(people.FakeDiscord, Protocol):
    @property
    def snowflakes(self) -> Snowflakes: ...

    @property
    def bot_user(self) -> User: ...

    @property
    def users(self) -> dict[int, User]: ...

    @property
    def gateway(self) -> Gateway: ...

    def new_thread(
        self, parent: TextChannel, name: str, *, type: int, owner_id: int
    ) -> TextChannel: ...


class TextChannel:
    """A guild text channel."""

    def __init__(self, guild: Guild, id: int, name: str, position: int) -> None:
        self.guild = guild
        self.id = id
        self.name = name
        self.position = position
        self.overwrites: dict[int, tuple[int, int]] = {}
        self.overwrite_types: dict[int, int] = {}
        self.deleted = False
        self.type = 0  # GUILD_TEXT; threads are 11 (public) or 12 (private)

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild.id),
            "name": self.name,
            "position": self.position,
            "parent_id": None,
            "topic": None,
            "nsfw": False,
            "last_message_id": None,
            "rate_limit_per_user": 0,
            "flags": 0,
            "permission_overwrites": [
                {
                    "id": str(target),
                    "type": self.overwrite_types[target],
                    "allow": str(allow),
                    "deny": str(deny),
                }
                for target, (allow, deny) in self.overwrites.items()
            ],
        }

    @property
    def messages(self) -> list[Message]:
        """Public messages in the channel, oldest first (current state after edits)."""
        fake = self.guild.fake
        return [
            m
            for m in fake.messages.values()
            if m.channel is self and m.ephemeral_to is None and not m.deleted
        ]

    async def wait_for_message(
        self, predicate: Callable[[Message], bool] | None = None, timeout: float = 5.0
    ) -> Message:
        """Wait for the next public message created or edited here that matches `predicate`."""
        return await next_message(
            self.guild.fake, lambda m: m.channel is self and m.ephemeral_to is None, predicate,
            timeout, f"a message in #{self.name}",
        )

    async def set_permissions(
        self, target: Member | Role, *, allow: int = 0, deny: int = 0
    ) -> None:
        """Set a permission overwrite (e.g. deny=SEND_MESSAGES for guild.me)."""
        self.overwrites[target.id] = (allow, deny)
        self.overwrite_types[target.id] = 1 if isinstance(target, Member) else 0
        await self.guild.fake.gateway.dispatch("CHANNEL_UPDATE", self.payload())

    def create_thread(self, name: str, *, type: int = 11) -> TextChannel:
        """A thread in this channel, started by a user (THREAD_CREATE); see threads.Thread."""
        return self.guild.fake.new_thread(self, name, type=type, owner_id=self.guild.owner_id)

    async def delete(self) -> None:
        """Delete the channel: CHANNEL_DELETE, then 404 Unknown Channel for it."""
        self.deleted = True
        await self.guild.fake.gateway.dispatch("CHANNEL_DELETE", self.payload())

    def __repr__(self) -> str:
        return f"<TextChannel #{self.name} {self.id}>"


class Guild:
    """A guild; the bot is a member (guild.me) until ``remove_bot`` (``add_bot`` again)."""

    def __init__(
        self, fake: FakeDiscord, id: int, name: str, *, locale: str, bot_permissions: int
    ) -> None:
        self.fake = fake
        self.id = id
        self.name = name
        self.preferred_locale = locale
        self.owner_id = fake.snowflakes.next()  # an absent owner: nobody gets owner rights
        self.everyone = Role(self, id, "@everyone", DEFAULT_PERMISSIONS, 0)
        self.roles: list[Role] = [self.everyone]
        self.channels: list[TextChannel] = []
        self.threads: list[TextChannel] = []  # fakediscord.threads.Thread
        self.members: list[Member] = []
        bot_role = self._new_role(fake.bot_user.name, bot_permissions)
        bot_role.managed = True
        self.me = self._add_member(fake.bot_user, [bot_role])
        self.bot_in = True  # False after remove_bot: no events, 403 Missing Access on REST

    async def remove_bot(self) -> None:
        """The bot is kicked (or the server deleted): GUILD_DELETE without ``unavailable``,
        which discord.py turns into ``on_guild_remove``; then no events and 403 50001."""
        self.fake.gateway.dispatch_nowait("GUILD_DELETE", {"id": str(self.id)}, self.id)
        await self.fake.gateway.flush()
        self.bot_in = False

    async def add_bot(self) -> None:
        """The bot is invited back: GUILD_CREATE without ``unavailable`` (``on_guild_join``)."""
        self.bot_in = True
        self.me.joined_at = self.fake.clock.iso()
        await self.fake.gateway.dispatch("GUILD_CREATE", self.join_payload(), self.id)

    def join_payload(self) -> dict[str, Any]:
        """GUILD_CREATE for a server the bot joins: no ``unavailable`` key (Discord sends
        ``unavailable: false`` only for servers it had announced in READY)."""
        data = self.payload()
        del data["unavailable"]
        return data

    def add_role(self, name: str, permissions: int) -> Role:
        """A new role (GUILD_ROLE_CREATE once the bot is connected)."""
        role = self._new_role(name, permissions)
        if self.fake.gateway.connected_once:
            self.fake.gateway.dispatch_nowait(
                "GUILD_ROLE_CREATE", {"guild_id": str(self.id), "role": role.payload()}
            )
        return role

    def _new_role(self, name: str, permissions: int) -> Role:
        role = Role(self, self.fake.snowflakes.next(), name, permissions, len(self.roles))
        self.roles.append(role)
        return role

    def add_text_channel(self, name: str) -> TextChannel:
        channel = TextChannel(self, self.fake.snowflakes.next(), name, len(self.channels))
        self.channels.append(channel)
        if self.fake.gateway.connected_once:
            self.fake.gateway.dispatch_nowait("CHANNEL_CREATE", channel.payload())
        return channel

    def add_member(
        self,
        name: str,
        *,
        locale: str = "en-US",
        permissions: int | None = None,
        roles: list[Role] | None = None,
    ) -> Member:
        """Add a human member; `permissions` gives them a role with those permissions."""
        user = User(self.fake.snowflakes.next(), name, locale=locale)
        member_roles = list(roles or [])
        if permissions is not None:
            member_roles.append(self.add_role(f"{name}-role", permissions))
        member = self._add_member(user, member_roles)
        if self.fake.gateway.connected_once:
            data = member.payload()
            data["guild_id"] = str(self.id)
            self.fake.gateway.dispatch_nowait("GUILD_MEMBER_ADD", data)
        return member

    def _add_member(self, user: User, roles: list[Role]) -> Member:
        member = Member(self, user, roles)
        self.members.append(member)
        self.fake.users[user.id] = user
        return member

    def member(self, name_or_id: str | int) -> Member:
        for m in self.members:
            if m.name == name_or_id or m.id == name_or_id:
                return m
        raise KeyError(name_or_id)

    def channel(self, name_or_id: str | int) -> TextChannel:
        for c in self.channels:
            if c.name == name_or_id or c.id == name_or_id:
                return c
        raise KeyError(name_or_id)

    def get_channel(self, channel_id: int) -> TextChannel | None:
        for c in self.channels + self.threads:
            if c.id == channel_id and not c.deleted:
                return c
        return None

    def payload(self) -> dict[str, Any]:
        """The full GUILD_CREATE payload."""
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "features": [],
            "mfa_level": 0,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "preferred_locale": self.preferred_locale,
            "public_updates_channel_id": None,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "emojis": [],
            "stickers": [],
            "roles": [r.payload() for r in self.roles],
            "channels": [c.payload() for c in self.channels if not c.deleted],
            "threads": [t.payload() for t in self.threads if not t.deleted],
            "members": [m.payload() for m in self.members],
            "member_count": len(self.members),
            "large": False,
            "unavailable": False,
            "joined_at": self.me.joined_at,
            "voice_states": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }

    def __repr__(self) -> str:
        return f"<Guild {self.name} {self.id}>"
