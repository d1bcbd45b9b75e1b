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

    def play_game_uniformly(
        self,
        seed: str,
        draws: Sequence[Callable[[], float]],
        options: Mapping[str, int],
        chance: Chance,
        twister: rng.Twister,
    ) -> tuple[tuple[int, ...], list[int], int, int]:
        """The whole game fused (``RuleSet.play_game_uniformly``: the deal,
        :meth:`play_round_uniformly`, the scoring, round after round), chips, quits and the
        pile in locals. Each round's deck from ``twister`` reseeded (``rng.seed_of``:
        ``SeededChance``'s deck); ``simulate``'s fast path (``FastRun``)."""
        players = len(draws)
        target = options["target"]
        deck = self.deck()
        deals = rng.seat_deals(len(deck), players, HAND_SIZE)
        reseed, getrandbits, seed_of = twister.seed, twister.getrandbits, rng.seed_of
        white, black = [0] * players, [0] * players
        after = [*range(1, players), 0]  # the seat after each (next_active, inlined)
        actions = round_no = first = 0
        while True:
            round_no += 1
            reseed(seed_of(f"{seed}:deck:{round_no}"))
            *hands, top, pile = deals[first](getrandbits, list(deck))
            quit_ = [False] * players
            left = players
            seat = first
            emptied = None
            same, following = FOLLOWERS[top]
            while True:  # the round: play_round_uniformly, in locals
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
                        emptied = seat
                        break
                    same, following = FOLLOWERS[top]
                else:  # quit: the last to quit ends the round
                    quit_[seat] = True
                    left -= 1
                    if not left:
                        break
                seat = after[seat]
                while quit_[seat]:
                    seat = after[seat]
            scores = chips_scored(hands, white, black, emptied)  # score_round, no breakdown
            if max(scores) >= target:
                best = min(scores)
                winners = tuple([s for s in range(players) if scores[s] == best])
                return winners, scores, actions, round_no
            first = seat  # the round's ender starts the next


FOLLOWERS: dict[Card, tuple[Card, Card]] = {
    top: (top, PLAIN_VALUES[next_value(top.values[0]) - 1]) for top in PLAIN_VALUES
}
"""docs/rules.md §1: what may go on each card of the classic deck: the same value, then the
next (``PLAYABLE_ON`` with the deck's cards only; tests/game/test_uniform.py checks it)."""


CLASSIC = register(Classic())
