"""The bot process: settings, sessions, store, i18n.

``create_bot`` builds exactly what ``python -m bot`` runs.
"""

from __future__ import annotations

from bot.client import create_bot
from bot.settings import Settings

__all__ = ["Settings", "create_bot"]
