"""The rule sets: the interface (:mod:`game.rules.base`), the score items
(:mod:`game.rules.items`), the registry (:mod:`game.rules.registry`) and one module per
rule set.

Importing the package registers every rule set, in a stable order. Modules outside the
package import from here; modules inside it import :mod:`~game.rules.base`,
:mod:`~game.rules.items` and :mod:`~game.rules.registry`, never this ``__init__`` (which
imports them).
"""

from __future__ import annotations

from game.rules import classic, dice, kadabra, tutorial  # each registers itself: names()' order
from game.rules.base import (
    HAND_SIZE,
    UNKEPT,
    Chance,
    RuleSet,
    end_round,
    gain_white,
    leave_round,
    next_active,
    others_in,
    quit_round,
    return_chip,
)
from game.rules.items import BLACK_POINTS, CHIP_POINTS, LLAMA_POINTS, WHITE_POINTS, counted_values
from game.rules.registry import find, names, register

__all__ = [
    "BLACK_POINTS",
    "CHIP_POINTS",
    "HAND_SIZE",
    "LLAMA_POINTS",
    "UNKEPT",
    "WHITE_POINTS",
    "Chance",
    "RuleSet",
    "classic",
    "counted_values",
    "dice",
    "end_round",
    "find",
    "gain_white",
    "kadabra",
    "leave_round",
    "names",
    "next_active",
    "others_in",
    "quit_round",
    "register",
    "return_chip",
    "tutorial",
]
