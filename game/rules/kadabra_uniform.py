"""L.A.M.A. Kadabra played by uniform picks (the ``random`` AI), fused: a round
(:func:`play_round`, ``Kadabra.play_round_uniformly``) and a whole game (:func:`play_game`,
``Kadabra.play_game_uniformly``: ``simulate``'s fast path). Each does what the fast listing
and ``step`` do, pick for pick (tests/game/test_uniform.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from game import rng
from game.actions import ActionType
from game.cards import LLAMA_CARD, ONE, Card, Symbol
from game.rules.base import HAND_SIZE, end_round, gain_white
from game.rules.items import BLACK_POINTS, chips_scored
from game.rules.kadabra_magic import (
    SHOW_THRESHOLD,
    STARTING_WHITE,
    TOKEN_POINTS,
    forced_draw,
    give,
    stage_chip,
)
from game.rules.shedding import PLAYABLE_ON
from game.state import State

KIND_PLAY, KIND_DRAW, KIND_SKIP = ActionType.PLAY, ActionType.DRAW, ActionType.SKIP
KIND_QUIT, STAR, DRAWS = ActionType.QUIT, Symbol.STAR, Symbol.DRAW
"""The fused round's enum members, read once (``ActionType.PLAY`` goes through
``EnumType.__getattr__`` in Python 3.11: about 25 times a global's read, at every turn)."""


def play_round(state: State, draws: Sequence[Callable[[], float]]) -> int:
    """``fast_legal_actions``, the uniform pick and ``step`` fused, without building
    actions: the pick's index is read against the listing's order (the plays, a giving
    ``1`` once per recipient in its place, draw, skip, quit), then the chosen action's
    effects are those of ``step``. ``simulate``'s ``random`` line-ups play this way
    (``Kadabra.play_round_uniformly``; tests/game/test_uniform.py holds it to them)."""
    hands = state.hands
    quit_ = state.quit
    pile = state.draw_pile
    white, black = state.white, state.black
    seat = state.to_act
    top = state.top
    if seat is None or top is None:
        return 0
    n = state.players
    after = [*range(1, n), 0]  # the seat after each (next_active, inlined)
    left = quit_.count(False)
    actions = 0
    while True:
        actions += 1
        hand = hands[seat]
        playable = PLAYABLE_ON[top]
        plays = [c for c in dict.fromkeys(hand) if c in playable]
        count = len(plays)
        gifts: list[int] | None = None
        if left > 1 and ONE in plays and (
            white[seat] or state.token == seat or black[seat]
            or state.stage_white + state.stage_black >= SHOW_THRESHOLD
        ):  # a 1 that gives: once per recipient, in its place
            gifts = [to for to in range(n) if to != seat and not quit_[to]]
            listed = count - 1 + len(gifts)
        else:
            listed = count
        can_draw = left > 1 and bool(pile)
        can_skip = state.token == seat
        pick = int(draws[seat]() * (listed + can_draw + can_skip + 1))
        card: Card | None = None
        give_to: int | None = None
        if pick < listed:
            if gifts is None:
                card = plays[pick]
            else:
                at = plays.index(ONE)
                if pick < at:
                    card = plays[pick]
                elif pick < at + len(gifts):
                    card, give_to = ONE, gifts[pick - at]
                else:
                    card = plays[pick - len(gifts) + 1]
            kind = KIND_PLAY
        else:
            rest = pick - listed
            if can_draw and rest == 0:
                kind = KIND_DRAW
            elif can_skip and rest == can_draw:
                kind = KIND_SKIP
            else:
                kind = KIND_QUIT
        if (
            state.stage_white + state.stage_black >= SHOW_THRESHOLD
            and kind is not KIND_SKIP
            and card is not LLAMA_CARD
        ):  # the show's stage goes to whoever acts
            staged_white, staged_black = state.stage_white, state.stage_black
            state.stage_white = state.stage_black = 0
            gain_white(state, seat, staged_white)
            black[seat] += staged_black
        if card is not None:
            hand.remove(card)
            state.top = top = card
            if card is ONE:  # a card has at most one effect
                if give_to is not None:
                    give(state, seat, give_to)
            elif card is LLAMA_CARD:
                stage_chip(state, seat)
            elif card.symbol is STAR:
                state.token = seat
            elif card.symbol is DRAWS and hand:
                forced_draw(state, seat)
            if not hand:
                end_round(state, seat, emptied=True)
                return actions
        elif kind is KIND_DRAW:
            hand.append(pile.pop())
        elif kind is KIND_SKIP:
            state.token = None
        else:
            quit_[seat] = True
            left -= 1
            if not left:
                end_round(state, seat)
                return actions
        seat = after[seat]
        while quit_[seat]:
            seat = after[seat]


