"""What the bot does for a player whose turn timer ran out: each rule set's default action.

- classic, kadabra, dice (before rolling): **quit** the round. Quitting is always
  legal there and keeps the player's cards as they are; it is what a player who
  walked away would have to accept.
- dice, after a roll (resolve phase; quitting is not allowed): **discard** the most
  tiles the roll allows (ties: the highest values first), or, when no own tile
  matches, **take** the lowest matching tile of the llama row. Discarding is always
  in the player's favour; the lowest row tile adds the fewest points.
- tutorial: **draw**, then **pass** (keep the drawn card); when drawing is not
  allowed (the pile is empty) **stop** the round.

Anything else (a rule set added later): the first legal action.
"""

from __future__ import annotations

from game import Action, ActionType, PlayerView

QUIT_FIRST = (ActionType.QUIT,)
TUTORIAL_ORDER = (ActionType.PASS, ActionType.DRAW, ActionType.STOP)


def _tile_points(action: Action) -> int:
    return sum(max(t.values) for t in action.tiles) if action.tiles else 0


def default_action(view: PlayerView) -> Action | None:
    """The timed-out player's action for ``view`` (their own view), or None if nothing is legal."""
    legal = list(view.legal)
    if not legal:
        return None
    by_type: dict[ActionType, list[Action]] = {}
    for action in legal:
        by_type.setdefault(action.type, []).append(action)
    order = TUTORIAL_ORDER if view.variant == "tutorial" else QUIT_FIRST
    for kind in order:
        if kind in by_type:
            return by_type[kind][0]
    if ActionType.DISCARD in by_type:
        return max(by_type[ActionType.DISCARD], key=lambda a: (len(a.tiles), _tile_points(a)))
    if ActionType.TAKE in by_type:
        return min(by_type[ActionType.TAKE],
                   key=lambda a: max(a.card.values) if a.card is not None else 0)
    return legal[0]


def continues_turn(action: Action) -> bool:
    """After this default, the same turn goes on (tutorial: a draw may be followed by a pass)."""
    return action.type is ActionType.DRAW
