"""What the shedding games share: play a card on the pile, draw, quit.

:class:`Shedding` is L.L.A.M.A. (docs/rules.md §1); Kadabra extends it through the
hooks ``before_action`` and ``after_play``; the tutorial reuses its deal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from game.actions import DRAW, QUIT, Action, ActionType, play
from game.cards import ALL_CARDS, LLAMA, PLAIN_VALUES, Card, next_value
from game.events import Event, EventKind, shared
from game.rules.base import (
    UNKEPT,
    RuleSet,
    end_round,
    leave_round,
    next_active,
    quit_round,
)
from game.state import RoundChance, State

if TYPE_CHECKING:
    from game.rules.base import Chance


def follows(top: Card, card: Card) -> bool:
    """docs/rules.md §1/§2: some value of ``card`` equals, or is next to, some value of ``top``."""
    return any(v == t or v == next_value(t) for v in card.values for t in top.values)


PLAYABLE_ON: dict[Card, frozenset[Card]] = {
    top: frozenset(c for c in ALL_CARDS if follows(top, c)) for top in ALL_CARDS
}
"""For every top card, the cards that may be played on it."""

PLAY_ACTIONS: dict[Card, Action] = {card: play(card) for card in ALL_CARDS}

DECK: tuple[Card, ...] = tuple(card for card in PLAIN_VALUES for _ in range(8))


class Shedding(RuleSet):
    """docs/rules.md §1: L.L.A.M.A."""

    action_types = frozenset({ActionType.PLAY, ActionType.DRAW, ActionType.QUIT})

    def deck(self) -> tuple[Card, ...]:
        """56 cards: eight each of 1–6 and eight llamas (one tuple: every deal asks)."""
        return DECK

    def legal_actions(self, state: State) -> list[Action]:
        seat = state.to_act
        top = state.top
        if seat is None or top is None:
            return []
        playable = PLAYABLE_ON[top]
        # dict.fromkeys: each card once, in hand order (listing is on every playout's path)
        actions = [PLAY_ACTIONS[c] for c in dict.fromkeys(state.hands[seat]) if c in playable]
        effects = self.card_effects
        if effects:
            self.adjust_plays(state, seat, actions)
        if state.draw_pile:
            quit_ = state.quit  # others_in, inlined: whether anyone else is still in
            if quit_.count(False) > (0 if quit_[seat] else 1):
                actions.append(DRAW)
        if effects:
            actions.extend(self.extra_actions(state, seat))
        actions.append(QUIT)
        return actions

    card_effects: ClassVar[bool] = False
    """Whether the hooks below do anything (classic skips calling them)."""

    def adjust_plays(self, state: State, seat: int, actions: list[Action]) -> None:
        """Hook: change the listed plays in place (Kadabra's ``1``: one per recipient)."""

    def extra_actions(self, state: State, seat: int) -> Sequence[Action]:
        """Actions a rule set adds (Kadabra's skip), appended to the listing."""
        return ()

    def apply(self, state: State, action: Action, chance: RoundChance) -> list[Event]:
        seat = state.to_act
        if seat is None:  # pragma: no cover - Game checks the phase first
            raise self.refuse(state, action)
        events: list[Event] = []
        effects = self.card_effects  # classic has no hooks to call
        if effects:
            self.before_action(state, seat, action, events)
        kind = action.type
        card = action.card
        if kind is ActionType.PLAY and card is not None:
            hand = state.hands[seat]
            hand.remove(card)
            state.top = card
            events.append(shared(EventKind.PLAYED, seat, card.token, action.give_to))
            if effects:
                self.after_play(state, seat, action, events)
            if not hand:
                end_round(state, seat, emptied=True)
            else:
                state.to_act = next_active(state, seat)
        elif kind is ActionType.DRAW:
            card = state.draw_pile.pop()
            state.hands[seat].append(card)
            events.append(shared(EventKind.DREW, seat))
            events.append(shared(EventKind.DREW_CARD, seat, card.token, None, seat))
            state.to_act = next_active(state, seat)
        elif kind is ActionType.QUIT:
            events.extend(quit_round(state, seat))
        else:
            self.apply_extra(state, seat, action, events)
        return events

    def step(self, state: State, action: Action, chance: Chance) -> None:
        """``apply`` without events (the fast path); the hooks report into ``UNKEPT``."""
        seat = state.to_act
        if seat is None:  # pragma: no cover - the caller checks
            raise self.refuse(state, action)
        effects = self.card_effects
        if effects:
            self.before_action(state, seat, action, UNKEPT)
        kind = action.type
        if kind is ActionType.PLAY and action.card is not None:
            hand = state.hands[seat]
            hand.remove(action.card)
            state.top = action.card
            if effects:
                self.after_play(state, seat, action, UNKEPT)
            if not hand:
                end_round(state, seat, emptied=True)
            else:
                state.to_act = next_active(state, seat)
        elif kind is ActionType.DRAW:
            state.hands[seat].append(state.draw_pile.pop())
            state.to_act = next_active(state, seat)
        elif kind is ActionType.QUIT:
            leave_round(state, seat)
        else:
            self.apply_extra(state, seat, action, UNKEPT)

    def before_action(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        """Hook: something that happens before any action (Kadabra's stage)."""

    def after_play(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        """Hook: a played card's effect (Kadabra)."""

    def apply_extra(self, state: State, seat: int, action: Action, events: list[Event]) -> None:
        """Hook: actions a rule set adds."""
        raise self.refuse(state, action)

    def explain(self, state: State, action: Action) -> str:
        seat = state.to_act
        if action.type not in self.action_types or seat is None:
            return super().explain(state, action)
        if action.type is ActionType.PLAY and action.card is not None:
            card = action.card
            if card not in state.hands[seat]:
                return f"{card} is not in the hand"
            if state.top is not None and card not in PLAYABLE_ON[state.top]:
                top = state.top
                allowed = sorted({t for v in top.values for t in (v, next_value(v))})
                names = " or ".join("L" if v == LLAMA else str(v) for v in allowed)
                return f"only {names} may go on {top}"
            return self.explain_play(state, seat, action)
        if action.type is ActionType.DRAW:
            if not state.draw_pile:
                return "the draw pile is empty"
            return "every other player has quit, so drawing is not allowed"
        return super().explain(state, action)

    def explain_play(self, state: State, seat: int, action: Action) -> str:
        """Why a play of a held, playable card is still refused (Kadabra's gift)."""
        return "the rules do not allow it now"
