"""Each member's notification choice, held in memory so a turn's notes are decided in the lock.

Relaxed games (bot/policies/relaxed.py) send a direct message at the start of a member's turn
only if they opted in (``/lama notify dm:on``; Discord counts unsolicited DMs against bots).
``refused``: Discord answered 50007 (the member does not accept DMs from the server's
members or from the bot): no more DMs until they opt in again. The values are loaded once at
start-up; :meth:`DmPrefs.set` writes through to the store first.
"""

from __future__ import annotations

from typing import Protocol

DM_ON = "on"
DM_REFUSED = "refused"


class PrefStore(Protocol):
    """What the preferences need of the store (bot/store/sqlite.py's ``Store`` is one)."""

    async def dm_prefs(self) -> dict[int, str]: ...
    async def set_dm_pref(self, user_id: int, value: str | None) -> None: ...


class DmPrefs:
    """Who wants a DM at the start of their turn in a relaxed game."""

    def __init__(self, store: PrefStore) -> None:
        self._store = store
        self._values: dict[int, str] = {}

    async def load(self) -> None:
        self._values = await self._store.dm_prefs()

    def get(self, user_id: int | None) -> str | None:
        """``on``, ``refused``, or None (never opted in, or opted out)."""
        return None if user_id is None else self._values.get(user_id)

    def wants(self, user_id: int | None) -> bool:
        return self.get(user_id) == DM_ON

    async def set(self, user_id: int, value: str | None) -> None:
        """Store ``value`` (None: off), then use it from now on."""
        await self._store.set_dm_pref(user_id, value)
        if value is None:
            self._values.pop(user_id, None)
        else:
            self._values[user_id] = value

    def remember(self, user_id: int, value: str | None) -> None:
        """What the store holds now (read by the caller), without writing it again."""
        if value is None:
            self._values.pop(user_id, None)
        else:
            self._values[user_id] = value

    def forget(self, user_id: int) -> None:
        """The store forgot the member (bot/store/privacy.py): so does memory."""
        self._values.pop(user_id, None)
