"""The AI registry and what an AI is: each AI module registers its factory here on import.

It lives apart from ``game/ai/__init__.py``, which imports every AI (so all are registered
once the package is imported) and re-exports :func:`find` and :func:`names`: an AI imports
this module, never its package's ``__init__``, so no import runs in a circle.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from game.actions import Action
from game.errors import MalformedRecord
from game.views import PlayerView


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


def names() -> list[str]:
    """The registered AI names, in a stable order."""
    return sorted(_REGISTRY)


def find(name: str) -> PlayerFactory:
    """The factory of the AI called ``name``; ``MalformedRecord`` if there is none."""
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise MalformedRecord(f"unknown AI {name!r}; known: {', '.join(names())}") from None
