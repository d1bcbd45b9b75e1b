"""Skill ratings: one OpenSkill (Plackett–Luce) rating per player, server and rule set.

Why OpenSkill: L.A.M.A. is played by 2 to 6 at once, and a finishing order says more than
"won or lost". Plackett–Luce rates a whole finishing order in one update, and keeps an
uncertainty (σ) beside the skill (μ): a new player is unknown (μ 25, σ 8.3), and each game
narrows it. The board shows the cautious rating ``μ − 3σ`` (OpenSkill's ordinal; 0 for a
newcomer), so one lucky game cannot top it, with ``μ ± σ`` beside it.

AI seats take part: each difficulty (easy, normal, hard) has its own rating per server and
rule set, learned from its games like a player's, and never shown on the board. Beating a
hard AI then counts for more than beating an easy one, and beating the easy AI again and
again soon counts for little. Two AI seats of one difficulty in a game are two entrants
with the same rating; afterwards the difficulty keeps their average.

Pure arithmetic: the store (bot/store/ladder_queries.py) reads and writes the ratings in the
transaction
that stores the game, so a game is rated exactly once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()  # OpenSkill's defaults: μ 25, σ 25/3, β 25/6, τ 25/300
AI_KEYS: dict[str, int] = {"easy": -1, "normal": -2, "hard": -3}
"""The rating rows of AI difficulties (negative: no Discord user has such an id)."""


def ai_key(difficulty: str | None) -> int:
    """An AI seat's rating row; a seat without a difficulty (older games) is normal."""
    return AI_KEYS.get(difficulty or "normal", AI_KEYS["normal"])


@dataclass(frozen=True)
class Skill:
    """A rating: skill ``mu`` and its uncertainty ``sigma``."""

    mu: float = MODEL.mu
    sigma: float = MODEL.sigma

    @property
    def ordinal(self) -> float:
        """The cautious rating shown and ranked by: ``mu - 3 sigma`` (0 for a newcomer)."""
        return self.mu - 3 * self.sigma


NEW = Skill()


@dataclass(frozen=True)
class Entrant:
    """One seat of a finished game, as the rating sees it."""

    key: int  # the user id, or an AI difficulty's key (:data:`AI_KEYS`)
    name: str
    points: int
    won: bool


def finishing_places(entrants: Sequence[Entrant], lower_score_wins: bool) -> list[int]:
    """1 for the winners, then by points in the rule set's direction; equal results share."""
    def result(e: Entrant) -> tuple[int, int]:
        return (0 if e.won else 1, e.points if lower_score_wins else -e.points)

    keys = [result(e) for e in entrants]
    return [1 + sum(other < key for other in keys) for key in keys]


def rate(entrants: Sequence[Entrant], places: Sequence[int],
         before: dict[int, Skill]) -> dict[int, Skill]:
    """Every entrant's key -> its rating after the game (``before``: missing keys are new)."""
    if len(entrants) < 2:
        return {e.key: before.get(e.key, NEW) for e in entrants}
    teams = [[MODEL.rating(mu=before.get(e.key, NEW).mu, sigma=before.get(e.key, NEW).sigma)]
             for e in entrants]
    rated = MODEL.rate(teams, ranks=[float(p) for p in places])
    after: dict[int, list[Skill]] = {}
    for entrant, (rating,) in zip(entrants, rated, strict=True):
        after.setdefault(entrant.key, []).append(Skill(rating.mu, rating.sigma))
    return {key: Skill(sum(s.mu for s in skills) / len(skills),
                       sum(s.sigma for s in skills) / len(skills))
            for key, skills in after.items()}
