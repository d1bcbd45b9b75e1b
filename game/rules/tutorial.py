"""docs/rules.md §4: the house variant of the Persian seed (no chips, signed points)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar

from game import rng
from game.actions import DRAW, PASS, STOP, Action, ActionType, play
from game.cards import LLAMA, LLAMA_CARD, PLAIN_VALUES, Card, sort_cards
from game.events import Event, EventKind, ScoreItem, ScoreKind, SeatScore, shared
from game.rules.base import HAND_SIZE, RuleSet, end_round, next_active
from game.rules.registry import register
from game.state import Phase, RoundChance, State

if TYPE_CHECKING:
    from game.rules.base import Chance

LLAMA_PLAY_VALUE = 8
LLAMA_PENALTY = 10
STOP_BONUS = 1
"""What stopping the round while a llama is on top scores instead of the hand."""


def play_value(card: Card) -> int:
    """§4: for playing, L is worth 8."""
    return LLAMA_PLAY_VALUE if card.values[0] == LLAMA else card.values[0]


def penalty(card: Card) -> int:
    """§4 scoring: every card at face value, L = 10."""
    return LLAMA_PENALTY if card.values[0] == LLAMA else card.values[0]


PLAY_ACTIONS = {card: play(card) for card in PLAIN_VALUES}
PLAY_VALUES = {card: play_value(card) for card in PLAIN_VALUES}
PENALTIES = {card: penalty(card) for card in PLAIN_VALUES}
DECK: tuple[Card, ...] = tuple(card for card in PLAIN_VALUES for _ in range(8))
"""The deck, built once (every deal asks for it)."""
PLAY_DECK: tuple[int, ...] = tuple(PLAY_VALUES[card] for card in DECK)
"""The deck as play values (L = 8), place for place: what a fused game shuffles and plays."""
AT_LEAST: dict[int, frozenset[int]] = {
    top: frozenset(v for v in PLAY_VALUES.values() if v >= top) for top in PLAY_VALUES.values()
}
"""For each top card's play value, the play values that may go on it (a fused game's turn
intersects its hand with these)."""
CARD_ITEMS = {
    card: ScoreItem(ScoreKind.CARD, -penalty(card), value=card.token, cards=(card.token,))
    for card in PLAIN_VALUES
}
"""Each card left in hand as its scoring item (shared: items are immutable values)."""
_points = attrgetter("points")
STOPPED_ITEM = ScoreItem(ScoreKind.STOPPED, STOP_BONUS, cards=(LLAMA_CARD.token,))
DRAWN, PLAYING = Phase.DRAWN, Phase.PLAY
"""The fused round's phases, read once (``Phase.DRAWN`` goes through ``EnumType.__getattr__``
in Python 3.11: about 25 times a global's read, at every turn)."""


