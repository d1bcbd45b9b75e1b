"""Logging for ``python -m bot`` and ``python -m bot.cluster``: text for a terminal, or one JSON
object per line (``LAMA_LOG_FORMAT=json``) for a log shipper.

A JSON line holds ``time`` (UTC, ISO 8601), ``level``, ``logger``, ``message``, the
traceback as ``exception`` when there is one, and the ``guild_id``, ``channel_id`` and
``game_id`` the record is about where they are known: given as ``extra=``, else the
interaction being answered (:func:`about`, set when a click or a command starts; a
contextvar, so each answer's task has its own), else the channel of the AI or timer task
that logs (their tasks are named ``lama-ai-<channel>``, ``lama-timer-<channel>``); the game
is that channel's running game. Nothing else of a record is written (an ``extra`` may hold
anything), and :class:`bot.process.redact.Redact` sits on the handler in both formats: the message
and traceback are cleaned of tokens before they are encoded.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import re
import time
from collections.abc import Callable, Iterable

import discord
from discord import app_commands

from bot.process.redact import redact_handlers

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
FORMATS = ("text", "json")

_about: contextvars.ContextVar[tuple[int | None, int | None]] = contextvars.ContextVar(
    "lama_log_about", default=(None, None))
_started: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "lama_command_started", default=None)
_TASK_CHANNEL = re.compile(r"lama-(?:ai|timer)-(\d+)")
_games: Callable[[int], str | None] = lambda _channel: None  # noqa: E731


def about(guild_id: int | None, channel_id: int | None) -> None:
    """What the current task's records are about (the interaction it answers)."""
    _about.set((guild_id, channel_id))


def follow_games(game_of: Callable[[int], str | None]) -> None:
    """How to name a channel's running game (the bot's sessions)."""
    global _games
    _games = game_of


class ContextTree(app_commands.CommandTree):  # type: ignore[type-arg]
    """discord.py's command tree, noting the guild and channel of each command it runs (in
    the task that runs it) for the log lines written while answering it, and when it
    began (for the metrics)."""

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        about(interaction.guild_id, interaction.channel_id)
        _started.set(time.perf_counter())  # (bot/process/metrics.py times the answer from here)
        return True


def command_started() -> float | None:
    """When the command this task answers began (``time.perf_counter``), if it is one."""
    return _started.get()


def _ids(record: logging.LogRecord) -> dict[str, object]:
    guild = getattr(record, "guild_id", None)
    channel = getattr(record, "channel_id", None)
    game = getattr(record, "game_id", None)
    if guild is None and channel is None:
        guild, channel = _about.get()
    if channel is None:
        try:
            task = asyncio.current_task()
        except RuntimeError:  # (a thread without a loop)
            task = None
        if task is not None and (match := _TASK_CHANNEL.fullmatch(task.get_name())):
            channel = int(match.group(1))
    if game is None and isinstance(channel, int):
        try:
            game = _games(channel)
        except Exception:  # (a log line never fails for want of a game id)
            game = None
    found = {"guild_id": guild, "channel_id": channel, "game_id": game}
    return {key: value for key, value in found.items() if value is not None}


class JsonFormatter(logging.Formatter):
    """One JSON object per record, on one line."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            **_ids(record),
        }
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = record.stack_info
        return json.dumps(entry, ensure_ascii=False, default=str)


def setup_logging(level: str, fmt: str = "text", secrets: Iterable[str] = ()) -> None:
    """The root logger writes to standard error in ``fmt``, tokens redacted."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    logging.basicConfig(level=level.upper(), handlers=[handler])
    redact_handlers(secrets)
