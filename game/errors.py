"""One hierarchy for every refusal the engine or a record can produce.

All are ``ValueError`` subclasses; each carries the machine-readable ``code``
used by game records (docs/record.md) and a message naming the action and the
situation.
"""

from __future__ import annotations


class RulesError(ValueError):
    """Base class: something the rules or the record format refuse."""

    code = "illegal_action"


class GameOver(RulesError):
    """An action was offered after the game ended."""

    code = "game_over"


class NotYourTurn(RulesError):
    """A player acted while another player is to act."""

    code = "not_your_turn"


class IllegalAction(RulesError):
    """The player to act offered an action the rules do not allow now."""

    code = "illegal_action"


class MissingChance(RulesError):
    """The game needs a chance outcome (a deck, a roll) nobody supplied."""

    code = "missing_chance"


class MalformedRecord(RulesError):
    """A game record (or a text form of an action) does not parse."""

    code = "malformed_record"
