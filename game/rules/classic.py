"""docs/rules.md §1: L.L.A.M.A., the shedding game as published."""

from __future__ import annotations

from game.rules.registry import register
from game.rules.shedding import Shedding


class Classic(Shedding):
    """L.L.A.M.A.: play the same value or the next one, draw, or quit."""

    name = "classic"
    title = "L.L.A.M.A."


CLASSIC = register(Classic())
