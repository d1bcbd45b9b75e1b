"""The ``random`` AI: a uniform choice among the legal actions (the baseline)."""

from __future__ import annotations

from collections.abc import Sequence

from game import rng
from game.actions import Action
from game.ai.registry import register
from game.views import PlayerView


class RandomPlayer:
    """Picks any legal action with equal chance, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | str) -> None:
        self._random = rng.chooser(seed, self.name).random

    def choose(self, view: PlayerView) -> Action:
        return self.choose_legal(view.legal)

    def choose_legal(self, legal: Sequence[Action]) -> Action:
        """The same choice as ``choose``, from the legal actions alone (the fast path)."""
        return legal[int(self._random() * len(legal))]


register(RandomPlayer.name, RandomPlayer)
