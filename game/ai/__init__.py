"""AI players: they decide from one seat's :class:`~game.views.PlayerView` only.

An AI never sees the full state, so it cannot cheat, and the bot can seat one
at a table exactly like a person. Every AI's randomness comes from its own
``game.rng.chooser`` generator, so a seeded game between AIs is reproducible.

    player = find("heuristic")(seed="7:0:1")
    action = player.choose(player_view(game, seat))
"""

from __future__ import annotations

from collections.abc import Sequence

from game.ai import hard, heuristic, random  # each registers itself on import
from game.ai.registry import LegalOnlyPlayer, Player, PlayerFactory, find, names, register
from game.errors import MalformedRecord
from game.game import Game
from game.heap import FULL_COLLECTION_EVERY as FULL_COLLECTION_EVERY
from game.heap import settle_heap as settle_heap  # (searching processes, once set up)
from game.state import Phase
from game.views import player_view

__all__ = [
    "FULL_COLLECTION_EVERY",
    "LegalOnlyPlayer",
    "Player",
    "PlayerFactory",
    "find",
    "hard",
    "heuristic",
    "names",
    "play_out",
    "random",
    "register",
    "settle_heap",
]


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
