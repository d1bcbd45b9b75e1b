"""``python -m bot.cluster --processes 2 --shard-count 8``: one bot process per shard range.

The launcher starts ``python -m bot --shard-count N --shard-ids A-B`` for each range (the
first one alone syncs the slash commands), restarts a process that dies, and stops them all
on SIGTERM or Ctrl-C. Every process shares the database named by ``LAMA_DB`` (PostgreSQL, so
that several machines could run them); the settings come from the environment or ``.env``.

Restarts respect Discord's session-start budget: each process IDENTIFYs once per shard, Discord
allows 1,000 IDENTIFYs a day (and resets the bot's token past that) and ``max_concurrency`` per
5 s. So a restart waits with exponential backoff (a process that ran a while starts again at
once), the starts are spaced so that no two processes identify in the same window, and when
``GET /gateway/bot`` says the day's budget cannot pay for a process's shards, the launcher
waits for the budget's reset instead of spending it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import math
import os
import signal
import sys
import time
from dataclasses import dataclass, field

import aiohttp

from bot.common.shards import IDENTIFY_WINDOW, format_shard_ids, split_shards
from bot.process.logs import setup_logging
from bot.process.redact import redact_handlers
from bot.process.settings import Settings

log = logging.getLogger("bot.cluster")

EXIT_SETTINGS = 2  # python -m bot: invalid settings, no token
EXIT_TOKEN = 3  # python -m bot: Discord refused the token
FATAL = (EXIT_SETTINGS, EXIT_TOKEN)  # restarting would not help


@dataclass
class Budget:
    """What ``GET /gateway/bot`` says about starting sessions."""

    remaining: int = 1000
    reset_after: float = 0.0  # seconds
    max_concurrency: int = 1


@dataclass
class Member:
    """One process of the cluster and its restart history."""

    index: int
    shard_ids: tuple[int, ...]
    process: asyncio.subprocess.Process | None = None
    starts: int = 0
    failures_in_a_row: int = 0
    started_at: float = 0.0
    exits: list[int] = field(default_factory=list)


class Cluster:
    """Runs the processes; :meth:`run` returns the launcher's exit code."""

    def __init__(
        self,
        processes: int,
        shard_count: int,
        *,
        backoff: float = 1.0,
        max_backoff: float = 60.0,
        stable_after: float = 60.0,
        identify_window: float = IDENTIFY_WINDOW,
        grace: float = 15.0,
        env: dict[str, str] | None = None,
        token: str | None = None,
        discord_url: str | None = None,
    ) -> None:
        self.shard_count = shard_count
        self.members = [Member(i, ids) for i, ids in enumerate(split_shards(shard_count,
                                                                              processes))]
        self.backoff, self.max_backoff, self.stable_after = backoff, max_backoff, stable_after
        self.identify_window = identify_window
        self.grace = grace
        self.env = dict(os.environ if env is None else env)
        self.token = token or self.env.get("DISCORD_TOKEN", "").strip()
        self.discord_url = discord_url or self.env.get("LAMA_DISCORD_URL") or "https://discord.com"
        self.stopping = asyncio.Event()
        self.fatal: int | None = None
        self.killed = 0  # processes that ignored SIGTERM for `grace` seconds
        self.budget_waits = 0  # times a start waited for Discord's daily reset
        self.progress = asyncio.Condition()  # notified at each start and exit (tests wait on it)
        self._next_start = 0.0  # monotonic time before which no process may start identifying
        self._start_lock = asyncio.Lock()

    # ---- the session-start budget ---------------------------------------------------------
    async def budget(self) -> Budget:
        """Ask Discord (or the Discord-compatible server in LAMA_DISCORD_URL); on failure
        assume the strictest pacing and let the process itself report a bad token."""
        base = self.discord_url.rstrip("/")
        try:
            async with aiohttp.ClientSession() as http, http.get(
                f"{base}/api/v10/gateway/bot", headers={"Authorization": f"Bot {self.token}"},
                timeout=aiohttp.ClientTimeout(total=10),
            ) as answer:
                if answer.status != 200:
                    return Budget()
                limit = (await answer.json())["session_start_limit"]
        except (aiohttp.ClientError, TimeoutError, KeyError, ValueError) as exc:
            log.warning("could not read the session-start budget: %s", exc)
            return Budget()
        return Budget(int(limit["remaining"]), float(limit["reset_after"]) / 1000,
                      int(limit["max_concurrency"]))

    async def _wait_for_turn(self, member: Member) -> None:
        """Space the starts: a process with ``n`` shards and ``max_concurrency`` ``c`` holds the
        identify windows for ``ceil(n / c)`` windows; wait past the day's reset if need be."""
        async with self._start_lock:
            budget = await self.budget()
            needed = len(member.shard_ids)
            if budget.remaining < needed:
                log.error("only %d session starts left today, process %d needs %d: waiting "
                          "%.0f s for Discord's reset", budget.remaining, member.index, needed,
                          budget.reset_after)
                self.budget_waits += 1
                await self._notify()
                await self._sleep(budget.reset_after)
            delay = self._next_start - time.monotonic()
            if delay > 0:
                await self._sleep(delay)
            windows = math.ceil(needed / max(1, budget.max_concurrency))
            self._next_start = time.monotonic() + windows * self.identify_window

    async def _sleep(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stopping.wait(), seconds)

    # ---- one process ----------------------------------------------------------------------
    def command(self, member: Member) -> list[str]:
        command = [sys.executable, "-m", "bot", "--shard-count", str(self.shard_count),
                   "--shard-ids", format_shard_ids(member.shard_ids),
                   "--processes", str(len(self.members))]  # (each its share of the limit)
        if member.index != 0:
            command.append("--no-sync")  # exactly one process syncs the commands
        return command

    async def supervise(self, member: Member) -> None:
        """Run ``member`` until the cluster stops, restarting it with backoff when it dies."""
        while not self.stopping.is_set():
            await self._wait_for_turn(member)
            if self.stopping.is_set():
                return
            member.process = await asyncio.create_subprocess_exec(*self.command(member),
                                                                  env=self.env)
            member.starts += 1
            member.started_at = time.monotonic()
            await self._notify()
            log.info("process %d (shards %s) started, pid %d", member.index,
                     format_shard_ids(member.shard_ids), member.process.pid)
            code = await member.process.wait()
            member.exits.append(code)
            await self._notify()
            if self.stopping.is_set():
                return
            if code in FATAL:
                log.error("process %d exited with %d (settings or token): stopping the cluster",
                          member.index, code)
                self.fatal = code
                self.stopping.set()
                return
            ran = time.monotonic() - member.started_at
            member.failures_in_a_row = 0 if ran >= self.stable_after else (
                member.failures_in_a_row + 1)
            delay = self.restart_delay(member.failures_in_a_row)
            log.warning("process %d exited with %d after %.1f s; restarting in %.1f s",
                        member.index, code, ran, delay)
            await self._sleep(delay)

    async def _notify(self) -> None:
        async with self.progress:
            self.progress.notify_all()

    def restart_delay(self, failures_in_a_row: int) -> float:
        """0 after a process that ran stably; else ``backoff`` doubling up to ``max_backoff``."""
        if failures_in_a_row <= 0:
            return 0.0
        return min(self.max_backoff, self.backoff * 2 ** (failures_in_a_row - 1))

    async def stop(self) -> None:
        """SIGTERM every process (each closes its connections and store), SIGKILL stragglers."""
        self.stopping.set()
        running = [m.process for m in self.members
                   if m.process is not None and m.process.returncode is None]
        for process in running:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
        for process in running:
            try:
                await asyncio.wait_for(process.wait(), self.grace)
            except TimeoutError:
                log.error("process %d did not stop within %.0f s: killing it", process.pid,
                          self.grace)
                self.killed += 1
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await process.wait()

    async def run(self) -> int:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.stopping.set)
        tasks = [asyncio.create_task(self.supervise(m)) for m in self.members]
        await self.stopping.wait()
        await self.stop()
        await asyncio.gather(*tasks, return_exceptions=True)
        log.info("cluster stopped")
        return self.fatal or (1 if self.killed else 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.cluster", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--processes", type=int, required=True)
    parser.add_argument("--shard-count", type=int, required=True)
    parser.add_argument("--backoff", type=float, default=1.0,
                        help="first restart delay in seconds (doubles up to --max-backoff)")
    parser.add_argument("--max-backoff", type=float, default=60.0)
    parser.add_argument("--stable-after", type=float, default=60.0,
                        help="a process that ran this long restarts at once")
    args = parser.parse_args(argv)
    setup_logging(os.environ.get("LAMA_LOG_LEVEL", "INFO"),
                  os.environ.get("LAMA_LOG_FORMAT", "text").strip().lower())
    try:
        settings = Settings()
        redact_handlers([settings.token] if settings.token else [])
        cluster = Cluster(args.processes, args.shard_count, backoff=args.backoff,
                          max_backoff=args.max_backoff, stable_after=args.stable_after,
                          identify_window=settings.lama_identify_window,
                          token=settings.token, discord_url=settings.lama_discord_url)
    except ValueError as exc:  # pydantic's ValidationError is one too
        sys.stderr.write(f"{exc}\n")
        return EXIT_SETTINGS
    return asyncio.run(cluster.run())


if __name__ == "__main__":
    sys.exit(main())
