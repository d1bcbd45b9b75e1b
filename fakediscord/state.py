"""The fake's state: everything it knows (guilds, users, messages, interactions, records),
and the helpers every route uses to change it and tell the bot.

:class:`State` sits below the routes, the gateway and the driver, which all take it;
:class:`fakediscord.fake.FakeDiscord` is a State that also runs the server and the bot. What
the state needs of the gateway and the driver above it is written here as protocols.
"""

from __future__ import annotations

import logging
import os
import secrets
import time
from dataclasses import dataclass
from typing import Any, Protocol

from aiohttp import web

from . import model, people
from .base import DEFAULT_PERMISSIONS, Clock, Notifier, Snowflakes
from .faults import Fault
from .lint import Lint
from .messages import Message
from .model import Guild, Member, TextChannel, User
from .ratelimit import Pacing
from .threads import new_thread
from .validate import ApiError

log = logging.getLogger("fakediscord.fake")


@dataclass
class Refusal:
    """A request the fake refused like Discord would (4xx)."""

    method: str
    path: str
    status: int
    code: int
    message: str
    errors: Any = None


@dataclass
class Failure:
    """An interaction the user saw fail ("This interaction failed")."""

    interaction_id: int
    user: str
    reason: str


DISCORD_INTERACTION_TIMEOUT = 3.0
"""Seconds Discord waits for an interaction's first answer."""
TIMEOUT_VARIABLE = "FAKEDISCORD_INTERACTION_TIMEOUT"
"""Overrides that default where ``interaction_timeout`` is not given: a test suite on a
loaded machine sets it higher, so a test does not fail because the machine was slow (the
rule itself is tested on the fake's clock, and the load benchmark counts answers over 3 s)."""

DEFAULT_UPLOAD_LIMIT = 10 * 1024 * 1024


class Gateway(model.Gateway, Protocol):
    """The gateway (``fakediscord.gateway.Gateway``) as the state and the routes use it."""

    @property
    def url(self) -> str: ...

    @property
    def identifies(self) -> int: ...

    async def flush(self) -> None: ...

    async def handle(self, request: web.Request) -> web.WebSocketResponse: ...


class Interaction(Protocol):
    """An interaction (``fakediscord.interactions.Interaction``) as the state records it."""

    @property
    def id(self) -> int: ...

    @property
    def member(self) -> Member: ...


