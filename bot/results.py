"""Results and the leaderboard's arithmetic (the store keeps them; see bot/store.py)."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class SeatResult:
    """One seat's end of a finished game."""

    seat: int
    user_id: int | None
    name: str
    points: int
    won: bool


@dataclass(frozen=True)
class Standing:
    """One player's record in a guild: the leaderboard's row."""

    user_id: int
    name: str
    games: int
    wins: int
    points: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def average_points(self) -> float:
        return self.points / self.games if self.games else 0.0

    @property
    def rating(self) -> float:
        """Wilson lower bound (95 %) of the win rate: one lucky game does not top the board."""
        return wilson_lower_bound(self.wins, self.games)


def wilson_lower_bound(wins: int, games: int, z: float = 1.96) -> float:
    """The lower end of the Wilson score interval of ``wins`` out of ``games``."""
    if games == 0:
        return 0.0
    p = wins / games
    denominator = 1 + z * z / games
    centre = p + z * z / (2 * games)
    margin = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games))
    return (centre - margin) / denominator
