"""FakeDiscord: owns the state, the aiohttp server and the bot's lifecycle."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import discord
import yarl
from aiohttp import web

from .base import DEFAULT_PERMISSIONS, Clock, FakeDiscordError, Notifier, Snowflakes
from .channels import OLD_EDITS_PER_HOUR
from .driver import Driver
from .faults import Fault
from .gateway import Gateway
from .lint import Lint
from .messages import Message
from .model import Guild, TextChannel, User
from .ratelimit import Pacing
from .server import build_app

if TYPE_CHECKING:
    from .interactions import Interaction
    from .model import Member
    from .validate import ApiError

log = logging.getLogger(__name__)


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

class FakeDiscord:
    """A local Discord (REST + gateway) for a real discord.py bot. See the package docstring."""

    def __init__(
        self,
        *,
        interaction_timeout: float | None = None,
        transcript_dir: str | Path | None = None,
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
        self.notifier = Notifier()
        if interaction_timeout is None:
            default = os.environ.get(TIMEOUT_VARIABLE, DISCORD_INTERACTION_TIMEOUT)
            interaction_timeout = float(default)
        self.interaction_timeout = interaction_timeout
        self.transcript_dir = Path(transcript_dir) if transcript_dir is not None else None
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
        self.old_edit_limit = OLD_EDITS_PER_HOUR  # edits per hour to an hour-old message
        self.old_edits: dict[int, list[int]] = {}  # message id -> times (ms) of those edits
        self.dropped_embeds = 0
        self.emojis: dict[int, dict[str, Any]] = {}
        self.faults: list[Fault] = []
        self.entries: list[dict[str, Any]] = []
        self.keep_files = False  # True: uploaded files' bytes are kept in .files (the sandbox)
        # a click whose custom_id is not on the clicked message is refused (Discord does);
        # False lets a forged one through to the bot (its own check: defence-in-depth tests)
        self.check_components = True
        self.files: dict[int, bytes] = {}
        self.gateway = Gateway(self)
        self.driver = Driver(self)
        self.port = 0
        self._runner: web.AppRunner | None = None
        self._t0 = time.monotonic()

    # --- lifecycle -------------------------------------------------------------------------
    async def __aenter__(self) -> FakeDiscord:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    async def start(self) -> None:
        """Serve on 127.0.0.1, on a free port."""
        self._runner = web.AppRunner(build_app(self), access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        log.info("fake discord on port %s", self.port)

    async def stop(self) -> None:
        await self.gateway.close_all()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self.transcript_dir is not None:
            self.write_transcript(self.transcript_dir)

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @contextlib.asynccontextmanager
    async def run(
        self, bot: discord.Client, *, sync: bool = True, timeout: float = 10.0
    ) -> AsyncIterator[FakeDiscord]:
        """Start `bot` against the fake; wait for login, READY, guilds and command sync."""
        old_base = discord.http.Route.BASE
        old_gateway = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
        discord.http.Route.BASE = self.api_url
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway.url)
        logins, syncs = self.logins, self.command_syncs
        task = asyncio.create_task(bot.start(self.token), name="fakediscord-bot")
        try:
            try:
                await self._wait_started(bot, task, logins, syncs if sync else None, timeout)
                yield self
            finally:
                await self._stop_bot(bot, task)
        finally:
            discord.http.Route.BASE = old_base
            discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = old_gateway
        self.check()

    async def _wait_started(
        self,
        bot: discord.Client,
        task: asyncio.Task[None],
        logins: int,
        syncs: int | None,
        timeout: float,
    ) -> None:
        def bot_died() -> None:
            if task.done():
                exc = task.exception()
                raise FakeDiscordError(f"the bot stopped while starting: {exc!r}") from exc

        def logged_in() -> bool | None:
            bot_died()
            return True if self.logins > logins else None

        await self.notifier.wait_for(logged_in, timeout, "the bot to log in")
        ready = asyncio.create_task(bot.wait_until_ready())
        done, _ = await asyncio.wait({task, ready}, timeout=timeout, return_when="FIRST_COMPLETED")
        if ready not in done:
            ready.cancel()
            bot_died()
            raise FakeDiscordError(f"the bot was not ready after {timeout}s")
        if syncs is not None:

            def synced() -> bool | None:
                bot_died()
                return True if self.command_syncs > syncs else None

            await self.notifier.wait_for(synced, timeout, "the bot to sync its commands")

    async def _stop_bot(self, bot: discord.Client, task: asyncio.Task[None]) -> None:
        await bot.close()
        try:
            await asyncio.wait_for(task, 5.0)
        except TimeoutError:
            self.record_error("the bot did not stop within 5 s of close()")
        except Exception as exc:
            log.warning("bot.start() ended with %r", exc)

    def check(self) -> None:
        """Raise on the fake's own bugs, and on lint: what Discord would silently ignore."""
        if self.errors:
            raise FakeDiscordError("fake discord internal errors:\n" + "\n".join(self.errors))
        if self.lint:
            lines = "\n".join(f"{x.method} {x.path}: {x.problem}" for x in self.lint)
            raise FakeDiscordError("the bot sent what Discord would silently ignore:\n" + lines)

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
            self.gateway.dispatch_nowait("GUILD_CREATE", guild.payload(), guild.id)
        return guild

    def get_channel(self, channel_id: int) -> TextChannel | None:
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

    # --- faults -----------------------------------------------------------------------------
    def rate_limit(
        self,
        method: str,
        path: str,
        *,
        retry_after: float = 0.1,
        times: int | None = 1,
        is_global: bool = False,
    ) -> Fault:
        """Answer `method path` (glob, e.g. "/channels/*/messages") with 429 `times` times."""
        return self._add_fault(
            Fault(method, path, "429", times=times, retry_after=retry_after, is_global=is_global)
        )

    def fail(self, method: str, path: str, *, status: int = 500, times: int | None = 1) -> Fault:
        """Answer `method path` with an error status (500: discord.py retries after 1 s)."""
        return self._add_fault(Fault(method, path, "status", times=times, status=status))

    def delay(self, method: str, path: str, seconds: float, *, times: int | None = None) -> Fault:
        """Delay answers to `method path` by `seconds`."""
        return self._add_fault(Fault(method, path, "delay", times=times, seconds=seconds))

    def _add_fault(self, fault: Fault) -> Fault:
        self.faults.append(fault)
        self.log("fault", {"added": repr(fault)})
        return fault

    async def drop_gateway(
        self, *, code: int = 4000, wait: bool = True, timeout: float = 5.0
    ) -> None:
        """Drop the gateway connection(s); with `wait`, return once the client RESUMED."""
        resumes, identifies = self.gateway.resumes, self.gateway.identifies
        await self.gateway.drop(code)
        if wait:

            def back() -> bool | None:
                again = self.gateway.resumes > resumes or self.gateway.identifies > identifies
                return True if again and self.gateway.connections else None

            await self.notifier.wait_for(back, timeout, "the bot to reconnect")

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

    def write_transcript(self, directory: str | Path, name: str = "transcript") -> list[Path]:
        """Write <name>.jsonl (all traffic) and <name>.html (the channels as seen)."""
        from .transcript import write_transcript

        return write_transcript(self, Path(directory), name)
