"""docs/rules.md §1: L.L.A.M.A., the shedding game as published."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from game.cards import PLAIN_VALUES, Card, next_value
from game.rules.base import end_round
from game.rules.registry import register
from game.rules.shedding import Shedding
from game.state import State

if TYPE_CHECKING:
    from game.rules.base import Chance


class Classic(Shedding):
    """L.L.A.M.A.: play the same value or the next one, draw, or quit."""

    name = "classic"
    title = "L.L.A.M.A."

    def play_round_uniformly(
        self, state: State, draws: Sequence[Callable[[], float]], chance: Chance
    ) -> int:
        """The listing, the uniform pick and ``step`` fused, without building actions: the
        plays (each card once, in hand order: at most two, the same value and the next),
        then draw (a card left, someone else in), then quit; the pick's index says which.
        ``simulate``'s ``random`` line-ups play this way (``FastRun``), seed for seed the
        full engine's games."""
        hands = state.hands
        quit_ = state.quit
        pile = state.draw_pile
        top = state.top
        seat = state.to_act
        if seat is None or top is None:
            return 0
        after = [*range(1, state.players), 0]  # the seat after each (next_active, inlined)
        left = quit_.count(False)
        same, following = FOLLOWERS[top]
        actions = 0
        while True:
            hand = hands[seat]
            count = (same in hand) + (following in hand)
            actions += 1
            if pile and left > 1:  # the listing: plays, draw, quit
                pick = int(draws[seat]() * (count + 2))
                if pick == count:
                    hand.append(pile.pop())
                    pick = -1
            else:  # plays, quit
                pick = int(draws[seat]() * (count + 1))
            if pick < 0:
                pass
            elif pick < count:  # the plays, in hand order (each card once)
                if count == 2:
                    first = hand.index(same) < hand.index(following)
                    top = same if first is (pick == 0) else following
                else:
                    top = same if same in hand else following
                hand.remove(top)
                if not hand:
                    state.top = top
                    end_round(state, seat, emptied=True)
                    return actions
                same, following = FOLLOWERS[top]
            else:
                quit_[seat] = True
                left -= 1
                if not left:
                    state.top = top
                    end_round(state, seat)
                    return actions
            seat = after[seat]
            while quit_[seat]:
                seat = after[seat]

FOLLOWERS: dict[Card, tuple[Card, Card]] = {
    top: (top, PLAIN_VALUES[next_value(top.values[0]) - 1]) for top in PLAIN_VALUES
}
"""docs/rules.md §1: what may go on each card of the classic deck: the same value, then the
next (``PLAYABLE_ON`` with the deck's cards only; tests/game/test_uniform.py checks it)."""


CLASSIC = register(Classic())
