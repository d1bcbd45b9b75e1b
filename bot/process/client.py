"""The Discord client: a store, the channel sessions, start-up and shutdown.

It knows nothing of the cogs above it (bot/ stays below cogs/): what they add (extensions,
the dynamic items that route clicks, the refusal of a failed command) comes in as
:class:`Wiring`. ``bot.app.create_bot`` (the composition root) wires the two.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.common.clock import Clock
from bot.common.shards import IdentifyGate
from bot.policies.wiring import make_sessions
from bot.process.backends import make_leases, make_store
from bot.process.budget import Budget
from bot.process.clicks import Clickable, Clicks
from bot.process.logs import ContextTree, follow_games
from bot.process.settings import Settings
from bot.sessions.guild_settings import IMAGES_SETTING, THREADS_SETTING
from bot.sessions.restore import restore_sessions, resume
from bot.store.sqlite import Store
from bot.words.command_i18n import command_payloads
from bot.words.command_i18n import install as install_command_translations
from bot.words.i18n import LANGUAGE_SETTING

log = logging.getLogger(__name__)


def intents() -> discord.Intents:
    """No privileged intents, and no message events: the bot works through interactions only.

    Without ``guild_messages`` the gateway stops echoing the bot's own table posts and
    edits back to it, which the load benchmark showed to be pure overhead.
    """
    result = discord.Intents.default()
    result.members = False
    result.presences = False
    result.message_content = False
    result.guild_messages = False
    result.dm_messages = False
    result.guild_reactions = False
    result.dm_reactions = False
    result.guild_typing = False
    result.dm_typing = False
    return result


@dataclass(frozen=True)
class Wiring:
    """What the layer above adds to the bot: the cogs' modules (each imported once, its
    ``setup(bot)`` run, in order), the
    item classes that answer clicks (bot/process/clicks.py), the answer to a command that failed
    (also a forged click's refusal), and what to do with an interaction once answered (let go
    of it: cogs/discord_compat.py)."""

    names: Sequence[str] = ()
    dynamic_items: Sequence[type[Clickable]] = ()
    on_error: Callable[[discord.Interaction, Any], Awaitable[None]] | None = None
    answered: Callable[[discord.Interaction], None] | None = None
    warm: Callable[[], Awaitable[None]] | None = None
    """What would otherwise load at its first use, in the middle of the games: ``python -m
    bot`` starts it with the process, beside the login, and freezes start-up's heap after it."""