def play_game(
    seed: str,
    draws: Sequence[Callable[[], float]],
    options: Mapping[str, int],
    twister: rng.Twister,
    deck: Sequence[Card],
) -> tuple[tuple[int, ...], list[int], int, int]:
    """``RuleSet.play_game_uniformly`` (deal, :func:`play_round`, score, round after round)
    fused: chips, token, stage, quits and the pile in locals, the helpers (``give``,
    ``stage_chip``, ``forced_draw``, ``next_active``, the scoring) inlined. Each round's
    deck from ``twister`` reseeded (``rng.seed_of``: ``SeededChance``'s deck); the winners,
    the final scores, the actions and the rounds dealt."""
    players = len(draws)
    target = options["target"]
    deals = rng.seat_deals(len(deck), players, HAND_SIZE)
    reseed, getrandbits, seed_of = twister.seed, twister.getrandbits, rng.seed_of
    white, black = [STARTING_WHITE] * players, [0] * players
    token: int | None = None
    stage_white = stage_black = 0
    seats = range(players)
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
        while True:  # the round: play_round, its state in locals
            actions += 1
            hand = hands[seat]
            playable = PLAYABLE_ON[top].intersection(hand)  # the plays, unordered
            listed = count = len(playable)
            show = stage_white + stage_black >= SHOW_THRESHOLD
            gifts = None
            if left > 1 and ONE in playable and (
                white[seat] or token == seat or black[seat] or show
            ):  # a 1 that gives: once per recipient, in its place
                gifts = [to for to in seats if to != seat and not quit_[to]]
                listed += len(gifts) - 1
            can_draw = 1 if left > 1 and pile else 0
            can_skip = token == seat
            pick = int(draws[seat]() * (listed + can_draw + can_skip + 1))
            if pick < listed:  # a play: the plays in hand order (each card once)
                give_to = None
                if count == 1:
                    (card,) = playable
                    if gifts is not None:
                        give_to = gifts[pick]
                else:
                    plays = sorted(playable, key=hand.index)
                    if gifts is None:
                        card = plays[pick]
                    else:
                        at = plays.index(ONE)
                        if pick < at:
                            card = plays[pick]
                        elif pick < at + len(gifts):
                            card, give_to = ONE, gifts[pick - at]
                        else:
                            card = plays[pick - len(gifts) + 1]
                if show and card is not LLAMA_CARD:  # the show's stage goes to whoever acts
                    total = white[seat] + stage_white
                    black[seat] += total // BLACK_POINTS + stage_black
                    white[seat] = total % BLACK_POINTS
                    stage_white = stage_black = 0
                hand.remove(card)
                top = card
                if card is ONE:  # a card has at most one effect
                    if give_to is not None:  # give: white, else the token, else black
                        if white[seat]:
                            white[seat] -= 1
                            total = white[give_to] + 1
                            black[give_to] += total // BLACK_POINTS
                            white[give_to] = total % BLACK_POINTS
                        elif token == seat:
                            token = give_to
                        elif black[seat]:
                            black[seat] -= 1
                            black[give_to] += 1
                elif card is LLAMA_CARD:  # stage_chip
                    if white[seat]:
                        white[seat] -= 1
                        stage_white += 1
                    elif black[seat]:
                        black[seat] -= 1
                        stage_black += 1
                elif card.symbol is STAR:
                    token = seat
                elif card.symbol is DRAWS and hand and pile:  # forced_draw
                    target_seat = after[seat]  # (the player's own seat at worst)
                    while quit_[target_seat]:
                        target_seat = after[target_seat]
                    hands[target_seat].append(pile.pop())
                if not hand:
                    emptied = seat
                    break
            else:
                rest = pick - listed
                if can_skip and rest == can_draw:  # skip: the stage stays
                    token = None
                else:
                    if show:
                        total = white[seat] + stage_white
                        black[seat] += total // BLACK_POINTS + stage_black
                        white[seat] = total % BLACK_POINTS
                        stage_white = stage_black = 0
                    if can_draw and rest == 0:
                        hand.append(pile.pop())
                    else:  # quit: the last to quit ends the round
                        quit_[seat] = True
                        left -= 1
                        if not left:
                            break
            seat = after[seat]
            while quit_[seat]:
                seat = after[seat]
        scores = chips_scored(hands, white, black, emptied)  # score_round, no breakdown
        if token is not None:  # score_extras: the token's holder takes a black chip
            black[token] += 1
            scores[token] += TOKEN_POINTS
            token = None
        if max(scores) >= target:
            best = min(scores)
            return tuple([s for s in seats if scores[s] == best]), scores, actions, round_no
        first = seat  # the round's ender starts the next
