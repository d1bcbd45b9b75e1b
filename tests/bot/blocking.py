"""A player that thinks until the test lets it answer (it runs in the bot's AI pool)."""

from __future__ import annotations

from typing import Any

from game import Action, PlayerView


class BlockingPlayer:
    """Signals ``started`` when asked, answers (its last legal action) once ``release`` is set.

    ``budget`` marks it as a player that thinks, so the bot sends it to its process pool;
    the events are ``multiprocessing.Manager`` proxies, shared with the pool's worker.
    """

    budget = 1.0

    def __init__(self, started: Any, release: Any) -> None:
        self.started = started
        self.release = release

    def choose(self, view: PlayerView) -> Action:
        self.started.set()
        if not self.release.wait(60):
            raise TimeoutError("the test never released the thinking AI")
        return view.legal[-1]