class LamaBot(commands.AutoShardedBot):
    """The bot: a store, the channel sessions, and the ``/lama`` command group."""

    def __init__(
        self, settings: Settings, store: Store | None = None, clock: Clock | None = None,
        wiring: Wiring | None = None,
    ) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents(),
            help_command=None,
            guild_ready_timeout=settings.lama_guild_ready_timeout,
            allowed_mentions=discord.AllowedMentions.none(),
            shard_count=settings.shard_plan.count,
            shard_ids=list(settings.shard_plan.ids) if settings.shard_plan.ids else None,
            tree_cls=ContextTree,  # notes each command's guild and channel for the logs
        )
        self.settings = settings
        self.shard_plan = settings.shard_plan
        self.identify_gate: IdentifyGate | None = None
        self.store: Store = store or make_store(settings.lama_db)
        self.leases = make_leases(settings.lama_db)
        self.sessions = make_sessions(self.store, ai_delay=settings.lama_ai_delay,
                                      seed=settings.lama_seed, clock=clock,
                                      ai_workers=settings.lama_ai_workers,
                                      ping_delay=settings.lama_ping_delay,
                                      ping_part=settings.lama_ping_after)
        self.wiring = wiring or Wiring()
        follow_games(lambda channel: getattr(self.sessions.get(channel), "game_id", None))
        self.clicks = Clicks(self.wiring.dynamic_items, self.wiring.on_error,
                             self.wiring.answered)
        if self.wiring.answered is not None:  # (a failed command: its refusal, below)
            self.add_listener(self._command_answered, "on_app_command_completion")
        # clicks come through the public 'interaction' event; the items are not given to
        # discord.py (add_dynamic_items), so it does nothing else with them
        self.add_listener(self.clicks.answer, "on_interaction")
        self.lama = app_commands.Group(name="lama", description="Play L.A.M.A. card games",
                                       guild_only=True)
        # one budget for every request Discord's global limit counts (bot/process/budget.py),
        # this process's share of it when several share the token
        self.budget = Budget.share(settings.lama_processes, http=self.http)
        self.budget.install(self.http)  # (its requests; their retries: login's connector)
        self.sessions.outbox.pacer = self.budget  # owed messages drawn once their slot comes
        self.resuming: asyncio.Task[None] | None = None
        self._stopping: asyncio.Future[None] | None = None
        self._lease_watch: asyncio.Task[None] | None = None

    async def login(self, token: str) -> None:
        """The budget's connector for discord.py's HTTP session (made at login, in the loop;
        discord.py's option for one), so that its retries take their slots too."""
        if self.http.connector is discord.utils.MISSING:
            self.http.connector = self.budget.connector()
        await super().login(token)

    async def setup_hook(self) -> None:
        wiring = self.wiring
        await self.store.open()
        # no other process may serve our shards' sessions while we do (bot/store/leases.py)
        await self.leases.acquire(self.shard_plan)
        self._lease_watch = asyncio.create_task(self._close_when_lease_lost(), name="lama-lease")
        await self.sessions.guild_settings.load(LANGUAGE_SETTING, IMAGES_SETTING,
                                               THREADS_SETTING)
        await self.sessions.dm_prefs.load()  # who opted in to DMs (bot/sessions/user_prefs.py)
        for extension in wiring.names:
            # imported once per process; its setup adds its cog (discord.py's load_extension
            # runs the module's code afresh at every load, for hot reloads, which lama never
            # does: the bot's start-up paid for compiling the cogs' commands again each time)
            await importlib.import_module(extension).setup(self)
        self.tree.add_command(self.lama)
        if wiring.on_error is not None:
            self.tree.error(self._command_refused)
        await install_command_translations(self.tree)
        await self.resume_sessions()
        if self.settings.lama_sync_commands:
            await self.sync_commands()
        else:
            log.info("not syncing commands (another process of the cluster does)")

    async def _command_answered(self, interaction: discord.Interaction, _command: object
                                ) -> None:
        if self.wiring.answered is not None:
            self.wiring.answered(interaction)

    async def _command_refused(self, interaction: discord.Interaction,
                               error: app_commands.AppCommandError) -> None:
        """The layer above's refusal of a failed command; then the interaction is let go of."""
        try:
            if self.wiring.on_error is not None:
                await self.wiring.on_error(interaction, error)
        finally:
            if self.wiring.answered is not None:
                self.wiring.answered(interaction)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        """Pace IDENTIFYs by Discord's ``max_concurrency`` rather than a flat 5 s per shard."""
        if self.identify_gate is None:
            limits = await self.fetch_session_start_limits()
            self.identify_gate = IdentifyGate(limits.max_concurrency,
                                              self.settings.lama_identify_window)
        await self.identify_gate.wait(shard_id or 0)

    async def _close_when_lease_lost(self) -> None:
        """Another process may now own our shards: stop serving them (the launcher restarts
        us, and the new process waits for the leases)."""
        await self.leases.lost.wait()
        log.critical("lost the lease of our shards: stopping")
        await self.close()

    async def resume_sessions(self) -> None:
        """Serve every stored lobby and game again (before any click can arrive), then
        deliver what is owed, refresh their messages and let their AIs play on."""
        restored = await restore_sessions(self.sessions, self.shard_plan.owns)
        self.resuming = asyncio.create_task(resume(self.sessions, restored), name="lama-resume")

    async def sync_commands(self) -> bool:
        """Sync the command tree only when its definition changed since the last sync."""
        guild = None
        if self.settings.lama_dev_guild is not None:
            guild = discord.Object(self.settings.lama_dev_guild)
            self.tree.copy_global_to(guild=guild)
        payload = await command_payloads(self.tree, guild)  # with their localizations
        digest = hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
        key = f"command_hash:{guild.id if guild else 'global'}"
        if await self.store.app_value(key) == digest:
            log.info("commands unchanged; not syncing")
            return False
        await self.tree.sync(guild=guild)
        await self.store.set_app_value(key, digest)
        log.info("commands synced (%s)", f"guild {guild.id}" if guild else "global")
        return True

    async def on_ready(self) -> None:
        log.info("ready as %s in %d guilds (%s)", self.user, len(self.guilds),
                 self.shard_plan.describe())

    @property
    def stopping(self) -> bool:
        """A close has begun (what starts now would outlive the store)."""
        return self._stopping is not None

    async def close(self) -> None:
        """Stop cleanly (SIGTERM, Ctrl-C, tests): see :meth:`_shutdown`; safe to call twice."""
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(self._shutdown())
        await asyncio.shield(self._stopping)

    async def __aexit__(self, *exc_info: object) -> None:
        # discord.py's awaits only its own closing task when a close is under way; ours goes
        # on to close the store and free the shards, which must finish before the loop ends
        await self.close()

    async def _shutdown(self) -> None:
        """AIs and timers stop after their step; answers under way finish; what is owed is
        delivered (each step bounded by ``SHUTDOWN_WAIT``; the rest waits in the store for
        the next start); running games are folded into snapshots; then the store closes."""
        log.info("stopping: finishing answers and owed messages")
        if self._lease_watch is not None:
            self._lease_watch.cancel()  # (if it is what closes us, the close goes on: shielded)
        await self.sessions.close()
        await _bounded(_interaction_tasks() + list(self.clicks.running), "answers under way")
        if self.resuming is not None:
            await _bounded([self.resuming], "the start-up delivery")
        if self.http.token is not None and not self.is_closed():
            await _bounded([asyncio.ensure_future(self.sessions.outbox.deliver_all())],
                           "owed messages")
        try:
            await self.sessions.checkpoint()
            await self.sessions.outbox.close()
        except Exception:
            log.exception("could not save the last delivery marks; they are redelivered")
        await super().close()
        await self.store.close()
        await self.leases.release()


SHUTDOWN_WAIT = 10.0  # seconds per shutdown step


def _interaction_tasks() -> list[asyncio.Task[object]]:
    """discord.py's tasks answering slash commands (clicks: :attr:`LamaBot.clicks`)."""
    current = asyncio.current_task()
    return [t for t in asyncio.all_tasks() if t is not current and not t.done() and (
        t.get_name().startswith("CommandTree-invoker"))]


async def _bounded(tasks: list[asyncio.Task[object]] | list[asyncio.Future[None]],
                   what: str) -> None:
    if not tasks:
        return
    _, pending = await asyncio.wait(tasks, timeout=SHUTDOWN_WAIT)
    if pending:
        log.warning("stopping without waiting longer for %s", what)
