"""Properties of whole random games, for every rule set (docs/rules.md invariants).

Each example plays one seeded game to its end with a seeded chooser, checking after every
action that cards and chips are conserved and that the player to act can act, and on a
sample of positions that every enumerated action applies, that anything else is refused and
changes nothing, that views hide other hands and that action text round-trips.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import fields, is_dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game import (
    Action,
    ActionType,
    Card,
    EventKind,
    Game,
    IllegalAction,
    NotYourTurn,
    from_dict,
    player_view,
    replay,
    summary,
    to_dict,
)
from game.actions import SIMPLE, discard, play, take
from game.cards import ALL_CARDS, PLAIN_VALUES
from game.events import Event
from game.state import Phase

MAX_ACTIONS = 20_000
ROW_SIZE = 7
HAND_SIZE = 6
CHIP_VALUE = {"white": 1, "black": 10, None: 0}
GENEROUS = {ActionType.QUIT: 0.15, ActionType.STOP: 0.1, ActionType.SKIP: 0.5}
"""Choice weights: quitting and stopping less often makes games longer and richer."""


def _weighted_choice(chooser: random.Random, actions: list[Action]) -> Action:
    weights = [GENEROUS.get(a.type, 1.0) for a in actions]
    return chooser.choices(actions, weights=weights)[0]


def _chip_value(game: Game) -> int:
    """Every point on the table: players' chips (or tutorial totals) and the stage."""
    state = game.state
    players = sum(state.score(s) for s in range(state.players))
    return players + state.stage_white + 10 * state.stage_black


class Ledger:
    """The cards of the current round that are not in hands or in the pile/row."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.gone: Counter[str] = Counter()
        self.start(game.opening_events)

    def start(self, events: list[Event]) -> None:
        for event in events:
            if event.kind is EventKind.ROUND_STARTED:
                self.gone = Counter()
                if event.card is not None:
                    self.gone[event.card] += 1
            elif event.kind is EventKind.PLAYED and event.card is not None:
                self.gone[event.card] += 1
            elif event.kind is EventKind.DISCARDED:
                self.gone.update(event.cards)

    def check(self) -> None:
        """Cards conserved: hands + pile (or row) + played/discarded = what was dealt."""
        game = self.game
        state = game.state
        if state.phase is Phase.DEAL:
            return
        held = Counter(c.token for hand in state.hands for c in hand)
        if game.rules.uses_row:
            dealt = game.chance[state.round_no - 1].deck[: HAND_SIZE * state.players]
            total = Counter(c.token for c in dealt) + Counter(c.token for c in PLAIN_VALUES)
            here = held + Counter(c.token for c in state.row or []) + self.gone
        else:
            total = Counter(c.token for c in game.rules.deck())
            here = held + Counter(c.token for c in state.draw_pile) + self.gone
        assert here == total, f"cards not conserved: {here - total} extra, {total - here} missing"
        if game.rules.uses_chips:
            assert all(0 <= w < 10 for w in state.white), "10 white chips are always exchanged"


def _chip_change_explained(before: int, game: Game, events: list[Event]) -> None:
    """Chips move between players and the stage; only scoring and three llamas change the total."""
    expected = before
    for event in events:
        if event.kind is EventKind.ROUND_OVER:
            expected += sum(event.points)
        elif event.kind is EventKind.THREE_LLAMAS:
            expected -= CHIP_VALUE[event.card]
    assert _chip_value(game) == expected, [e.kind.value for e in events]


def _random_action(chooser: random.Random, players: int) -> Action:
    kind = chooser.choice(list(ActionType))
    card = chooser.choice(ALL_CARDS)
    if kind is ActionType.PLAY:
        give_to = chooser.choice([None, chooser.randrange(players)])
        return play(card, give_to)
    if kind is ActionType.TAKE:
        return take(card)
    if kind is ActionType.DISCARD:
        return discard([chooser.choice(PLAIN_VALUES) for _ in range(chooser.randint(1, 3))])
    return SIMPLE[kind]


def _cards_in(value: object) -> list[Card]:
    """Every Card reachable inside a view value."""
    if isinstance(value, Card):
        return [value]
    if isinstance(value, Action):
        return [c for c in (value.card, *value.tiles) if c is not None]
    if isinstance(value, tuple | list):
        return [c for item in value for c in _cards_in(item)]
    if is_dataclass(value) and not isinstance(value, type):
        return [c for f in fields(value) for c in _cards_in(getattr(value, f.name))]
    return []


def _check_views(game: Game) -> None:
    """Hidden information: a seat's view shows only its own hand (dice tiles are public)."""
    state = game.state
    for seat in range(state.players):
        view = player_view(game, seat)
        own = Counter(state.hands[seat])
        assert Counter(view.hand) == own
        if game.rules.uses_row:
            continue
        assert all(s.tiles is None for s in view.seats)
        private = [*view.hand, *_cards_in(view.legal)]
        if view.drawn is not None:
            assert seat == state.to_act
            private.append(view.drawn)
        assert set(private) <= set(own), "a view shows a card its seat does not hold"
        assert [s.hand_size for s in view.seats] == [len(h) for h in state.hands]
    spectator = player_view(game, None)
    assert spectator.hand == () and spectator.legal == () and spectator.drawn is None


