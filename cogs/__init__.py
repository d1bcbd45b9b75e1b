"""Discord: slash commands, buttons and rendering (thin; the game lives in game/ and bot/)."""

from __future__ import annotations

EXTENSIONS = ("cogs.lobby", "cogs.table", "cogs.stats", "cogs.admin", "cogs.liveness",
              "cogs.card_emojis", "cogs.privacy", "cogs.relaxed")
