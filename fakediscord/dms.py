"""Direct messages: ``POST /users/@me/channels`` opens (or finds) the DM channel with a user,
``POST /channels/{dm}/messages`` posts in it.

A member may not accept DMs (their privacy settings, or they share no server with the bot):
Discord then answers the post 403 with code 50007 "Cannot send messages to this user" (the
channel itself is still opened). The fake's switch is per user: :meth:`Dms.refuse` and
:meth:`Dms.accept`. That answer is Discord's normal reply to a member's choice, so it is not
recorded as a refusal of the bot's request (``fake.refusals``). A repeated ``nonce`` with
``enforce_nonce`` returns the first message, as in a guild channel. DMs go to no gateway
(the bot asks for no DM intent); tests read them from :attr:`Dms.messages`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from aiohttp import web

from .base import Clock, Notifier, Snowflakes
from .people import User
from .validate import ApiError, check_message, unknown
from .wire import json_response, read_body


class Host(Protocol):
    """What the DMs use of the fake (``fakediscord.state.State``, which holds them)."""

    @property
    def snowflakes(self) -> Snowflakes: ...
    @property
    def keep_files(self) -> bool: ...
    @property
    def users(self) -> dict[int, User]: ...
    @property
    def bot_user(self) -> User: ...
    @property
    def clock(self) -> Clock: ...
    @property
    def notifier(self) -> Notifier[Any]: ...

DM_CHANNEL = 1
CANNOT_DM = 50007
UNKNOWN_USER = 10013


@dataclass
class DmMessage:
    id: int
    channel_id: int
    user_id: int  # the recipient
    content: str
    embeds: list[dict[str, Any]]
    timestamp: str

    def payload(self, author: dict[str, Any]) -> dict[str, Any]:
        return {"id": str(self.id), "channel_id": str(self.channel_id), "author": author,
                "content": self.content, "timestamp": self.timestamp,
                "edited_timestamp": None, "tts": False, "mention_everyone": False,
                "mentions": [], "mention_roles": [], "attachments": [],
                "embeds": self.embeds, "components": [], "pinned": False, "type": 0,
                "flags": 0}


@dataclass
class DmChannel:
    id: int
    user: User
    messages: list[DmMessage] = field(default_factory=list)

    def payload(self) -> dict[str, Any]:
        return {"id": str(self.id), "type": DM_CHANNEL, "last_message_id": None,
                "recipients": [self.user.payload()]}


class Dms:
    """The bot's DM channels and what it posted in them."""

    def __init__(self, fake: Host) -> None:
        self.fake = fake
        self.channels: dict[int, DmChannel] = {}
        self._by_user: dict[int, DmChannel] = {}
        self.refusing: set[int] = set()  # users who do not accept DMs
        self.refused = 0  # posts answered 50007
        self._nonces: dict[tuple[int, str], DmMessage] = {}

    # --- the switch ------------------------------------------------------------------------
    def refuse(self, user: Any) -> None:
        """``user`` (a member, a user or an id) stops accepting DMs."""
        self.refusing.add(int(getattr(user, "id", user)))

    def accept(self, user: Any) -> None:
        self.refusing.discard(int(getattr(user, "id", user)))

    def to(self, user: Any) -> list[DmMessage]:
        """The DMs ``user`` received, oldest first."""
        channel = self._by_user.get(int(getattr(user, "id", user)))
        return list(channel.messages) if channel is not None else []

    @property
    def messages(self) -> list[DmMessage]:
        return sorted((m for c in self.channels.values() for m in c.messages),
                      key=lambda m: m.id)

    # --- routes ----------------------------------------------------------------------------
    def add_to(self, app: web.Application, prefix: str) -> None:
        app.router.add_post(f"{prefix}/users/@me/channels", self.open)

    async def open(self, request: web.Request) -> web.Response:
        body = await read_body(request, self.fake)
        raw = body.get("recipient_id") if isinstance(body, dict) else None
        try:
            user = self.fake.users.get(int(str(raw)))
        except ValueError:
            user = None
        if user is None or user.id == self.fake.bot_user.id:
            raise unknown("User", UNKNOWN_USER)
        channel = self._by_user.get(user.id)
        if channel is None:
            channel = DmChannel(self.fake.snowflakes.next(), user)
            self.channels[channel.id] = channel
            self._by_user[user.id] = channel
        return json_response(channel.payload())

    def channel(self, channel_id: int) -> DmChannel | None:
        return self.channels.get(channel_id)

    async def create_message(self, request: web.Request, channel: DmChannel) -> web.Response:
        body = await read_body(request, self.fake)
        body = body if isinstance(body, dict) else {}
        check_message(body, create=True)
        if channel.user.id in self.refusing:
            self.refused += 1
            self.fake.notifier.notify()
            raise ApiError(403, CANNOT_DM, "Cannot send messages to this user", refusal=False)
        nonce = body.get("nonce")
        key = (channel.id, str(nonce))
        author = self.fake.bot_user.payload()
        if nonce is not None and body.get("enforce_nonce") and key in self._nonces:
            return json_response(self._nonces[key].payload(author))
        embeds = list(body.get("embeds") or [])
        message = DmMessage(self.fake.snowflakes.next(), channel.id, channel.user.id,
                            str(body.get("content") or ""), embeds, self.fake.clock.iso())
        channel.messages.append(message)
        if nonce is not None:
            self._nonces[key] = message
        self.fake.notifier.notify()
        return json_response(message.payload(author))
