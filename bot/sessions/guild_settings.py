"""Guild settings held in memory, so an interaction never waits for SQLite to read one.

The keys the bot reads while answering (the language, for every message) are
loaded once at start-up (:meth:`GuildSettings.load`); :meth:`GuildSettings.set`
writes through to the store and updates the copy, so this process never reads
a stale value. One process owns a database, so no other writer can change it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from bot.sessions.state import Pace
from bot.store.sqlite import Store

log = logging.getLogger(__name__)

IMAGES_SETTING = "images"  # "off": no pictures in this server's messages (cogs.pictures)
THREADS_SETTING = "threads"  # "on": each game is played in a thread of its own (cogs.threads)


class GuildSettings:
    """The in-memory copy of the guild settings of the loaded keys."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._values: dict[str, dict[int, str]] = {}

    async def load(self, *keys: str) -> None:
        """Read every guild's value of ``keys`` (once, at start-up)."""
        for key in keys:
            self._values[key] = await self._store.guild_settings(key)
            log.info("%d guilds have a %s setting", len(self._values[key]), key)

    def get(self, guild_id: int | None, key: str) -> str | None:
        """The guild's value of ``key``; None if unset (or the key was never loaded)."""
        if guild_id is None:
            return None
        values = self._values.get(key)
        if values is None:
            log.warning("guild setting %s read before it was loaded", key)
            return None
        return values.get(guild_id)

    async def set(self, guild_id: int, key: str, value: str) -> None:
        """Store ``value``, then use it from now on."""
        await self._store.set_guild_setting(guild_id, key, value)
        self._values.setdefault(key, {})[guild_id] = value


def plays_in_thread(options: Mapping[str, object], settings: GuildSettings,
                    guild_id: int | None, pace: Pace | None = None) -> bool:
    """Whether a game with these ``options`` and ``pace`` moves to a thread of its own when
    it starts. The one place that decides it: a relaxed game always does (it lasts days: its
    channel must not wait for it); a live one when the server's ``threads`` setting is on
    (off by default)."""
    return pace is Pace.RELAXED or settings.get(guild_id, THREADS_SETTING) == "on"
