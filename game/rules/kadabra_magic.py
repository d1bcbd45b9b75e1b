"""docs/rules.md §2: L.A.M.A. Kadabra's chips, token and stage: its numbers and the chip
moves a card makes (the pure helpers :mod:`game.rules.kadabra` and its fused games in
:mod:`game.rules.kadabra_uniform` both use)."""

from __future__ import annotations

from game.rules.base import BLACK_POINTS, gain_white, next_active
from game.state import State

STARTING_WHITE = 3
SHOW_THRESHOLD = 5
TOKEN_POINTS = BLACK_POINTS
"""The magic token's holder at the end of a round takes one black chip."""


def show_on(state: State) -> bool:
    """docs/rules.md §2: the magic show is on while the stage holds 5 or more chips."""
    return state.stage_white + state.stage_black >= SHOW_THRESHOLD


def has_gift(state: State, seat: int) -> bool:
    """Whether ``seat`` holds anything a ``1`` would make them give."""
    return bool(state.white[seat] or state.token == seat or state.black[seat])


def recipients(state: State, seat: int) -> list[int]:
    """The players a ``1`` may give to: the others who have not quit."""
    return [s for s in range(state.players) if s != seat and not state.quit[s]]


def give(state: State, seat: int, to: int) -> str | None:
    """§2 playing a 1: white, else the token, else black; what was given (``None``: nothing)."""
    if state.white[seat]:
        state.white[seat] -= 1
        gain_white(state, to, 1)
        return "white"
    if state.token == seat:
        state.token = to
        return "token"
    if state.black[seat]:
        state.black[seat] -= 1
        state.black[to] += 1
        return "black"
    return None


def stage_chip(state: State, seat: int) -> str | None:
    """§2 magic stage: an L puts one of the player's lowest chips on the stage (its colour)."""
    if state.white[seat]:
        state.white[seat] -= 1
        state.stage_white += 1
        return "white"
    if state.black[seat]:
        state.black[seat] -= 1
        state.stage_black += 1
        return "black"
    return None


def forced_draw(state: State, seat: int) -> int | None:
    """§2 and fine points 8–9: the next player to take a turn draws one card (who drew)."""
    target = next_active(state, seat)
    if target is None or not state.draw_pile:
        return None
    state.hands[target].append(state.draw_pile.pop())
    return target
