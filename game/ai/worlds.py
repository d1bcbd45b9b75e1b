"""What a seat may believe about the hidden cards: states rebuilt from its view.

A :class:`~game.views.PlayerView` says everything public (hand sizes, chips,
the top card, the dice tiles, this round's face-up cards in ``seen``) and the
seat's own hand. :func:`sample_world` deals the cards this seat has not seen
(the deck minus its hand minus every card turned up or played this round) to
the other hands and the draw pile, uniformly: every deal it makes agrees with
all that draws, plays and quits revealed. Dice hide nothing but future rolls.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from game.actions import ActionType
from game.cards import Card, sort_cards
from game.fast import shuffle
from game.rules import RuleSet
from game.state import Phase, ResolveMode, State
from game.views import PlayerView


def unseen_cards(rule_set: RuleSet, view: PlayerView) -> list[Card]:
    """The deck's cards this seat has not seen this round (others' hands and the pile)."""
    if not rule_set.uses_draw_pile:
        return []
    left = Counter(rule_set.deck())
    left.subtract(view.hand)
    left.subtract(view.seen)
    return sort_cards(list(left.elements()))


def base_state(rule_set: RuleSet, view: PlayerView) -> State:
    """The state as this seat knows it; other hands and the pile are left empty."""
    n = len(view.seats)
    state = State.new(n)
    state.round_no = view.round_no
    state.phase = view.phase
    state.to_act = view.to_act
    me = view.me if view.me is not None else 0
    for seat in view.seats:
        state.quit[seat.seat] = seat.quit
        if rule_set.uses_chips:
            state.white[seat.seat] = seat.white
            state.black[seat.seat] = seat.black
        else:
            state.totals[seat.seat] = seat.score
        if seat.tiles is not None:  # dice: tiles lie face up
            state.hands[seat.seat] = list(seat.tiles)
    state.hands[me] = list(view.hand)
    state.top = view.top
    if view.stage is not None:
        state.stage_white, state.stage_black = view.stage
    state.token = view.token_holder
    state.row = list(view.row) if view.row is not None else None
    if view.roll is not None:
        a, b, c = view.roll
        state.pending_roll = (a, b, c)
        kinds = {action.type for action in view.legal}
        discard = ActionType.DISCARD in kinds
        state.resolve_mode = ResolveMode.DISCARD if discard else ResolveMode.TAKE
    if view.phase is Phase.DRAWN:
        state.pending_drawn = view.drawn
        state.pile_emptied = not view.draw_pile
    return state


def sample_world(
    base: State, view: PlayerView, unseen: list[Card], random: Callable[[], float]
) -> State:
    """A copy of ``base`` whose hidden hands and pile are dealt at random from ``unseen``."""
    world = base.clone()
    if not unseen:
        return world
    cards = shuffle(list(unseen), random)
    at = 0
    for seat in view.seats:
        if seat.seat == view.me:
            continue
        world.hands[seat.seat] = cards[at : at + seat.hand_size]
        at += seat.hand_size
    world.draw_pile = cards[at:]
    return world
