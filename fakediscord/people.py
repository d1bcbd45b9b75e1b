"""The fake Discord's people: user accounts, roles, and guild members, who act (slash
commands, clicks, selects, modals, messages) through the driver."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from .base import ADMINISTRATOR, ALL_PERMISSIONS, Clock, Notifier
from .messages import Message


# What people need of the parts above them, which import this module (never the other way
# round): the guild and channel (fakediscord.model), the fake (fakediscord.state.State), the
# driver (fakediscord.driver.Driver) and its answer (fakediscord.result.InteractionResult).
class TextChannel(Protocol):
    @property
    def overwrites(self) -> dict[int, tuple[int, int]]: ...


class InteractionResult(Protocol):
    @property
    def choices(self) -> list[dict[str, Any]] | None: ...


class Driver(Protocol):
    async def slash(
        self,
        member: Member,
        channel: TextChannel,
        command: str,
        options: dict[str, Any],
        focused: str | None = None,
    ) -> InteractionResult: ...

    async def click(self, member: Member, message: Message, button: str) -> InteractionResult: ...

    async def select(
        self, member: Member, message: Message, values: list[Any], custom_id: str | None
    ) -> InteractionResult: ...

    async def submit_modal(
        self, member: Member, result: InteractionResult, values: dict[str, str]
    ) -> InteractionResult: ...

    async def say(self, member: Member, channel: TextChannel, content: str) -> Message: ...


class FakeDiscord(Protocol):
    @property
    def clock(self) -> Clock: ...

    @property
    def notifier(self) -> Notifier[Message]: ...

    @property
    def messages(self) -> dict[int, Message]: ...

    @property
    def driver(self) -> Driver: ...


class Guild(Protocol):
    @property
    def id(self) -> int: ...

    @property
    def owner_id(self) -> int: ...

    @property
    def everyone(self) -> Role: ...

    @property
    def fake(self) -> FakeDiscord: ...


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
        return await next_message(
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


async def next_message(
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
