"""FakeDiscord: the state (:mod:`fakediscord.state`) with the aiohttp server, the gateway,
the driver and the bot's lifecycle: the top of the package, which nothing in it imports."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from pathlib import Path

import discord
import yarl
from aiohttp import web

from .base import FakeDiscordError
from .channels import OLD_EDITS_PER_HOUR
from .driver import Driver
from .faults import Fault
from .gateway import Gateway
from .ratelimit import Pacing
from .server import build_app
from .state import DISCORD_INTERACTION_TIMEOUT as DISCORD_INTERACTION_TIMEOUT
from .state import TIMEOUT_VARIABLE as TIMEOUT_VARIABLE
from .state import Failure as Failure
from .state import Refusal as Refusal
from .state import State
from .transcript import write_transcript

log = logging.getLogger(__name__)


class FakeDiscord(State):
    """A local Discord (REST + gateway) for a real discord.py bot. See the package docstring."""

    gateway: Gateway
    driver: Driver

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
        super().__init__(
            interaction_timeout=interaction_timeout,
            bot_name=bot_name,
            token=token,
            pacing=pacing,
            shards=shards,
            max_concurrency=max_concurrency,
            session_starts=session_starts,
        )
        self.transcript_dir = Path(transcript_dir) if transcript_dir is not None else None
        self.old_edit_limit = OLD_EDITS_PER_HOUR  # edits per hour to an hour-old message
        self.gateway = Gateway(self)
        self.driver = Driver(self)
        self._runner: web.AppRunner | None = None

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

    def write_transcript(self, directory: str | Path, name: str = "transcript") -> list[Path]:
        """Write <name>.jsonl (all traffic) and <name>.html (the channels as seen)."""
        return write_transcript(self, Path(directory), name)
