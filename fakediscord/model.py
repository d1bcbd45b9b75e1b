"""Data model of the fake Discord: users, roles, members, text channels, guilds."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .base import ADMINISTRATOR, ALL_PERMISSIONS, DEFAULT_PERMISSIONS
from .messages import Message

if TYPE_CHECKING:
    from .driver import InteractionResult
    from .fake import FakeDiscord


class User:
    """A Discord user account."""

    def __init__(self, id: int, name: str, *, bot: bool = False, locale: str = "en-US") -> None:
        self.id = id
        self.name = name
        self.bot = bot
        self.locale = locale

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name,
            "global_name": None if self.bot else self.name,
            "discriminator": "0000" if self.bot else "0",
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
        }

    def __repr__(self) -> str:
        return f"<User {self.name} {self.id}>"


class Role:
    """A guild role; the @everyone role has the guild's id."""

    def __init__(self, guild: Guild, id: int, name: str, permissions: int, position: int) -> None:
        self.guild = guild
        self.id = id
        self.name = name
        self.permissions = permissions
        self.position = position
        self.managed = False

    def payload(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "managed": self.managed,
            "mentionable": False,
            "flags": 0,
            "icon": None,
            "unicode_emoji": None,
        }


class Member:
    """A user in a guild. The test drives users through slash/click/select/say."""

    def __init__(self, guild: Guild, user: User, roles: list[Role]) -> None:
        self.guild = guild
        self.user = user
        self.roles = roles
        self.joined_at = guild.fake.clock.iso()

    @property
    def id(self) -> int:
        return self.user.id

    @property
    def name(self) -> str:
        return self.user.name

    @property
    def locale(self) -> str:
        return self.user.locale

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def payload(self, *, with_user: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "roles": [str(r.id) for r in self.roles],
            "joined_at": self.joined_at,
            "nick": None,
            "avatar": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "premium_since": None,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user.payload()
        return data

    def guild_permissions(self) -> int:
        perms = self.guild.everyone.permissions
        for role in self.roles:
            perms |= role.permissions
        if self.guild.owner_id == self.id or perms & ADMINISTRATOR:
            return ALL_PERMISSIONS
        return perms

    def permissions_in(self, channel: TextChannel) -> int:
        """Permissions in a channel, applying its overwrites like Discord does."""
        base = self.guild_permissions()
        if base & ADMINISTRATOR:
            return ALL_PERMISSIONS
        ow = channel.overwrites
        allow, deny = ow.get(self.guild.id, (0, 0))
        base = (base & ~deny) | allow
        role_allow = role_deny = 0
        for role in self.roles:
            a, d = ow.get(role.id, (0, 0))
            role_allow |= a
            role_deny |= d
        base = (base & ~role_deny) | role_allow
        allow, deny = ow.get(self.id, (0, 0))
        return (base & ~deny) | allow

    @property
    def ephemerals(self) -> list[Message]:
        """Ephemeral messages only this member has seen, newest last (current state)."""
        fake = self.guild.fake
        return [m for m in fake.messages.values() if m.ephemeral_to is self and not m.deleted]

    async def wait_for_ephemeral(
        self, predicate: Callable[[Message], bool] | None = None, timeout: float = 5.0
    ) -> Message:
        """Wait for the next ephemeral message (created or edited) that this member sees."""
        return await _next_message(
            self.guild.fake, lambda m: m.ephemeral_to is self, predicate, timeout,
            f"an ephemeral message for {self.name}",
        )

    async def slash(self, channel: TextChannel, command: str, **options: Any) -> InteractionResult:
        """Run a slash command ("group sub" names), options as keyword arguments."""
        return await self.guild.fake.driver.slash(self, channel, command, options)

    async def autocomplete(
        self, channel: TextChannel, command: str, option: str, typed: str = "", **options: Any
    ) -> list[dict[str, Any]]:
        """Type `typed` into `option` of a slash command; return the bot's choices."""
        options[option] = typed
        result = await self.guild.fake.driver.slash(self, channel, command, options, option)
        return result.choices or []

    async def click(self, message: Message, button: str) -> InteractionResult:
        """Click a button of a message, found by label or custom_id."""
        return await self.guild.fake.driver.click(self, message, button)

    async def select(
        self, message: Message, *values: Any, custom_id: str | None = None
    ) -> InteractionResult:
        """Pick option(s) of a select menu, by label or value."""
        return await self.guild.fake.driver.select(self, message, list(values), custom_id)

    async def submit(self, result: InteractionResult, **values: str) -> InteractionResult:
        """Submit the modal the bot opened in `result` with text input values by custom_id."""
        return await self.guild.fake.driver.submit_modal(self, result, values)

    async def say(self, channel: TextChannel, content: str) -> Message:
        """Post a plain message in a channel as this member (MESSAGE_CREATE to the bot)."""
        return await self.guild.fake.driver.say(self, channel, content)

    def __repr__(self) -> str:
        return f"<Member {self.name} {self.id}>"


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
        return await _next_message(
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
        from .threads import new_thread

        return new_thread(self, name, type=type, owner_id=self.guild.owner_id)

    async def delete(self) -> None:
        """Delete the channel: CHANNEL_DELETE, then 404 Unknown Channel for it."""
        self.deleted = True
        await self.guild.fake.gateway.dispatch("CHANNEL_DELETE", self.payload())

    def __repr__(self) -> str:
        return f"<TextChannel #{self.name} {self.id}>"


class Guild:
    """A guild; the bot is always a member (guild.me)."""

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


async def _next_message(
    fake: FakeDiscord,
    where: Callable[[Message], bool],
    predicate: Callable[[Message], bool] | None,
    timeout: float,
    what: str,
) -> Message:
    """The next message created or edited from now on that is ``where`` and matches."""
    start = len(fake.notifier.events)

    def check() -> Message | None:
        for _kind, msg in fake.notifier.events[start:]:
            if where(msg) and not msg.deleted and (predicate is None or predicate(msg)):
                return msg
        return None

    return await fake.notifier.wait_for(check, timeout, what)