class State:
    """What the fake knows, and the records of what happened (see the package docstring)."""

    gateway: Gateway
    driver: people.Driver
    old_edit_limit: int
    """Edits per hour to an hour-old message (fakediscord.channels; set by FakeDiscord)."""

    def __init__(
        self,
        *,
        interaction_timeout: float | None = None,
        bot_name: str = "LamaBot",
        token: str | None = None,
        pacing: float | Pacing | None = None,
        shards: int = 1,
        max_concurrency: int = 1,
        session_starts: int = 1000,
    ) -> None:
        self.clock = Clock()
        self.shards = shards  # what GET /gateway/bot recommends
        self.max_concurrency = max_concurrency  # IDENTIFYs allowed per 5 s per bucket
        self.session_starts = session_starts  # IDENTIFYs allowed today (Discord: 1,000)
        self.snowflakes = Snowflakes(self.clock)
        self.notifier: Notifier[Message] = Notifier()
        if interaction_timeout is None:
            default = os.environ.get(TIMEOUT_VARIABLE, DISCORD_INTERACTION_TIMEOUT)
            interaction_timeout = float(default)
        self.interaction_timeout = interaction_timeout
        self.token = token or f"fake.{secrets.token_urlsafe(24)}"
        self.application_id = self.snowflakes.next()
        self.bot_user = User(self.application_id, bot_name, bot=True)
        self.owner_user = User(self.snowflakes.next(), "owner")
        self.users: dict[int, User] = {self.bot_user.id: self.bot_user}
        self.guilds: list[Guild] = []
        self.messages: dict[int, Message] = {}
        self.global_commands: list[dict[str, Any]] = []
        self.guild_commands: dict[int, list[dict[str, Any]]] = {}
        self.command_syncs = 0
        self.logins = 0
        self.interactions: dict[int, Interaction] = {}
        self.tokens: dict[str, Interaction] = {}
        self.errors: list[str] = []
        self.refusals: list[Refusal] = []
        self.failures: list[Failure] = []
        self.lint: list[Lint] = []
        if isinstance(pacing, int | float):
            pacing = Pacing(scale=float(pacing))
        self.pacing: Pacing | None = pacing
        self.nonces: dict[tuple[int, str], tuple[Message, float]] = {}
        self.late_nonces: list[tuple[int, str]] = []  # (channel, nonce) repeated past the window
        self.old_edits: dict[int, list[int]] = {}  # message id -> times (ms) of those edits
        self.dropped_embeds = 0
        self.emojis: dict[int, dict[str, Any]] = {}
        self.faults: list[Fault] = []
        self.entries: list[dict[str, Any]] = []
        self.keep_files = False  # True: uploaded files' bytes are kept in .files (the sandbox)
        self.files: dict[int, bytes] = {}
        # bytes per uploaded file: a server without boosts (Discord: 10 MiB); each
        # interaction carries it as ``attachment_size_limit``
        self.attachment_size_limit = DEFAULT_UPLOAD_LIMIT
        # a click whose custom_id is not on the clicked message is refused (Discord does);
        # False lets a forged one through to the bot (its own check: defence-in-depth tests)
        self.check_components = True
        self.port = 0
        self._t0 = time.monotonic()

    # --- building the world ----------------------------------------------------------------
    def add_guild(
        self,
        name: str,
        *,
        locale: str = "en-US",
        bot_permissions: int | None = None,
        shard: tuple[int, int] | None = None,
    ) -> Guild:
        """A guild with the bot as member (bot_permissions: its role; default @everyone's).

        ``shard=(shard_id, shard_count)`` picks an id Discord routes to that shard.
        """
        perms = DEFAULT_PERMISSIONS if bot_permissions is None else bot_permissions
        guild_id = self.snowflakes.next()
        if shard is not None:
            shard_id, count = shard
            guild_id -= (((guild_id >> 22) - shard_id) % count) << 22
        guild = Guild(self, guild_id, name, locale=locale, bot_permissions=perms)
        self.guilds.append(guild)
        if self.gateway.connected_once:
            self.gateway.dispatch_nowait("GUILD_CREATE", guild.join_payload(), guild.id)
        return guild

    def get_channel(self, channel_id: int) -> TextChannel | None:
        """The channel (also in a server the bot left: the routes refuse those)."""
        for guild in self.guilds:
            channel = guild.get_channel(channel_id)
            if channel is not None:
                return channel
        return None

    def find_member(self, guild: Guild, user_id: int) -> Member | None:
        return next((m for m in guild.members if m.id == user_id), None)

    # --- messages ---------------------------------------------------------------------------
    def new_message(
        self,
        channel: TextChannel,
        body: dict[str, Any],
        *,
        author: User,
        ephemeral_to: Member | None = None,
        type: int = 0,
        webhook: bool = False,
        flags: int = 0,
    ) -> Message:
        msg = Message(
            self.snowflakes.next(),
            channel,
            author,
            self.clock.iso(),
            ephemeral_to=ephemeral_to,
            type=type,
            webhook_id=self.application_id if webhook else None,
        )
        msg.apply(body)
        msg.ping(body)
        msg.flags |= flags
        self.messages[msg.id] = msg
        return msg

    def publish_create(self, msg: Message) -> None:
        if msg.ephemeral_to is None:
            self.gateway.dispatch_nowait("MESSAGE_CREATE", msg.payload(), msg.channel.guild.id)
        self.notifier.notify("create", msg)

    def publish_update(self, msg: Message, *, edited: bool = True) -> None:
        if edited:
            msg.edited_timestamp = self.clock.iso()
        msg.edits += 1
        if msg.ephemeral_to is None:
            self.gateway.dispatch_nowait("MESSAGE_UPDATE", msg.payload(), msg.channel.guild.id)
        self.notifier.notify("edit", msg)

    def publish_delete(self, msg: Message) -> None:
        msg.deleted = True
        if msg.ephemeral_to is None:
            data = {
                "id": str(msg.id),
                "channel_id": str(msg.channel.id),
                "guild_id": str(msg.channel.guild.id),
            }
            self.gateway.dispatch_nowait("MESSAGE_DELETE", data, msg.channel.guild.id)
        self.notifier.notify("delete", msg)

    def new_thread(
        self, parent: TextChannel, name: str, *, type: int, owner_id: int
    ) -> TextChannel:
        """A thread started by a user (``TextChannel.create_thread``; see threads.Thread)."""
        return new_thread(parent, name, type=type, owner_id=owner_id)

    # --- records ----------------------------------------------------------------------------
    def log(self, kind: str, data: dict[str, Any]) -> None:
        entry = {
            "time": round(time.monotonic() - self._t0, 4),
            "clock": self.clock.iso(),
            "kind": kind,
        }
        entry.update(data)
        self.entries.append(entry)

    def record_error(self, text: str) -> None:
        log.error("fake discord internal error: %s", text)
        self.errors.append(text)
        self.log("internal-error", {"error": text})

    def record_refusal(self, method: str, path: str, err: ApiError) -> None:
        log.info("refused %s %s: %s %s", method, path, err.code, err.message)
        self.refusals.append(Refusal(method, path, err.status, err.code, err.message, err.errors))

    def record_lint(self, request: web.Request, problems: list[str]) -> None:
        """Record what Discord would have ignored in this request (see fakediscord.lint)."""
        path = request.path.removeprefix("/api/v10")
        for problem in problems:
            log.warning("lint %s %s: %s", request.method, path, problem)
            self.lint.append(Lint(request.method, path, problem))
            self.log("lint", {"method": request.method, "path": path, "problem": problem})

    def record_failure(self, inter: Interaction, reason: str) -> None:
        log.info("interaction %s failed: %s", inter.id, reason)
        self.failures.append(Failure(inter.id, inter.member.name, reason))
        self.log("interaction-failed", {"interaction": str(inter.id), "reason": reason})
        self.notifier.notify()
