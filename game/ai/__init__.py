"""AI players: they decide from one seat's :class:`~game.views.PlayerView` only.

An AI never sees the full state, so it cannot cheat, and the bot can seat one
at a table exactly like a person. Every AI's randomness comes from its own
``game.rng.chooser`` generator, so a seeded game between AIs is reproducible.

    player = find("heuristic")(seed="7:0:1")
    action = player.choose(player_view(game, seat))
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Sequence
from typing import Protocol

from game import rules
from game.actions import Action
from game.errors import MalformedRecord
from game.game import Game
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
    """Import every AI module (each registers itself); importing twice costs nothing."""
    from game.ai import hard, heuristic, random  # noqa: F401


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


FULL_COLLECTION_EVERY = 100
"""Second-generation collections per full one in a searching process (CPython: 10)."""


def settle_heap() -> int:
    """Collect once, freeze every object alive (out of later collections' reach), and make
    full collections ten times rarer; returns how many objects were frozen.

    For the processes that search (``python -m game simulate``, the bot's AI workers), once
    set up: a decision is timed (and bounded) as its process's CPU time, and a full
    collection in its middle walks every module's objects. The search's own caches hold only
    ints and floats, which the collector never tracks."""
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)
    return gc.get_freeze_count()


def play_out(game: Game, players: Sequence[Player]) -> int:
    """Let ``players[seat]`` act for every seat until the game ends; returns the action count.

    Each decision sees only :func:`player_view` of the seat to act, as at a real table.
    """
    fast = [getattr(player, "choose_legal", None) for player in players]
    actions = 0
    while not game.finished:
        seat = game.to_act
        if seat is None:  # a game without a seed waits for a deck: nothing to decide
            raise MalformedRecord("play_out needs a seeded game (it is waiting for a deal)")
        choose_legal = fast[seat]
        if choose_legal is not None:
            action = choose_legal(game.legal_actions())
        else:
            action = players[seat].choose(player_view(game, seat))
        game.apply(seat, action)
        actions += 1
    return actions
