"""The real bot, ``python -m bot``, as a child process logged in to the sandbox's fake Discord.

It runs exactly as on a server; only ``LAMA_DISCORD_URL`` and a token the fake accepts
differ. It runs in its own directory (no ``.env`` of the operator's is read) and its own
session, so that a Ctrl-C reaches it once, through the sandbox, which waits for it to stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import sys
from pathlib import Path

import bot
from fakediscord import FakeDiscord, FakeDiscordError

START_TIMEOUT = 60.0
PR_SET_PDEATHSIG = 1
STOP_TIMEOUT = 10.0
PASSED_THROUGH = ("LAMA_AI_DELAY", "LAMA_SEED", "LAMA_LOG_LEVEL")
DEFAULTS = {"LAMA_AI_DELAY": "1.0", "LAMA_LOG_LEVEL": "WARNING"}


def die_with_parent() -> None:
    """In the child: SIGTERM when the sandbox dies without stopping it (Linux), so no bot is
    left trying to reach a fake Discord that is gone."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


class BotProcess:
    """Starts the bot against `fake`, waits until its commands are synced, stops it."""

    def __init__(self, fake: FakeDiscord, db: Path, log: Path) -> None:
        self.fake = fake
        self.db = db
        self.log = log
        self.process: asyncio.subprocess.Process | None = None

    def environment(self) -> dict[str, str]:
        """The operator's environment without their bot settings, plus the sandbox's."""
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("LAMA_") and k != "DISCORD_TOKEN"}
        env.update({k: os.environ.get(k) or DEFAULTS.get(k, "") for k in PASSED_THROUGH})
        root = str(Path(bot.__file__).resolve().parents[1])
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        env.update(
            DISCORD_TOKEN=self.fake.token,
            LAMA_DISCORD_URL=f"http://127.0.0.1:{self.fake.port}",
            LAMA_DB=str(self.db),
            LAMA_GUILD_READY_TIMEOUT="0.2",
            LAMA_CARD_EMOJIS="false",  # the page draws no custom emoji: cards as emoji text
        )
        return {k: v for k, v in env.items() if v}

    async def start(self) -> None:
        syncs, identifies = self.fake.command_syncs, self.fake.gateway.identifies
        with self.log.open("ab") as err:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", cwd=self.db.parent, env=self.environment(),
                stdin=asyncio.subprocess.DEVNULL, stdout=err, stderr=err,
                start_new_session=True, preexec_fn=die_with_parent,
            )

        def synced() -> bool | None:
            if self.process is not None and self.process.returncode is not None:
                raise FakeDiscordError(f"the bot stopped while starting; see {self.log}")
            ready = self.fake.command_syncs > syncs and self.fake.gateway.identifies > identifies
            return True if ready else None

        waiter = asyncio.create_task(self.process.wait())
        waiter.add_done_callback(lambda _: self.fake.notifier.notify())
        try:
            await self.fake.notifier.wait_for(synced, START_TIMEOUT, "the bot to be ready")
        finally:
            waiter.cancel()

    async def wait(self) -> int:
        """Until the bot exits (it should not, before the sandbox stops it)."""
        assert self.process is not None
        return await self.process.wait()

    def log_tail(self, lines: int = 20) -> str:
        try:
            text = self.log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    async def stop(self) -> None:
        """Ctrl-C for the bot (it saves nothing on the way out: every move is already saved)."""
        process = self.process
        if process is None or process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGINT)
        try:
            await asyncio.wait_for(process.wait(), STOP_TIMEOUT)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
