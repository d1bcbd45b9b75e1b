"""Why a playout stops in its middle: shared by both searches (flat sampling in
:mod:`game.ai.hard`, the tree in :mod:`game.ai.ismcts`), below both."""

from __future__ import annotations


class OutOfTime(Exception):
    """The deadline passed in the middle of a playout."""


class OutOfSteps(Exception):
    """The playout steps allowed to one decision ran out in the middle of a playout."""
