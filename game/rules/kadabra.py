"""docs/rules.md §2: L.A.M.A. Kadabra: doubles, gifts, the magic token and stage."""

from __future__ import annotations

from collections.abc import Mapping

from game.actions import SKIP, Action, ActionType, play
from game.cards import LLAMA_CARD, ONE, Card, Symbol
from game.events import Event, EventKind, ScoreItem, ScoreKind
from game.rules import BLACK_POINTS, gain_white, next_active, register
from game.rules.shedding import PLAY_ACTIONS, PLAYABLE_ON, Shedding
from game.state import State

DECK_COUNTS: dict[str, int] = {
    "1": 8,
    **{token: count for v in "23456" for token, count in ((v, 4), (f"{v}*", 1), (f"{v}+", 1))},
    "2/3": 4,
    "2/3*": 1,
    "4/5": 4,
    "4/5+": 1,
    "L": 12,
}
"""docs/rules.md §2 deck table: the one place a host swaps the Kadabra split."""

PLAY_ONE = PLAY_ACTIONS[ONE]
GIFTS = tuple(play(ONE, to) for to in range(6))
"""A ``1`` given to each seat (a game has at most 6)."""

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


class Kadabra(Shedding):
    """L.A.M.A. Kadabra."""

    name = "kadabra"
    title = "L.A.M.A. Kadabra"
    action_types = frozenset({ActionType.PLAY, ActionType.DRAW, ActionType.QUIT, ActionType.SKIP})
    uses_magic = True

    def deck(self) -> tuple[Card, ...]:
        return tuple(Card.parse(t) for t, count in DECK_COUNTS.items() for _ in range(count))

    def setup_game(self, state: State, options: Mapping[str, int]) -> None:
        """docs/rules.md §2 game set-up: 3 white chips each; token in the supply."""
        state.white = [STARTING_WHITE] * state.players

    # ---- legal actions -------------------------------------------------
    def gives(self, state: State, seat: int) -> bool:
        """Whether a ``1`` played now gives something (§2, fine point 7)."""
        if not recipients(state, seat):
            return False
        return has_gift(state, seat) or show_on(state)

    card_effects = True

    def adjust_plays(self, state: State, seat: int, actions: list[Action]) -> None:
        """A ``1`` that gives something is listed once per recipient, in its place."""
        if ONE not in PLAYABLE_ON[state.top or ONE] or ONE not in state.hands[seat]:
            return  # (membership by identity: cheap, and on every listing)
        if self.gives(state, seat):
            at = next(i for i, a in enumerate(actions) if a is PLAY_ONE)
            actions[at : at + 1] = [GIFTS[to] for to in recipients(state, seat)]

    def extra_actions(self, state: State, seat: int) -> list[Action]:
        return [SKIP] if state.token == seat else []

    # ---- effects ---------------------------------------------------------
    def before_action(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        """Fine point 11: during a show, anything but an L or a skip takes the stage."""
        if not show_on(state) or action.type is ActionType.SKIP:
            return
        if action.type is ActionType.PLAY and action.card is LLAMA_CARD:
            return
        white, black = state.stage_white, state.stage_black
        state.stage_white = state.stage_black = 0
        gain_white(state, seat, white)
        state.black[seat] += black
        events.append(Event(EventKind.TOOK_STAGE, seat=seat, points=(white, black)))

    def after_play(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        card = action.card
        if card is ONE and action.give_to is not None:
            self._give(state, seat, action.give_to, events)
        if card is None:
            return
        if card.symbol is Symbol.STAR and state.token != seat:
            events.append(Event(EventKind.TOOK_TOKEN, seat=seat, other=state.token))
            state.token = seat
        if card is LLAMA_CARD:
            self._stage_chip(state, seat, events)
        if card.symbol is Symbol.DRAW and state.hands[seat]:
            self._forced_draw(state, seat, events)

    def _give(self, state: State, seat: int, to: int, events: list[Event]) -> None:
        """§2 playing a 1: white, else the token, else black."""
        if state.white[seat]:
            state.white[seat] -= 1
            gain_white(state, to, 1)
            given = "white"
        elif state.token == seat:
            state.token = to
            given = "token"
        elif state.black[seat]:
            state.black[seat] -= 1
            state.black[to] += 1
            given = "black"
        else:
            return
        events.append(Event(EventKind.GAVE, seat=seat, card=given, other=to))

    def _stage_chip(self, state: State, seat: int, events: list[Event]) -> None:
        """§2 magic stage: an L puts one of the player's lowest chips on the stage."""
        if state.white[seat]:
            state.white[seat] -= 1
            state.stage_white += 1
            events.append(Event(EventKind.STAGED, seat=seat, card="white"))
        elif state.black[seat]:
            state.black[seat] -= 1
            state.stage_black += 1
            events.append(Event(EventKind.STAGED, seat=seat, card="black"))

    def _forced_draw(self, state: State, seat: int, events: list[Event]) -> None:
        """§2 and fine points 8–9: the next player to take a turn draws one card."""
        target = next_active(state, seat)
        if target is None or not state.draw_pile:
            return
        card = state.draw_pile.pop()
        state.hands[target].append(card)
        events.append(Event(EventKind.FORCED_DRAW, seat=target))
        events.append(Event(EventKind.DREW_CARD, seat=target, card=card.token, private_to=target))

    def apply_extra(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        if action.type is ActionType.SKIP:
            state.token = None
            events.append(Event(EventKind.SKIPPED, seat=seat))
            state.to_act = next_active(state, seat)
            return
        super().apply_extra(state, seat, action, events)

    def score_extras(
        self, state: State, points: list[int], items: list[list[ScoreItem]] | None
    ) -> None:
        """Fine points 12–13: the token's holder (after any chip returned) takes a black
        chip; the token goes back to the supply."""
        holder = state.token
        if holder is not None:
            state.black[holder] += 1
            points[holder] += TOKEN_POINTS
            state.token = None
            if items is not None:
                items[holder].append(ScoreItem(ScoreKind.TOKEN, TOKEN_POINTS))

    # ---- explanations ----------------------------------------------------
    def explain_play(self, state: State, seat: int, action: Action) -> str:
        if action.card is not ONE:
            return "only a 1 gives a chip, so no recipient may be named"
        if not self.gives(state, seat):
            return "this 1 gives nothing (no chip or token to give, or nobody left to take it)"
        if action.give_to is None:
            return "a 1 gives a chip: name the player who receives it"
        if action.give_to == seat:
            return "you cannot give a chip to yourself"
        if 0 <= action.give_to < state.players and state.quit[action.give_to]:
            return "that player has quit this round"
        return "no such player"

    def explain(self, state: State, action: Action) -> str:
        if action.type is ActionType.SKIP:
            return "only the holder of the magic token may skip"
        return super().explain(state, action)


KADABRA = register(Kadabra())
