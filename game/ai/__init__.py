"""AI players: they decide from one seat's :class:`~game.views.PlayerView` only.

An AI never sees the full state, so it cannot cheat, and the bot can seat one
at a table exactly like a person. Every AI's randomness comes from its own
``game.rng.chooser`` generator, so a seeded game between AIs is reproducible.

    player = find("heuristic")(seed="7:0:1")
    action = player.choose(player_view(game, seat))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from game.actions import Action
from game.errors import MalformedRecord
from game.game import Game
from game.views import PlayerView, player_view


class Player(Protocol):
    """Anything that picks one of ``view.legal`` when it is its turn."""

    name: str

    def choose(self, view: PlayerView) -> Action:
        """One of ``view.legal`` (never empty when this is called)."""
        ...


PlayerFactory = Callable[[int | str], Player]
"""Builds a player from the seed of its private chooser generator."""

_REGISTRY: dict[str, PlayerFactory] = {}


def register(name: str, factory: PlayerFactory) -> None:
    """Make ``factory`` available as ``find(name)``."""
    _REGISTRY[name] = factory


def _load() -> None:
    if not _REGISTRY:
        from game.ai import heuristic, random  # noqa: F401  (they register themselves)


def names() -> list[str]:
    """The registered AI names, in a stable order."""
    _load()
    return sorted(_REGISTRY)


def find(name: str) -> PlayerFactory:
    """The factory of the AI called ``name``; ``MalformedRecord`` if there is none."""
    _load()
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise MalformedRecord(f"unknown AI {name!r}; known: {', '.join(names())}") from None


def play_out(game: Game, players: Sequence[Player]) -> int:
    """Let ``players[seat]`` act for every seat until the game ends; returns the action count.

    Each decision sees only :func:`player_view` of the seat to act, as at a real table.
    """
    actions = 0
    while not game.finished:
        seat = game.to_act
        if seat is None:  # a game without a seed waits for a deck: nothing to decide
            raise MalformedRecord("play_out needs a seeded game (it is waiting for a deal)")
        game.apply(seat, players[seat].choose(player_view(game, seat)))
        actions += 1
    return actions
