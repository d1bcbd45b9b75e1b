"""The lobby's rules: who sits where before the game starts, and who may change it.

A mixin of :class:`bot.sessions.sessions.Session` (its seating half): each method takes the
session's lock, checks who asks, changes the seats and commits a snapshot.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from bot.sessions.errors import BotError, NotAllowed
from bot.sessions.state import Seat, Status
from bot.words.i18n import N_

MAX_SEATS = 6
MAX_NAME = 32
"""A seat's name is cut to Discord's longest display name, so every label built from it fits."""


class Seating:
    """Joining, leaving, AI seats and cancelling, while the session is a lobby."""

    if TYPE_CHECKING:
        host_id: int
        seats: list[Seat]
        status: Status
        lock: asyncio.Lock

        def seat_of(self, user_id: int) -> int | None: ...
        def require_seat(self, user_id: int) -> int: ...
        async def _changed(self, *, snapshot: bool = False) -> None: ...
        async def end(self, results: None, reason: str | None = None) -> None: ...

    async def join(self, user_id: int, name: str) -> None:
        async with self.lock:
            self._require_lobby()
            if self.seat_of(user_id) is not None:
                raise BotError(N_("You are already seated."))
            if len(self.seats) >= MAX_SEATS:
                raise BotError(N_("The table is full ({n} seats)."), n=MAX_SEATS)
            self.seats.append(Seat(user_id, self._free_name(name)))
            await self._changed(snapshot=True)

    async def leave(self, user_id: int) -> None:
        """Leave the lobby; a host who leaves hands hosting to the first human still seated."""
        async with self.lock:
            self._require_lobby()
            seat = self.require_seat(user_id)
            del self.seats[seat]
            if user_id == self.host_id:
                self.host_id = next(
                    (s.user_id for s in self.seats if s.user_id is not None), user_id
                )
            await self._changed(snapshot=True)

    async def add_ai(
        self, user_id: int, name: str = "AI {n}", difficulty: str | None = None,
        figures: Callable[[int], str] = str,
    ) -> None:
        """The host seats an AI named ``name`` (``{n}``: the first free number, written by
        ``figures``; the lobby translates both, so a Persian table seats «ربات ۲») of
        ``difficulty`` (easy, normal, hard; None: normal)."""
        async with self.lock:
            self._require_lobby()
            self._require_host(user_id)
            if len(self.seats) >= MAX_SEATS:
                raise BotError(N_("The table is full ({n} seats)."), n=MAX_SEATS)
            number = 1
            while any(s.name == name.format(n=figures(number)) for s in self.seats):
                number += 1
            self.seats.append(Seat(None, name.format(n=figures(number)), difficulty=difficulty))
            await self._changed(snapshot=True)

    async def remove_ai(self, user_id: int) -> None:
        """The host removes the AI seated last."""
        async with self.lock:
            self._require_lobby()
            self._require_host(user_id)
            seat = next((i for i in reversed(range(len(self.seats)))
                         if self.seats[i].user_id is None), None)
            if seat is None:
                raise BotError(N_("There is no AI seat to remove."))
            del self.seats[seat]
            await self._changed(snapshot=True)

    async def cancel(self, user_id: int) -> None:
        async with self.lock:
            self._require_lobby()
            self._require_host(user_id)
            await self.end(None)

    def _require_lobby(self) -> None:
        if self.status is Status.ABANDONED:  # cancelled, stopped or expired while this waited
            raise BotError(N_("This lobby is closed."))
        if self.status is not Status.LOBBY:
            raise BotError(N_("The game has already started."))

    def _require_host(self, user_id: int) -> None:
        if user_id != self.host_id:
            raise NotAllowed()

    def _free_name(self, name: str) -> str:
        taken = {s.name for s in self.seats}
        base = " ".join(name.split())[:MAX_NAME] or "player"
        candidate, n = base, 2
        while candidate in taken:
            candidate, n = f"{base} ({n})", n + 1
        return candidate
