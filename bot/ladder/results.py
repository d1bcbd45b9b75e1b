"""Results and the leaderboard's rows (the store keeps them; see bot/store/sqlite.py,
bot/store/ladder_queries.py)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.ladder.ratings import NEW, Skill


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
    """One player's record in a guild's rule set: the leaderboard's row."""

    user_id: int
    name: str
    games: int
    wins: int
    points: int
    skill: Skill = NEW

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def average_points(self) -> float:
        return self.points / self.games if self.games else 0.0

    @property
    def rating(self) -> float:
        """The cautious OpenSkill rating, ``mu - 3 sigma`` (bot/ladder/ratings.py): what ranks."""
        return self.skill.ordinal


@dataclass(frozen=True)
class PlayedGame:
    """One finished game of one player (``/lama stats``), oldest first in lists."""

    game_id: str
    variant: str
    ended_at: float
    points: int
    won: bool
    place: int | None  # None: not rated (no place known)
    players: int | None
    skill: Skill | None  # the rating after this game


def board_order(standings: list[Standing]) -> list[Standing]:
    """Best first: rating, then more games, then the name (a stable order for ties)."""
    return sorted(standings, key=lambda s: (-s.rating, -s.games, s.name, s.user_id))
