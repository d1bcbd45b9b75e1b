"""The bot, in rooms that import one way (each package's docstring says what it may
import; tests/test_rooms.py holds them to it): process → policies → sessions →
store → ladder, with words, common, pictures and the sandbox.

``create_bot`` (from :mod:`bot.app`, the composition root) builds exactly what
``python -m bot`` runs. It is imported on first use, so that importing a module of
bot/ never imports the cogs above it (or discord.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bot.process.settings import Settings

if TYPE_CHECKING:
    from bot.app import create_bot

__all__ = ["Settings", "create_bot"]


def __getattr__(name: str) -> Any:
    if name == "create_bot":
        from bot.app import create_bot

        return create_bot
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
