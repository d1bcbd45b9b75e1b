"""AI players for seats: a seat's difficulty picks the game.ai player that decides for it.

``easy`` = ``random``, ``normal`` = ``heuristic`` (also for a human's seat an AI plays
while they are away), ``hard`` = the ``hard`` search. Below :mod:`bot.sessions.sessions` (a session
makes its seats' players); when and where they decide is :mod:`bot.policies.ai_runner`'s policy.
"""

from __future__ import annotations

import logging
from typing import Protocol

from game import Action, PlayerView, rng

log = logging.getLogger(__name__)

AI_NAME = "heuristic"
DIFFICULTIES = {"easy": "random", "normal": "heuristic", "hard": "hard"}
"""Seat difficulty -> the game.ai player; a seat without one (older sessions) is normal."""
HARD_ITERATIONS: int | None = None
"""Worlds per decision (None: the rule set's own count, game/ai/hard.py's ``ITERATIONS``,
the counts its tournaments were measured with)."""
HARD_BUDGET = 0.15
"""Seconds a hard AI may think per decision (it stops after the world it is on)."""


class Player(Protocol):
    """What game.ai's players offer."""

    def choose(self, view: PlayerView) -> Action: ...


class RandomLegal:
    """Fallback player: a seeded random legal action (used if game.ai is missing)."""

    def __init__(self, seed: int | str) -> None:
        self._random = rng.chooser(seed, "bot-fallback")

    def choose(self, view: PlayerView) -> Action:
        return self._random.choice(view.legal)


def ai_name(difficulty: str | None) -> str:
    """The game.ai player of a difficulty (``None`` or unknown: normal)."""
    return DIFFICULTIES.get(difficulty or "normal", AI_NAME)


def make_player(seed: int | str, difficulty: str | None = None) -> Player:
    """The engine's AI for ``difficulty``, or the random fallback if game.ai is not available."""
    name = ai_name(difficulty)
    try:
        from game import ai
    except ImportError:
        return RandomLegal(seed)
    find = getattr(ai, "find", None)
    if find is None:
        return RandomLegal(seed)
    try:
        player: Player = find(name)(seed)
    except (KeyError, ValueError, LookupError):
        log.warning("game.ai has no %r player; using random legal moves", name)
        return RandomLegal(seed)
    if hasattr(player, "budget"):
        if HARD_ITERATIONS is not None:
            player.iterations = HARD_ITERATIONS  # type: ignore[attr-defined]
        player.budget = HARD_BUDGET  # type: ignore[attr-defined]
    return player


def thinks(player: Player) -> bool:
    """Whether ``player`` searches (decides in the pool) rather than answering at once."""
    return hasattr(player, "budget")
