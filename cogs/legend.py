"""Which symbols a game has already explained to each player (the hand's legend line).

A symbol's meaning is shown the first time the player's hand shows it in a game, once: the
hand then stays short. Kept in memory only (a restart explains them once more), and for a
bounded number of (game, player) pairs, oldest forgotten first.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

KEPT = 20_000  # (game, player) pairs remembered: a few per running game


class Explained:
    """Per game and player, the legend keys (cogs.hand_view.LEGEND) already shown."""

    def __init__(self, kept: int = KEPT) -> None:
        self.kept = kept
        self._shown: OrderedDict[tuple[str, int], set[str]] = OrderedDict()

    def new(self, game_id: str, user_id: int, keys: Iterable[str]) -> list[str]:
        """The keys of ``keys`` not yet explained to ``user_id`` in ``game_id``; they count
        as explained from now on."""
        key = (game_id, user_id)
        shown = self._shown.get(key)
        if shown is None:
            shown = self._shown[key] = set()
            while len(self._shown) > self.kept:
                self._shown.popitem(last=False)
        fresh = [k for k in keys if k not in shown]
        shown.update(fresh)
        return fresh
