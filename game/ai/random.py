"""The ``random`` AI: a uniform choice among the legal actions (the baseline)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

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
        return legal[int(self._random() * len(legal))]  # uniform_pick, inlined (every turn)

    @classmethod
    def draws(cls, seed: str) -> Callable[[], float]:
        """The numbers the player made with ``seed`` picks by, one per decision, from the
        same generator built for less (``rng.fast_chooser``'s, written in): ``simulate``
        plays line-ups of ``random`` players on the fast path with these
        (``RuleSet.play_round_uniformly``)."""
        return rng.seeded(f"{seed}:ai:{cls.name}").random

    @classmethod
    def reseed(cls, twister: rng.Twister, seed: str) -> None:
        """Put ``twister`` in the state of :meth:`draws`'s generator for ``seed`` (its
        ``random`` then gives the same numbers): ``simulate``'s fast path keeps a Twister
        per seat from game to game rather than building one a game."""
        twister.seed(rng.seed_of(f"{seed}:ai:{cls.name}"))


register(RandomPlayer.name, RandomPlayer)
