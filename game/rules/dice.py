"""docs/rules.md §3: L.A.M.A. Dice: roll three dice, discard matching tiles (the tiles, dice
and discards in :mod:`game.rules.dice_tiles`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from game import rng
from game.actions import QUIT, ROLL, Action, ActionType
from game.cards import LLAMA_CARD, PLAIN_VALUES, Card, sort_cards
from game.events import Event, EventKind, ScoreItem, ScoreKind, shared
from game.rules.base import (
    HAND_SIZE,
    Roller,
    RuleSet,
    end_round,
    leave_round,
    next_active,
    others_in,
    quit_round,
    return_chip,
)
from game.rules.dice_tiles import (
    DECK,
    DICE,
    FAST_ROLL,
    REROLL,
    TAKE_ACTIONS,
    remembered_discards,
)
from game.rules.items import chips_scored
from game.rules.registry import register
from game.state import Phase, ResolveMode, RoundChance, State

if TYPE_CHECKING:
    from game.rules.base import Chance


class Dice(RuleSet):
    """L.A.M.A. Dice."""

    name = "dice"
    title = "L.A.M.A. Dice"
    action_types = frozenset(
        {ActionType.ROLL, ActionType.DISCARD, ActionType.TAKE, ActionType.QUIT}
    )
    uses_draw_pile = False
    uses_row = True

    def deck(self) -> tuple[Card, ...]:
        """The 36-tile player deck: five each of 1–6 and six llamas."""
        return DECK

    def deal(self, state: State, deck: Sequence[Card]) -> None:
        """§3 round set-up: deal 6 face up from the first player; lay the row out."""
        first = self.first_player(state)
        n = state.players
        dealt = HAND_SIZE * n
        for seat in range(n):  # one tile at a time from ``first``
            state.hands[seat] = list(deck[(seat - first) % n : dealt : n])
        state.quit[:] = [False] * n
        _fresh_row(state)
        self._begin_turns(state, first)

    def deal_out(self, state: State, dealt: Sequence[Any]) -> None:
        super().deal_out(state, dealt)  # the hands; then the row, as ``deal``
        _fresh_row(state)

    def needs_chance(self, state: State, action: Action) -> bool:
        return action.type is ActionType.ROLL

    def random_roll(
        self, seed: int | str, round_no: int, index: int, roller: Roller = rng.roll
    ) -> tuple[Card, Card, Card]:
        a, b, c = roller(seed, round_no, index, DICE)
        return (a, b, c)

    seeded_roll = staticmethod(FAST_ROLL)  # type: ignore[assignment]  # (no self)

    def legal_actions(self, state: State) -> list[Action]:
        seat = state.to_act
        if seat is None:
            return []
        if state.phase is Phase.PLAY:
            return [ROLL, QUIT]
        roll = state.pending_roll
        if roll is None:
            return []
        if state.resolve_mode is ResolveMode.TAKE:
            row = state.row or []
            return [TAKE_ACTIONS[t] for t in PLAIN_VALUES if t in roll and t in row]
        hand = state.hands[seat]
        key = (roll, hand.count(roll[0]), hand.count(roll[1]), hand.count(roll[2]))
        return list(remembered_discards(key, roll, hand))

    def apply(self, state: State, action: Action, chance: RoundChance) -> list[Event]:
        events: list[Event] = []
        roll = chance.rolls[state.rolls_used] if action.type is ActionType.ROLL else None
        self._act(state, action, roll, events)
        return events

    def step(self, state: State, action: Action, chance: Chance) -> None:
        """``apply`` without events (the fast path); a roll comes from ``chance``."""
        roll = None
        if action.type is ActionType.ROLL:
            roll = chance.roll(self, state.round_no, state.rolls_used)
        self._act(state, action, roll, None)

    def play_round_uniformly(
        self, state: State, draws: Sequence[Callable[[], float]], chance: Chance
    ) -> int:
        """The listing, the uniform pick and ``step`` fused (``simulate``'s ``random``
        line-ups, ``FastRun``): roll or quit; after a roll the same seat picks among the
        discards (in ``discards`` order) or the row tiles it may take (in ``PLAIN_VALUES``
        order). Nothing of a pending roll is kept: a turn ends within the call."""
        seat = state.to_act
        if seat is None:
            return 0
        hands = state.hands
        row = state.row if state.row is not None else []
        roll = chance.roll
        round_no = state.round_no
        actions = 0
        while True:
            draw = draws[seat]
            actions += 1
            if int(draw() * 2):  # [ROLL, QUIT]: quit
                leave_round(state, seat)
                if state.round_over:
                    return actions
                seat = state.to_act  # type: ignore[assignment]
                continue
            rolled = roll(self, round_no, state.rolls_used)
            state.rolls_used += 1
            a, b, c = rolled
            hand = hands[seat]
            if a is LLAMA_CARD and b is LLAMA_CARD and c is LLAMA_CARD:
                return_chip(state, seat)
            elif a in hand or b in hand or c in hand:
                actions += 1
                key = (rolled, hand.count(a), hand.count(b), hand.count(c))
                listed = remembered_discards(key, rolled, hand)
                for tile in listed[int(draw() * len(listed))].tiles:
                    hand.remove(tile)
                if not hand:
                    end_round(state, seat, emptied=True)
                    return actions
            elif (a in row or b in row or c in row) and others_in(state, seat):
                actions += 1
                takeable = [t for t in PLAIN_VALUES if t in rolled and t in row]
                tile = takeable[int(draw() * len(takeable))]
                row.remove(tile)
                hand.append(tile)
                if not row:
                    end_round(state, seat)
                    return actions
            else:  # a bust
                state.busted = tuple(row)
                hand.extend(row)
                state.row = []
                end_round(state, seat)
                return actions
            seat = state.to_act = next_active(state, seat)  # type: ignore[assignment]

    def play_game_uniformly(
        self,
        seed: str,
        draws: Sequence[Callable[[], float]],
        options: Mapping[str, int],
        chance: Chance,
        twister: rng.Twister,
    ) -> tuple[tuple[int, ...], list[int], int, int]:
        """The whole game fused (``RuleSet.play_game_uniformly``: :meth:`deal_out`,
        :meth:`play_round_uniformly`, ``score_round``, ``is_over``, ``winners``), its state
        in locals: seats, quits, row and chips. Decks and rolls come from one scratch
        Twister reseeded for each (``rng.seed_of``: the same draws as ``SeededChance``)."""
        players = len(draws)
        target = options["target"]
        deals = rng.seat_deals(len(DECK), players, HAND_SIZE)
        reseed, getrandbits, seed_of = twister.seed, twister.getrandbits, rng.seed_of
        white, black = [0] * players, [0] * players
        after = [*range(1, players), 0]
        actions = round_no = first = 0
        while True:
            round_no += 1
            reseed(seed_of(f"{seed}:deck:{round_no}"))
            hands = deals[first](getrandbits, list(DECK))[:players]
            quit_ = [False] * players
            row = list(PLAIN_VALUES)
            rolls = 0
            seat = first
            emptied = None
            while True:  # the round: play_round_uniformly, its helpers inlined
                draw = draws[seat]
                actions += 1
                if int(draw() * 2):  # [ROLL, QUIT]: quit
                    quit_[seat] = True
                    following = after[seat]
                    while quit_[following] and following != seat:
                        following = after[following]
                    if following == seat:  # the last to quit ends the round
                        break
                    seat = following
                    continue
                a, b, c = rolled = REROLL(seed, round_no, rolls, reseed, getrandbits)
                rolls += 1
                hand = hands[seat]
                if a is LLAMA_CARD and b is LLAMA_CARD and c is LLAMA_CARD:
                    if black[seat]:  # return_chip
                        black[seat] -= 1
                    elif white[seat]:
                        white[seat] -= 1
                elif a in hand or b in hand or c in hand:
                    actions += 1
                    key = (rolled, hand.count(a), hand.count(b), hand.count(c))
                    listed = remembered_discards(key, rolled, hand)
                    for tile in listed[int(draw() * len(listed))].tiles:
                        hand.remove(tile)
                    if not hand:
                        emptied = seat
                        break
                elif (a in row or b in row or c in row) and quit_.count(False) > 1:
                    actions += 1
                    takeable = [t for t in PLAIN_VALUES if t in rolled and t in row]
                    tile = takeable[int(draw() * len(takeable))]
                    row.remove(tile)
                    hand.append(tile)
                    if not row:
                        break
                else:  # a bust
                    hand.extend(row)
                    break
                seat = after[seat]  # next_active: the acting seat has not quit
                while quit_[seat]:
                    seat = after[seat]
            scores = chips_scored(hands, white, black, emptied)  # score_round, no breakdown
            if max(scores) >= target:
                best = min(scores)
                winners = tuple([s for s in range(players) if scores[s] == best])
                return winners, scores, actions, round_no
            first = seat  # the round's ender starts the next

    def fast_roll(self, random: Callable[[], float]) -> tuple[Card, Card, Card]:
        a, b, c = DICE
        return (a[int(random() * 6)], b[int(random() * 6)], c[int(random() * 6)])

    def _act(
        self,
        state: State,
        action: Action,
        roll: tuple[Card, Card, Card] | None,
        events: list[Event] | None,
    ) -> None:
        """Carry out ``action``; ``roll`` is the outcome a ``roll`` action uses.

        ``events`` is ``None`` on the fast path: nothing is reported.
        """
        seat = state.to_act
        if seat is None:  # pragma: no cover - Game checks first
            raise self.refuse(state, action)
        kind = action.type
        if kind is ActionType.ROLL and roll is not None:
            state.rolls_used += 1
            self._roll(state, seat, roll, events)
            return
        if kind is ActionType.QUIT:
            if events is None:
                leave_round(state, seat)
            else:
                events.extend(quit_round(state, seat))
            return
        hand = state.hands[seat]
        state.phase = Phase.PLAY
        state.pending_roll = None
        state.resolve_mode = None
        if kind is ActionType.DISCARD:
            for tile in action.tiles:
                hand.remove(tile)
            if events is not None:
                tokens = tuple(t.token for t in action.tiles)
                events.append(Event(EventKind.DISCARDED, seat=seat, cards=tokens))
            if not hand:
                end_round(state, seat, emptied=True)
            else:
                state.to_act = next_active(state, seat)
            return
        # TAKE
        tile = action.card
        row = state.row
        if tile is None or row is None:  # pragma: no cover - enumerated as legal
            raise self.refuse(state, action)
        row.remove(tile)
        hand.append(tile)
        if not row:
            end_round(state, seat)
        else:
            state.to_act = next_active(state, seat)
        if events is not None:
            events.append(shared(EventKind.TOOK_TILE, seat, tile.token))

    def _roll(
        self, state: State, seat: int, roll: tuple[Card, Card, Card], events: list[Event] | None
    ) -> None:
        """§3 a turn, steps 1–4, and the lone player's rule (fine points 16–17)."""
        if events is not None:
            events.append(Event(EventKind.ROLLED, seat=seat, cards=tuple(f.token for f in roll)))
        hand = state.hands[seat]
        row = state.row if state.row is not None else []
        a, b, c = roll
        if a is LLAMA_CARD and b is LLAMA_CARD and c is LLAMA_CARD:
            colour = return_chip(state, seat)
            if events is not None:
                events.append(shared(EventKind.THREE_LLAMAS, seat, colour))
            state.to_act = next_active(state, seat)
        elif a in hand or b in hand or c in hand:
            state.phase = Phase.RESOLVE
            state.pending_roll = roll
            state.resolve_mode = ResolveMode.DISCARD
        elif (a in row or b in row or c in row) and others_in(state, seat):
            state.phase = Phase.RESOLVE  # a lone player may not take (fine point 17)
            state.pending_roll = roll
            state.resolve_mode = ResolveMode.TAKE
        else:
            if events is not None:
                tokens = tuple(t.token for t in row)
                events.append(Event(EventKind.BUSTED, seat=seat, cards=tokens))
            state.busted = tuple(row)
            hand.extend(row)
            state.row = []
            end_round(state, seat)

    def score_extras(
        self, state: State, points: list[int], items: list[list[ScoreItem]] | None
    ) -> None:
        """§3: a bust scores nothing itself (its tiles count with the rest); the breakdown
        says why the ender holds them."""
        if items is not None and state.busted and state.ender is not None:
            taken = tuple(t.token for t in sort_cards(state.busted))
            items[state.ender].append(ScoreItem(ScoreKind.BUSTED, 0, cards=taken))

    def explain(self, state: State, action: Action) -> str:
        if action.type not in self.action_types:
            return super().explain(state, action)
        if state.phase is Phase.PLAY:
            return "roll the dice or quit first"
        roll = " ".join(f.token for f in state.pending_roll or ())
        if action.type in (ActionType.ROLL, ActionType.QUIT):
            return f"the roll {roll} must be resolved first"
        if state.resolve_mode is ResolveMode.DISCARD:
            if action.type is ActionType.TAKE:
                return f"the roll {roll} matches your own tiles, so you must discard"
            return f"each discarded tile needs its own die and must be yours (roll {roll})"
        if action.type is ActionType.DISCARD:
            return f"the roll {roll} matches none of your tiles: take a matching row tile"
        return f"take a row tile that one of the dice shows (roll {roll})"


DICE_RULES = register(Dice())


def _fresh_row(state: State) -> None:
    """A new round's row and dice: every plain value face up, nothing rolled yet."""
    state.row = list(PLAIN_VALUES)
    state.top = None
    state.draw_pile = []
    state.rolls_used = 0
    state.busted = ()
    state.pending_roll = None
    state.resolve_mode = None
