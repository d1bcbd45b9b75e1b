"""Which symbols a game has already explained to each player (the hand's legend line).

A symbol's meaning is shown the first time the player's hand shows it in a game, once: the
hand then stays short. Kept in memory only (a restart explains them once more), per channel
and player: a channel's next game replaces what its last one explained (an ended game's
entries are not kept for nothing), and for a bounded number of pairs, oldest forgotten first.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

KEPT = 20_000  # (channel, player) pairs remembered: a few per running game


class Explained:
    """Per channel and player, the game and the legend keys (cogs.hand_view.LEGEND) it
    already showed them."""

    def __init__(self, kept: int = KEPT) -> None:
        self.kept = kept
        self._shown: OrderedDict[tuple[int, int], tuple[str, set[str]]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._shown)

    def new(self, channel_id: int, game_id: str, user_id: int, keys: Iterable[str]
            ) -> list[str]:
        """The keys of ``keys`` not yet explained to ``user_id`` in ``game_id`` (the game of
        ``channel_id``); they count as explained from now on."""
        key = (channel_id, user_id)
        entry = self._shown.get(key)
        if entry is None or entry[0] != game_id:
            self._shown.pop(key, None)
            entry = self._shown[key] = (game_id, set())
            while len(self._shown) > self.kept:
                self._shown.popitem(last=False)
        shown = entry[1]
        fresh = [k for k in keys if k not in shown]
        shown.update(fresh)
        return fresh
