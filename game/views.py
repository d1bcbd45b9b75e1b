"""The one exit for game state: per-seat views and the referee's summary.

:func:`player_view` is what one seat (or a spectator, seat ``None``) may
know: their own hand, everyone's public facts, and their legal actions when
it is their turn. :func:`summary` is the referee view of docs/record.md, with all
hands, for records, replay and tests. Nothing else outside ``game/`` reads
the state.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from game.actions import Action
from game.cards import Card, sort_cards, tokens
from game.game import Game
from game.rules import RuleSet
from game.state import Phase, State


@dataclass(frozen=True, slots=True)
class SeatView:
    """What everybody may know about one seat."""

    seat: int
    name: str
    hand_size: int
    quit: bool
    white: int
    black: int
    score: int
    round_points: tuple[int, ...]
    holds_token: bool
    tiles: tuple[Card, ...] | None  # dice: tiles lie face up, so they are public


@dataclass(frozen=True, slots=True)
class PlayerView:
    """What seat ``me`` may see (``me`` is ``None`` for a spectator)."""

    variant: str
    title: str
    me: int | None
    round_no: int
    phase: Phase
    to_act: int | None
    hand: tuple[Card, ...]  # sorted; empty for a spectator
    seats: tuple[SeatView, ...]
    top: Card | None
    draw_pile: int | None
    stage: tuple[int, int] | None  # (white, black) on the kadabra stage
    token_holder: int | None
    uses_magic: bool
    uses_chips: bool
    row: tuple[Card, ...] | None
    roll: tuple[Card, ...] | None  # the roll being resolved (public)
    drawn: Card | None  # tutorial: the drawn card, only for its drawer
    legal: tuple[Action, ...]  # only when ``me`` is to act
    winners: tuple[int, ...]
    options: tuple[tuple[str, int], ...]
    seen: tuple[Card, ...] = ()
    """The public history a seat needs to guess hidden cards: this round's face-up
    cards in order (the turned-up card, then every card played); empty in dice."""

    @property
    def finished(self) -> bool:
        return self.phase is Phase.FINISHED

    @property
    def my_turn(self) -> bool:
        return self.me is not None and self.me == self.to_act


def player_view(game: Game, me: int | None, same_state: PlayerView | None = None
                ) -> PlayerView:
    """The only way a hand leaves the engine: to its owner, in their own view.

    ``same_state``: another seat's view of this very state (the caller's word: nothing has
    been applied since), whose public parts (the seats, the options, the round's face-up
    cards) are taken as they are instead of built again; the bot shows one move to every
    seat and to the table."""
    mine = me is not None and me == game.state.to_act
    if same_state is not None:
        return state_view(game.rules, game.state, me, game.players, same_state.options,
                          tuple(game.legal_actions()) if mine else (), same_state.seen,
                          seats=same_state.seats)
    return state_view(
        game.rules,
        game.state,
        me,
        game.players,
        tuple(sorted(game.options.items())),
        tuple(game.legal_actions()) if mine else (),
        game.seen_this_round() if game.rules.uses_draw_pile else (),
    )


def state_view(
    rules: RuleSet,
    state: State,
    me: int | None,
    names: Sequence[str] | None,
    options: tuple[tuple[str, int], ...],
    legal: tuple[Action, ...],
    seen: tuple[Card, ...] = (),
    *,
    seats: tuple[SeatView, ...] | None = None,
) -> PlayerView:
    """Seat ``me``'s view of ``state``: :func:`player_view`'s, and the hard AI's of a
    simulated state (``names`` ``None``: no names, no round history; it runs at every
    step of a playout, so the seats are built positionally). ``seats``: the public seats
    of this same state, already built (another seat's view of it)."""
    hands = state.hands
    token = state.token
    if seats is None:
        seats = _seats(rules, state, names)
    mine = me is not None and me == state.to_act
    return PlayerView(
        variant=rules.name,
        title=rules.title,
        me=me,
        round_no=state.round_no,
        phase=state.phase,
        to_act=state.to_act,
        hand=tuple(sort_cards(hands[me])) if me is not None else (),
        seats=seats,
        top=state.top if rules.uses_draw_pile else None,
        draw_pile=len(state.draw_pile) if rules.uses_draw_pile else None,
        stage=(state.stage_white, state.stage_black) if rules.uses_magic else None,
        token_holder=token,
        uses_magic=rules.uses_magic,
        uses_chips=rules.uses_chips,
        row=tuple(sort_cards(state.row or [])) if rules.uses_row else None,
        roll=state.pending_roll,
        drawn=state.pending_drawn if mine else None,
        legal=legal,
        winners=state.winners,
        options=options,
        seen=seen,
    )


def _seats(rules: RuleSet, state: State, names: Sequence[str] | None
           ) -> tuple[SeatView, ...]:
    """What everybody may know about each seat of ``state``."""
    public_tiles = rules.uses_row  # dice tiles are dealt face up
    hands, quit_, white, black, totals = (
        state.hands,
        state.quit,
        state.white,
        state.black,
        state.totals,
    )
    token = state.token
    history = state.round_points
    return tuple(
        SeatView(
            s,
            names[s] if names is not None else "",
            len(hands[s]),
            quit_[s],
            white[s],
            black[s],
            white[s] + 10 * black[s] + totals[s],  # State.score, inlined
            tuple(history[s]) if names is not None else (),
            token == s,
            tuple(sort_cards(hands[s])) if public_tiles else None,
        )
        for s in range(state.players)
    )


def summary(game: Game) -> dict[str, Any]:
    """docs/record.md's summary: the referee's view, every hand included."""
    state = game.state
    rules = game.rules
    names = game.players
    pending: dict[str, Any] | None = None
    if state.phase is Phase.RESOLVE and state.pending_roll is not None:
        pending = {"roll": [f.token for f in state.pending_roll]}
    elif state.phase is Phase.DRAWN and state.pending_drawn is not None:
        pending = {"drawn": state.pending_drawn.token}
    top = state.top.token if rules.uses_draw_pile and state.top is not None else None
    return {
        "variant": rules.name,
        "round": state.round_no,
        "phase": state.phase.value,
        "finished": state.phase is Phase.FINISHED,
        "winners": [names[s] for s in state.winners],
        "to_act": None if state.to_act is None else names[state.to_act],
        "discard_top": top,
        "draw_pile": len(state.draw_pile) if rules.uses_draw_pile else None,
        "stage": (
            {"white": state.stage_white, "black": state.stage_black} if rules.uses_magic else None
        ),
        "magic_token": (
            ("supply" if state.token is None else names[state.token]) if rules.uses_magic else None
        ),
        "llama_row": tokens(state.row or []) if rules.uses_row else None,
        "pending": pending,
        "players": [
            {
                "name": names[s],
                "hand": tokens(state.hands[s]),
                "quit": state.quit[s],
                "white": state.white[s],
                "black": state.black[s],
                "score": state.score(s),
                "round_points": list(state.round_points[s]),
            }
            for s in range(state.players)
        ],
        "error": None,
    }
