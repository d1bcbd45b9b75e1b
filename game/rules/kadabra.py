"""docs/rules.md §2: L.A.M.A. Kadabra: doubles, gifts, the magic token and stage."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from game import rng
from game.actions import DRAW, QUIT, SKIP, Action, ActionType, play
from game.cards import LLAMA_CARD, ONE, Card, Symbol
from game.events import Event, EventKind, ScoreItem, ScoreKind, shared
from game.rules.base import end_round, gain_white, leave_round, next_active
from game.rules.kadabra_magic import (  # (TOKEN_POINTS and the rest: read from here too)
    SHOW_THRESHOLD,
    STARTING_WHITE,
    TOKEN_POINTS,
    forced_draw,
    give,
    has_gift,
    recipients,
    show_on,
    stage_chip,
)
from game.rules.kadabra_uniform import play_game, play_round
from game.rules.registry import register
from game.rules.shedding import PLAY_ACTIONS, PLAYABLE_ON, Shedding
from game.state import State

if TYPE_CHECKING:
    from game.rules.base import Chance

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

DECK: tuple[Card, ...] = tuple(
    Card.parse(t) for t, count in DECK_COUNTS.items() for _ in range(count)
)
"""The deck, built once (every deal asks for it)."""

PLAY_ONE = PLAY_ACTIONS[ONE]
ONLY_SKIP: tuple[Action, ...] = (SKIP,)
NOTHING: tuple[Action, ...] = ()
GIFTS = tuple(play(ONE, to) for to in range(6))
"""A ``1`` given to each seat (a game has at most 6)."""

TOKEN_ITEM = ScoreItem(ScoreKind.TOKEN, TOKEN_POINTS)


class Kadabra(Shedding):
    """L.A.M.A. Kadabra."""

    name = "kadabra"
    title = "L.A.M.A. Kadabra"
    action_types = frozenset({ActionType.PLAY, ActionType.DRAW, ActionType.QUIT, ActionType.SKIP})
    uses_magic = True

    def deck(self) -> tuple[Card, ...]:
        return DECK

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

    def extra_actions(self, state: State, seat: int) -> Sequence[Action]:
        return ONLY_SKIP if state.token == seat else NOTHING

    def fast_listing(self) -> Callable[[State], list[Action]]:
        return self.fast_legal_actions

    def fast_legal_actions(self, state: State) -> list[Action]:
        """``legal_actions`` in one pass with the hooks inlined (the fast path): the same
        actions in the same order, which tests/game/test_fast.py checks game after game."""
        seat = state.to_act
        top = state.top
        if seat is None or top is None:
            return []
        held = dict.fromkeys(state.hands[seat])  # each card once, in hand order
        playable = PLAYABLE_ON[top]
        actions: list[Action] = [PLAY_ACTIONS[c] for c in held if c in playable]
        quit_ = state.quit
        others = quit_.count(False) > (0 if quit_[seat] else 1)
        if others and ONE in held and ONE in playable and (
            state.white[seat] or state.token == seat or state.black[seat]
            or state.stage_white + state.stage_black >= SHOW_THRESHOLD
        ):  # a 1 that gives: once per recipient, in its place
            at = 0
            while actions[at] is not PLAY_ONE:
                at += 1
            actions[at : at + 1] = [
                GIFTS[to] for to in range(state.players) if to != seat and not quit_[to]
            ]
        if others and state.draw_pile:
            actions.append(DRAW)
        if state.token == seat:
            actions.append(SKIP)
        actions.append(QUIT)
        return actions

    def play_round_uniformly(
        self, state: State, draws: Sequence[Callable[[], float]], chance: Chance
    ) -> int:
        """:func:`~game.rules.kadabra_uniform.play_round`: listing, pick and ``step`` fused."""
        return play_round(state, draws)

    def play_game_uniformly(
        self,
        seed: str,
        draws: Sequence[Callable[[], float]],
        options: Mapping[str, int],
        chance: Chance,
        twister: rng.Twister,
    ) -> tuple[tuple[int, ...], list[int], int, int]:
        """:func:`~game.rules.kadabra_uniform.play_game`: the whole game fused."""
        return play_game(seed, draws, options, twister, DECK)

    # ---- effects ---------------------------------------------------------
    def step(self, state: State, action: Action, chance: Chance) -> None:
        """``apply`` for the fast path with the hooks inlined and nothing reported."""
        seat = state.to_act
        if seat is None:  # pragma: no cover - the caller checks
            raise self.refuse(state, action)
        kind = action.type
        card = action.card
        if (
            state.stage_white + state.stage_black >= SHOW_THRESHOLD
            and kind is not ActionType.SKIP
            and card is not LLAMA_CARD
        ):  # before_action: the show's stage goes to whoever acts
            white, black = state.stage_white, state.stage_black
            state.stage_white = state.stage_black = 0
            gain_white(state, seat, white)
            state.black[seat] += black
        if kind is ActionType.PLAY and card is not None:
            hand = state.hands[seat]
            hand.remove(card)
            state.top = card
            if card is ONE:  # after_play: a card has at most one effect
                if action.give_to is not None:
                    give(state, seat, action.give_to)
            elif card is LLAMA_CARD:
                stage_chip(state, seat)
            elif card.symbol is Symbol.STAR:
                state.token = seat
            elif card.symbol is Symbol.DRAW and hand:
                forced_draw(state, seat)
            if not hand:
                end_round(state, seat, emptied=True)
            else:
                state.to_act = next_active(state, seat)
        elif kind is ActionType.DRAW:
            state.hands[seat].append(state.draw_pile.pop())
            state.to_act = next_active(state, seat)
        elif kind is ActionType.QUIT:
            leave_round(state, seat)
        else:  # SKIP
            state.token = None
            state.to_act = next_active(state, seat)

    def before_action(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        """Fine point 11: during a show, anything but an L or a skip takes the stage."""
        if state.stage_white + state.stage_black < SHOW_THRESHOLD:  # show_on, inlined
            return
        if action.type is ActionType.SKIP:
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
            given = give(state, seat, action.give_to)
            if given is not None:
                events.append(shared(EventKind.GAVE, seat, given, action.give_to))
        if card is None:
            return
        if card.symbol is Symbol.STAR and state.token != seat:
            events.append(shared(EventKind.TOOK_TOKEN, seat, None, state.token))
            state.token = seat
        if card is LLAMA_CARD:
            colour = stage_chip(state, seat)
            if colour is not None:
                events.append(shared(EventKind.STAGED, seat, colour))
        if card.symbol is Symbol.DRAW and state.hands[seat]:
            target = forced_draw(state, seat)
            if target is not None:
                drawn = state.hands[target][-1]
                events.append(shared(EventKind.FORCED_DRAW, target))
                events.append(shared(EventKind.DREW_CARD, target, drawn.token, None, target))

    def apply_extra(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        if action.type is ActionType.SKIP:
            state.token = None
            events.append(shared(EventKind.SKIPPED, seat))
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
                items[holder].append(TOKEN_ITEM)

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
