"""L.A.M.A. Kadabra played by uniform picks (the ``random`` AI), fused: a round
(:func:`play_round`, ``Kadabra.play_round_uniformly``) and a whole game (:func:`play_game`,
``Kadabra.play_game_uniformly``: ``simulate``'s fast path). Each does what the fast listing
and ``step`` do, pick for pick (tests/game/test_uniform.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from game import rng
from game.cards import LLAMA_CARD, ONE, Card, Symbol
from game.rules.base import HAND_SIZE, end_round
from game.rules.items import BLACK_POINTS, chips_scored
from game.rules.kadabra_magic import SHOW_THRESHOLD, STARTING_WHITE, TOKEN_POINTS
from game.rules.shedding import PLAYABLE_ON
from game.state import State

STAR, DRAWS = Symbol.STAR, Symbol.DRAW
"""The symbols, read once (``Symbol.STAR`` goes through ``EnumType.__getattr__`` in Python
3.11: about 25 times a global's read, at every turn)."""


def play_round(state: State, draws: Sequence[Callable[[], float]]) -> int:
    """``fast_legal_actions``, the uniform pick and ``step`` fused, without building
    actions (:func:`turns` on the state's hands, pile, quits and chips): ``simulate``'s
    ``random`` line-ups play this way (``Kadabra.play_round_uniformly``;
    tests/game/test_uniform.py holds it to the listing and ``step``)."""
    seat = state.to_act
    top = state.top
    if seat is None or top is None:
        return 0
    actions, ender, emptied, state.top, state.token, state.stage_white, state.stage_black = (
        turns(state.hands, state.draw_pile, state.quit, state.white, state.black, state.token,
              state.stage_white, state.stage_black, top, seat, draws)
    )
    end_round(state, ender, emptied)
    return actions


def turns(
    hands: list[list[Card]],
    pile: list[Card],
    quit_: list[bool],
    white: list[int],
    black: list[int],
    token: int | None,
    stage_white: int,
    stage_black: int,
    top: Card,
    seat: int,
    draws: Sequence[Callable[[], float]],
) -> tuple[int, int, bool, Card, int | None, int, int]:
    """A round's turns from ``seat``'s on, each seat picking uniformly from the listing
    (the plays, a giving ``1`` once per recipient in its place, draw, skip, quit) by the
    pick's index, with ``step``'s effects (``give``, ``stage_chip``, ``forced_draw``,
    ``next_active`` inlined), the lists changed in place: the actions, the round's ender,
    whether it emptied its hand, and the top card, the token and the stage at the end."""
    players = len(hands)
    seats = range(players)
    after = [*range(1, players), 0]  # the seat after each (next_active, inlined)
    left = quit_.count(False)
    actions = 0
    while True:
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
                target = after[seat]  # (the player's own seat at worst)
                while quit_[target]:
                    target = after[target]
                hands[target].append(pile.pop())
            if not hand:
                return actions, seat, True, top, token, stage_white, stage_black
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
                        return actions, seat, False, top, token, stage_white, stage_black
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
    fused: chips, token, stage, quits and the pile in locals, each round's turns
    :func:`turns`, the scoring inlined. Each round's deck from ``twister`` reseeded
    (``rng.seed_of``: ``SeededChance``'s deck); the winners, the final scores, the actions
    and the rounds dealt."""
    players = len(draws)
    target = options["target"]
    deals = rng.seat_deals(len(deck), players, HAND_SIZE)
    reseed, getrandbits, seed_of = twister.seed, twister.getrandbits, rng.seed_of
    white, black = [STARTING_WHITE] * players, [0] * players
    token: int | None = None
    stage_white = stage_black = 0
    actions = round_no = first = 0
    while True:
        round_no += 1
        reseed(seed_of(f"{seed}:deck:{round_no}"))
        *hands, top, pile = deals[first](getrandbits, list(deck))
        taken, first, emptied, _, token, stage_white, stage_black = turns(
            hands, pile, [False] * players, white, black, token, stage_white, stage_black,
            top, first, draws,
        )  # (the round's ender starts the next)
        actions += taken
        scores = chips_scored(hands, white, black, first if emptied else None)
        if token is not None:  # score_extras: the token's holder takes a black chip
            black[token] += 1
            scores[token] += TOKEN_POINTS
            token = None
        if max(scores) >= target:
            best = min(scores)
            winners = tuple([s for s in range(players) if scores[s] == best])
            return winners, scores, actions, round_no
