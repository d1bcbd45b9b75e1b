"""lama's rules engine: pure, deterministic, no I/O.

Public API::

    from game import Game, Action, player_view, summary
    g = Game("classic", ["ana", "ben"], seed=7)
    seat = g.to_act
    g.apply(seat, g.legal_actions()[0])
    view = player_view(g, seat)         # what that seat may see
    record = to_dict(g)                 # replayable record (docs/record.md)
"""

from __future__ import annotations

from game.actions import Action, ActionType
from game.cards import Card
from game.errors import (
    GameOver,
    IllegalAction,
    MalformedRecord,
    MissingChance,
    NotYourTurn,
    RulesError,
)
from game.events import Event, EventKind, visible_to
from game.game import Game
from game.record import Record, ReplayResult, dumps, from_dict, loads, replay, to_dict
from game.rules import find as find_rules
from game.rules import names as variant_names
from game.state import Phase
from game.views import PlayerView, SeatView, player_view, summary

__all__ = [
    "Action",
    "ActionType",
    "Card",
    "Event",
    "EventKind",
    "Game",
    "GameOver",
    "IllegalAction",
    "MalformedRecord",
    "MissingChance",
    "NotYourTurn",
    "Phase",
    "PlayerView",
    "Record",
    "ReplayResult",
    "RulesError",
    "SeatView",
    "dumps",
    "find_rules",
    "from_dict",
    "loads",
    "player_view",
    "replay",
    "summary",
    "to_dict",
    "variant_names",
    "visible_to",
]