def _check_position(game: Game, chooser: random.Random) -> None:
    """The expensive checks, on a sample of positions."""
    seat = game.to_act
    assert seat is not None
    legal = game.legal_actions()
    for action in legal:
        assert Action.parse(str(action)) == action
        game.clone().apply(seat, action)
    before = summary(game)
    for _ in range(3):
        action = _random_action(chooser, game.state.players)
        actor = chooser.randrange(game.state.players)
        if actor == seat and action in legal:
            continue
        expected = NotYourTurn if actor != seat else IllegalAction
        try:
            game.apply(actor, action)
        except (NotYourTurn, IllegalAction) as error:
            assert isinstance(error, expected), (actor, seat, str(action), error)
        else:
            raise AssertionError(f"{action} by seat {actor} was not refused")
        assert summary(game) == before, f"refused {action} changed the game"
    _check_views(game)


def _play_out(variant: str, players: int, seed: int, choices: int, length: int) -> Game:
    names = [f"p{i}" for i in range(players)]
    option = "rounds" if variant == "tutorial" else "target"
    game = Game(variant, names, {option: length}, seed=seed)
    chooser = random.Random(choices)
    ledger = Ledger(game)
    ledger.check()
    for _ in range(MAX_ACTIONS):
        if game.finished:
            break
        seat = game.to_act
        assert seat is not None, "an unfinished seeded game always has a player to act"
        legal = game.legal_actions()
        assert legal, "the player to act always has a legal action"
        if chooser.random() < 0.3:
            _check_position(game, chooser)
        chips = _chip_value(game)
        events = game.apply(seat, _weighted_choice(chooser, legal))
        for event in events:
            if event.kind is EventKind.DREW_CARD:
                assert event.private_to == event.seat is not None
            elif event.card is not None and event.kind in (EventKind.DREW, EventKind.FORCED_DRAW):
                raise AssertionError("a public draw event names the card")
        ledger.start(events)
        ledger.check()
        _chip_change_explained(chips, game, events)
    assert game.finished, f"no end after {MAX_ACTIONS} actions"
    assert game.legal_actions() == []
    return game


def _check_replay(game: Game) -> None:
    record = to_dict(game)
    result = replay(from_dict(record))
    assert result.exit_code == 0, result.error
    assert result.summary() == summary(game)
    assert to_dict(result.game) == record


pytestmark = pytest.mark.slow  # 40 whole games per rule set (the hypothesis profile)

GAMES = st.tuples(
    st.integers(2, 6), st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1), st.integers(1, 150)
)
"""Players, deck/roll seed, chooser seed, and the target (tutorial: rounds, capped below)."""


@settings(deadline=None)
@given(GAMES)
def test_classic_games(game_args: tuple[int, int, int, int]) -> None:
    _check_replay(_play_out("classic", *game_args))


@settings(deadline=None)
@given(GAMES)
def test_kadabra_games(game_args: tuple[int, int, int, int]) -> None:
    _check_replay(_play_out("kadabra", *game_args))


@settings(deadline=None)
@given(GAMES)
def test_dice_games(game_args: tuple[int, int, int, int]) -> None:
    _check_replay(_play_out("dice", *game_args))


@settings(deadline=None)
@given(GAMES)
def test_tutorial_games(game_args: tuple[int, int, int, int]) -> None:
    players, seed, choices, length = game_args
    _check_replay(_play_out("tutorial", players, seed, choices, 1 + length % 8))
