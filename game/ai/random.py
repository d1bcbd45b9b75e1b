"""The ``random`` AI: a uniform choice among the legal actions (the baseline)."""

from __future__ import annotations

from game import rng
from game.actions import Action
from game.ai import register
from game.views import PlayerView


class RandomPlayer:
    """Picks any legal action with equal chance, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | str) -> None:
        self._chooser = rng.chooser(seed, self.name)

    def choose(self, view: PlayerView) -> Action:
        return self._chooser.choice(view.legal)


register(RandomPlayer.name, RandomPlayer)