class Tutorial(RuleSet):
    """Play at least the top card's value, draw (and maybe play it), or stop."""

    name = "tutorial"
    title = "L.A.M.A. tutorial (house rules)"
    option_defaults: ClassVar[Mapping[str, int]] = {"rounds": 4}
    action_types = frozenset({ActionType.PLAY, ActionType.DRAW, ActionType.PASS, ActionType.STOP})
    uses_chips = False
    lower_score_wins = False

    def deck(self) -> tuple[Card, ...]:
        return DECK

    def first_player(self, state: State) -> int:
        """§4: round r starts with seat (r − 1) mod n."""
        return (state.round_no - 1) % state.players

    def deal(self, state: State, deck: Sequence[Card]) -> None:
        _fresh_round(state)
        super().deal(state, deck)

    def deal_out(self, state: State, dealt: Sequence[Any]) -> None:
        _fresh_round(state)
        super().deal_out(state, dealt)

    def legal_actions(self, state: State) -> list[Action]:
        seat = state.to_act
        if seat is None or state.top is None:
            return []
        if state.phase is Phase.DRAWN and state.pending_drawn is not None:
            return [PLAY_ACTIONS[state.pending_drawn], PASS]
        floor = play_value(state.top)
        actions: list[Action] = []
        seen: set[Card] = set()
        for card in state.hands[seat]:
            if card not in seen and play_value(card) >= floor:
                seen.add(card)
                actions.append(PLAY_ACTIONS[card])
        if state.draw_pile:
            actions.append(DRAW)
        actions.append(STOP)
        return actions

    def apply(self, state: State, action: Action, chance: RoundChance) -> list[Event]:
        seat = state.to_act
        if seat is None or state.top is None:  # pragma: no cover - Game checks first
            raise self.refuse(state, action)
        kind = action.type
        if kind is ActionType.PLAY and action.card is not None:
            state.phase = Phase.PLAY
            state.pending_drawn = None
            hand = state.hands[seat]
            hand.remove(action.card)
            state.top = action.card
            events = [shared(EventKind.PLAYED, seat, action.card.token)]
            if not hand:
                end_round(state, seat, emptied=True)
            else:
                self._end_turn(state, seat)
            return events
        if kind is ActionType.DRAW:
            card = state.draw_pile.pop()
            state.hands[seat].append(card)
            state.pile_emptied = not state.draw_pile
            events = [
                shared(EventKind.DREW, seat),
                shared(EventKind.DREW_CARD, seat, card.token, None, seat),
            ]
            if play_value(card) >= play_value(state.top):
                state.phase = Phase.DRAWN
                state.pending_drawn = card
            else:
                self._end_turn(state, seat)
            return events
        if kind is ActionType.PASS:
            state.phase = Phase.PLAY
            state.pending_drawn = None
            self._end_turn(state, seat)
            return [shared(EventKind.PASSED, seat)]
        # STOP
        state.stopper = seat
        state.stop_on_llama = state.top is LLAMA_CARD
        end_round(state, seat)
        return [shared(EventKind.STOPPED, seat, state.top.token)]

    def step(self, state: State, action: Action, chance: Chance) -> None:
        """``apply`` without events (the fast path)."""
        seat = state.to_act
        top = state.top
        if seat is None or top is None:  # pragma: no cover - the caller checks
            raise self.refuse(state, action)
        kind = action.type
        if kind is ActionType.PLAY and action.card is not None:
            state.phase = Phase.PLAY
            state.pending_drawn = None
            hand = state.hands[seat]
            hand.remove(action.card)
            state.top = action.card
            if not hand:
                end_round(state, seat, emptied=True)
            else:
                self._end_turn(state, seat)
        elif kind is ActionType.DRAW:
            card = state.draw_pile.pop()
            state.hands[seat].append(card)
            state.pile_emptied = not state.draw_pile
            if play_value(card) >= play_value(top):
                state.phase = Phase.DRAWN
                state.pending_drawn = card
            else:
                self._end_turn(state, seat)
        elif kind is ActionType.PASS:
            state.phase = Phase.PLAY
            state.pending_drawn = None
            self._end_turn(state, seat)
        else:  # STOP
            state.stopper = seat
            state.stop_on_llama = top is LLAMA_CARD
            end_round(state, seat)

    def play_round_uniformly(
        self, state: State, draws: Sequence[Callable[[], float]], chance: Chance
    ) -> int:
        """``legal_actions``, the uniform pick and ``step`` fused, without building actions:
        after a playable draw, play it or pass; else the plays (each card once, in hand
        order, worth at least the top), draw (a card left), stop. ``simulate``'s ``random``
        line-ups play this way."""
        hands = state.hands
        quit_ = state.quit
        pile = state.draw_pile
        seat = state.to_act
        top = state.top
        if seat is None or top is None:
            return 0
        after = [*range(1, state.players), 0]  # the seat after each (next_active, inlined)
        actions = 0
        while True:
            actions += 1
            hand = hands[seat]
            drawn = state.pending_drawn
            if state.phase is DRAWN and drawn is not None:  # play it, or pass
                state.phase = PLAYING
                state.pending_drawn = None
                if int(draws[seat]() * 2) == 0:
                    hand.remove(drawn)
                    state.top = top = drawn
                    if not hand:
                        end_round(state, seat, emptied=True)
                        return actions
            else:
                floor = PLAY_VALUES[top]
                plays = [c for c in dict.fromkeys(hand) if PLAY_VALUES[c] >= floor]
                count = len(plays)
                pick = int(draws[seat]() * (count + 2 if pile else count + 1))
                if pick < count:
                    card = plays[pick]
                    hand.remove(card)
                    state.top = top = card
                    if not hand:
                        end_round(state, seat, emptied=True)
                        return actions
                elif pile and pick == count:
                    card = pile.pop()
                    hand.append(card)
                    state.pile_emptied = not pile
                    if PLAY_VALUES[card] >= PLAY_VALUES[top]:
                        state.phase = DRAWN
                        state.pending_drawn = card
                        continue  # the same player plays it or passes
                else:  # stop
                    state.stopper = seat
                    state.stop_on_llama = top is LLAMA_CARD
                    end_round(state, seat)
                    return actions
            if state.pile_emptied:  # _end_turn, inlined
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
        """The whole game fused (``RuleSet.play_game_uniformly``, whose rounds are
        :meth:`play_round_uniformly`'s): a round is a few picks on a whole deck, so its
        set-up, turns and scoring live in locals, on play values rather than cards
        (:data:`PLAY_DECK`: a shuffle moves places whatever they hold, so a seed lays out
        the same cards). No chips, no quits: each seat's score is its total."""
        players = len(draws)
        deals = rng.seat_deals(len(PLAY_DECK), players, HAND_SIZE)
        reseed, getrandbits, seed_of = twister.seed, twister.getrandbits, rng.seed_of
        totals = [0] * players
        after = [*range(1, players), 0]
        actions = 0
        rounds = options["rounds"]
        for round_no in range(1, rounds + 1):
            first = (round_no - 1) % players  # first_player
            reseed(seed_of(f"{seed}:deck:{round_no}"))
            *hands, top, pile = deals[first](getrandbits, list(PLAY_DECK))
            seat = first
            stopper = None
            while True:
                actions += 1
                hand = hands[seat]
                plays = AT_LEAST[top].intersection(hand)  # the plays, unordered
                count = len(plays)
                pick = int(draws[seat]() * (count + 2 if pile else count + 1))
                if pick < count:  # the plays in hand order (each value once)
                    if count == 1:
                        (top,) = plays
                    else:
                        top = sorted(plays, key=hand.index)[pick]
                    hand.remove(top)
                    if not hand:
                        break
                elif pile and pick == count:
                    card = pile.pop()
                    hand.append(card)
                    if card >= top:  # playable: the same seat plays it (0) or passes
                        actions += 1
                        if int(draws[seat]() * 2) == 0:
                            hand.remove(card)  # (the hand had a card more: not empty)
                            top = card
                    if not pile:  # fine point 19: the turn the pile ran out ends the round
                        break
                else:  # stop
                    if top == LLAMA_PLAY_VALUE:
                        stopper = seat
                    break
                seat = after[seat]
            for other, hand in enumerate(hands):  # score_round: L counts 10 = 8 + 2
                if other == stopper:
                    totals[other] += STOP_BONUS
                else:
                    totals[other] -= sum(hand) + 2 * hand.count(LLAMA_PLAY_VALUE)
        best = max(totals)
        winners = tuple([s for s in range(players) if totals[s] == best])
        return winners, totals, actions, rounds

    def _end_turn(self, state: State, seat: int) -> None:
        """Fine point 19: the turn in which the pile ran out ends the round."""
        if state.pile_emptied:
            end_round(state, seat)
        else:
            state.to_act = next_active(state, seat)

    def score_round(self, state: State, report: bool = True) -> list[Event]:
        """§4 scoring: minus the hand; the stopper on an L scores +1 instead.

        A seat's points are the sum of its items (one per card left, or the stop's bonus),
        so the breakdown the round-over event carries with ``report`` is the score."""
        stopped = state.stopper if state.stop_on_llama else None
        points: list[int] = []
        scores: list[SeatScore] = []
        for seat in range(state.players):
            if seat == stopped:
                items: tuple[ScoreItem, ...] = (STOPPED_ITEM,)
                value = STOP_BONUS
            elif report:  # the breakdown lists the hand in order
                items = tuple(map(CARD_ITEMS.__getitem__, sort_cards(state.hands[seat])))
                value = sum(map(_points, items))
            else:  # the fast path: the items' points straight from the cards
                value = -sum(map(PENALTIES.__getitem__, state.hands[seat]))
            state.totals[seat] += value
            state.round_points[seat].append(value)
            points.append(value)
            if report:
                scores.append(SeatScore(seat, items))
        if not report:
            return []
        return [Event(EventKind.ROUND_OVER, points=tuple(points), scores=tuple(scores))]

    def is_over(self, state: State, options: Mapping[str, int]) -> bool:
        """§4 game end: after ``rounds`` rounds."""
        return state.round_no >= options["rounds"]

    def winners(self, state: State) -> tuple[int, ...]:
        """§4: highest total wins; ties share."""
        best = max(state.totals)
        return tuple(s for s in range(state.players) if state.totals[s] == best)

    def explain(self, state: State, action: Action) -> str:
        seat = state.to_act
        if action.type not in self.action_types or seat is None or state.top is None:
            return super().explain(state, action)
        if state.phase is Phase.DRAWN:
            if action.type is ActionType.PLAY:
                return f"after drawing, only the drawn card ({state.pending_drawn}) may be played"
            return "after drawing a playable card, play it or pass"
        if action.type is ActionType.PASS:
            return "pass only follows drawing a playable card"
        if action.type is ActionType.PLAY and action.card is not None:
            if action.card not in state.hands[seat]:
                return f"{action.card} is not in the hand"
            return f"a card must be at least {state.top} (L counts 8)"
        if action.type is ActionType.DRAW:
            return "the draw pile is empty"
        return super().explain(state, action)


TUTORIAL = register(Tutorial())


def _fresh_round(state: State) -> None:
    """What the tutorial's turns keep within a round, cleared for the next."""
    state.pending_drawn = None
    state.pile_emptied = False
    state.stopper = None
    state.stop_on_llama = False
