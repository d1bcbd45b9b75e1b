"""docs/rules.md §1: L.L.A.M.A., the shedding game as published."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from game import rng
from game.cards import PLAIN_VALUES, Card, next_value
from game.rules.base import HAND_SIZE, end_round
from game.rules.items import chips_scored
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
        """The listing, the uniform pick and ``step`` fused, without building actions
        (:func:`turns` on the state's hands, pile and quits). ``simulate``'s ``random``
        line-ups play this way (``FastRun``), seed for seed the full engine's games."""
        top = state.top
        seat = state.to_act
        if seat is None or top is None:
            return 0
        actions, ender, emptied, state.top = turns(
            state.hands, state.draw_pile, state.quit, top, seat, draws
        )
        end_round(state, ender, emptied)
        return actions

    def play_game_uniformly(
        self,
        seed: str,
        draws: Sequence[Callable[[], float]],
        options: Mapping[str, int],
        chance: Chance,
        twister: rng.Twister,
    ) -> tuple[tuple[int, ...], list[int], int, int]:
        """The whole game fused (``RuleSet.play_game_uniformly``: the deal, the round's
        :func:`turns`, the scoring, round after round), chips, quits and the pile in
        locals. Each round's deck from ``twister`` reseeded (``rng.seed_of``:
        ``SeededChance``'s deck); ``simulate``'s fast path (``FastRun``)."""
        players = len(draws)
        target = options["target"]
        deck = self.deck()
        deals = rng.seat_deals(len(deck), players, HAND_SIZE)
        reseed, getrandbits, seed_of = twister.seed, twister.getrandbits, rng.seed_of
        white, black = [0] * players, [0] * players
        actions = round_no = first = 0
        while True:
            round_no += 1
            reseed(seed_of(f"{seed}:deck:{round_no}"))
            *hands, top, pile = deals[first](getrandbits, list(deck))
            taken, first, emptied, _ = turns(hands, pile, [False] * players, top, first, draws)
            actions += taken  # (the round's ender starts the next)
            scores = chips_scored(hands, white, black, first if emptied else None)
            if max(scores) >= target:
                best = min(scores)
                winners = tuple([s for s in range(players) if scores[s] == best])
                return winners, scores, actions, round_no


def turns(
    hands: list[list[Card]],
    pile: list[Card],
    quit_: list[bool],
    top: Card,
    seat: int,
    draws: Sequence[Callable[[], float]],
) -> tuple[int, int, bool, Card]:
    """A round's turns from ``seat``'s on, each seat picking uniformly from the listing by
    the pick's index: the plays (each card once, in hand order: at most two, the same
    value and the next), then draw (a card left, someone else in), then quit. The lists
    change in place; the actions, the round's ender, whether it emptied its hand, the top."""
    after = [*range(1, len(hands)), 0]  # the seat after each (next_active, inlined)
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
                before = hand.index(same) < hand.index(following)
                top = same if before is (pick == 0) else following
            else:
                top = same if same in hand else following
            hand.remove(top)
            if not hand:
                return actions, seat, True, top
            same, following = FOLLOWERS[top]
        else:  # quit: the last to quit ends the round
            quit_[seat] = True
            left -= 1
            if not left:
                return actions, seat, False, top
        seat = after[seat]
        while quit_[seat]:
            seat = after[seat]


FOLLOWERS: dict[Card, tuple[Card, Card]] = {
    top: (top, PLAIN_VALUES[next_value(top.values[0]) - 1]) for top in PLAIN_VALUES
}
"""docs/rules.md §1: what may go on each card of the classic deck: the same value, then the
next (``PLAYABLE_ON`` with the deck's cards only; tests/game/test_uniform.py checks it)."""


CLASSIC = register(Classic())
