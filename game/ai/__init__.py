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

from game import rules
from game.actions import Action
from game.errors import MalformedRecord
from game.game import Game
from game.heap import FULL_COLLECTION_EVERY as FULL_COLLECTION_EVERY
from game.heap import settle_heap as settle_heap  # (searching processes, once set up)
from game.state import Phase
from game.views import PlayerView, player_view

# The AIs import single rule modules (for their data); load the whole registry first, or
# game.rules' lazy loader would see it non-empty and never register the others.
rules.names()


class Player(Protocol):
    """Anything that picks one of ``view.legal`` when it is its turn."""

    name: str

    def choose(self, view: PlayerView) -> Action:
        """One of ``view.legal`` (never empty when this is called)."""
        ...


class LegalOnlyPlayer(Player, Protocol):
    """A player whose choice needs nothing but the legal actions (the ``random`` AI).

    :func:`play_out` hands it ``game.legal_actions()`` directly and skips building a
    view, which is what makes AI-only simulations fast; its ``choose(view)`` must
    decide the same way from ``view.legal``.
    """

    def choose_legal(self, legal: Sequence[Action]) -> Action:
        """One of ``legal`` (never empty when this is called)."""
        ...


PlayerFactory = Callable[[int | str], Player]
"""Builds a player from the seed of its private chooser generator."""

_REGISTRY: dict[str, PlayerFactory] = {}


def register(name: str, factory: PlayerFactory) -> None:
    """Make ``factory`` available as ``find(name)``."""
    _REGISTRY[name] = factory


def _load() -> None:
    """Import every AI module (each registers itself) once: every player made asks, and
    the import statement's machinery costs even when the modules are loaded."""
    if _LOADED:
        return
    from game.ai import hard, heuristic, random  # noqa: F401

    _LOADED.append(True)


_LOADED: list[bool] = []


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
    fast = [getattr(player, "choose_legal", None) for player in players]
    actions = 0
    state = game.state  # (``game.finished`` and ``game.to_act`` read it: every action asks)
    legal_actions, apply = game.legal_actions, game.apply
    while state.phase is not Phase.FINISHED:
        seat = state.to_act
        if seat is None:  # a game without a seed waits for a deck: nothing to decide
            raise MalformedRecord("play_out needs a seeded game (it is waiting for a deal)")
        choose_legal = fast[seat]
        if choose_legal is not None:
            action = choose_legal(legal_actions())
        else:
            action = players[seat].choose(player_view(game, seat))
        apply(seat, action)
        actions += 1
    return actions
