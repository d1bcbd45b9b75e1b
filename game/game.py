"""A game in progress: the one object the bot, the AIs and replay drive.

``Game`` owns the full :class:`~game.state.State`, checks every action
(game over, missing chance, turn, legality, in docs/record.md's order), asks the
rule set to carry it out, scores rounds, and deals the next round from the
recorded chance or from the seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from game import rng, rules
from game.actions import Action, ActionType, describe
from game.cards import Card
from game.errors import GameOver, IllegalAction, MissingChance, NotYourTurn
from game.events import Event, EventKind
from game.state import Phase, RoundChance, State


class Game:
    """One game of one rule set between named seats.

    ``chance`` holds the rounds' decks and rolls already known (from a
    record); past them, outcomes come from ``seed``. With neither, the game
    waits in phase ``deal`` (or raises :class:`MissingChance` for a roll).
    """

    def __init__(
        self,
        variant: str,
        players: Sequence[str],
        options: Mapping[str, object] | None = None,
        *,
        seed: int | str | None = None,
        chance: Sequence[RoundChance] = (),
    ) -> None:
        self.rules = rules.find(variant)
        if not 2 <= len(players) <= 6:
            raise IllegalAction(f"a game needs 2 to 6 players, not {len(players)}")
        self.players: tuple[str, ...] = tuple(players)
        self.options = self.rules.validate_options(options)
        self.seed = seed
        self.chance: list[RoundChance] = [RoundChance(c.deck, list(c.rolls)) for c in chance]
        self.state = State.new(len(players))
        self.history: list[tuple[int, Action]] = []
        self.round_start = 0  # where this round's actions begin in ``history``
        self.round_opening: Card | None = None  # the card turned up at this round's deal
        self.rules.setup_game(self.state, self.options)
        self._legal: list[Action] | None = None
        self.opening_events: list[Event] = self._deal()

    @property
    def variant(self) -> str:
        return self.rules.name

    @property
    def finished(self) -> bool:
        return self.state.phase is Phase.FINISHED

    @property
    def to_act(self) -> int | None:
        """The seat whose action is awaited, or ``None``."""
        return self.state.to_act

    def legal_actions(self) -> list[Action]:
        """Every action the player to act may take now (empty when nobody may act)."""
        if self._legal is None:
            state = self.state
            if state.phase in (Phase.DEAL, Phase.FINISHED):
                self._legal = []
            else:
                self._legal = self.rules.legal_actions(state)
        return self._legal

    def check(self, seat: int, action: Action) -> None:
        """Raise the error ``apply`` would raise, without changing anything."""
        state = self.state
        if state.phase is Phase.FINISHED:
            what = describe(action, self.players)
            raise GameOver(f"{what} by {self.players[seat]}: the game is over")
        if state.phase is Phase.DEAL:
            raise MissingChance(f"round {state.round_no} has no deck to deal")
        if self.rules.needs_chance(state, action) and not self._roll_available():
            what = describe(action, self.players)
            raise MissingChance(
                f"{what} by {self.players[seat]}: round {state.round_no} has no roll "
                f"number {state.rolls_used + 1}"
            )
        if seat != state.to_act:
            what = describe(action, self.players)
            waiting = "nobody" if state.to_act is None else self.players[state.to_act]
            raise NotYourTurn(f"{what} by {self.players[seat]}: it is {waiting}'s turn")
        if action not in self.legal_actions():
            refusal = self.rules.refuse(state, action, describe(action, self.players))
            raise IllegalAction(f"{self.players[seat]}: {refusal}")

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Carry out ``action`` by ``seat``; returns what happened.

        Raises a :class:`~game.errors.RulesError` subclass, changing nothing,
        if the action is refused.
        """
        state = self.state
        rules = self.rules
        legal = self._legal
        # The common case first: the player to act takes one of the listed actions (the very
        # object listed, as AIs and buttons do), which ``check`` would let through unless it
        # needs a roll. Anything else goes through ``check`` for its error, in its order.
        needs = rules.needs_chance(state, action)
        if needs or legal is None or seat != state.to_act:
            self.check(seat, action)
        else:
            for listed in legal:  # by identity (comparing dataclasses field by field is slow)
                if listed is action:
                    break
            else:
                self.check(seat, action)  # an equal action not listed as such, or an error
        chance = self.chance[state.round_no - 1]
        if needs and state.rolls_used >= len(chance.rolls):
            chance.rolls.append(rules.random_roll(self._seed(), state.round_no, state.rolls_used))
        events = rules.apply(state, action, chance)
        self.history.append((seat, action))
        self._legal = None
        if state.round_over:
            events.extend(self._finish_round())
        return events

    def supply_deck(self, chance: RoundChance) -> list[Event]:
        """Give the waiting game (phase ``deal``) its next round's chance outcome."""
        if self.state.phase is not Phase.DEAL:
            raise IllegalAction(f"round {self.state.round_no} is already dealt")
        self.chance.append(chance)
        return self._deal()

    # ---- internals ---------------------------------------------------------
    def _seed(self) -> int | str:
        if self.seed is None:  # guarded by _roll_available / _deal
            raise MissingChance("this game has no seed to draw chance from")
        return self.seed

    def _roll_available(self) -> bool:
        state = self.state
        rolls = self.chance[state.round_no - 1].rolls
        return state.rolls_used < len(rolls) or self.seed is not None

    def _deal(self) -> list[Event]:
        state = self.state
        self._legal = None
        index = state.round_no - 1
        if index >= len(self.chance):
            if self.seed is None:
                state.phase = Phase.DEAL
                state.to_act = None
                return []
            deck = rng.shuffled_deck(self.seed, state.round_no, self.rules.deck())
            self.chance.append(RoundChance(deck))
        events = self.rules.start_round(state, self.chance[index])
        self.round_start = len(self.history)
        self.round_opening = state.top
        return events

    def seen_this_round(self) -> tuple[Card, ...]:
        """This round's face-up cards in order: the turned-up card, then every card played.

        All of it is public (the table saw each card land on the pile).
        """
        if self.round_opening is None:
            return ()
        plays = (a.card for _, a in self.history[self.round_start :] if a.type is ActionType.PLAY)
        return (self.round_opening, *(c for c in plays if c is not None))

    def _finish_round(self) -> list[Event]:
        state = self.state
        events = self.rules.score_round(state)
        if self.rules.is_over(state, self.options):
            state.phase = Phase.FINISHED
            state.to_act = None
            state.winners = self.rules.winners(state)
            scores = tuple(state.score(s) for s in range(state.players))
            events.append(Event(EventKind.GAME_OVER, points=scores, winners=state.winners))
            return events
        state.round_no += 1
        self._clear_table()
        events.extend(self._deal())
        return events

    def _clear_table(self) -> None:
        """docs/record.md fine point 8: between rounds, hands and the table are empty."""
        state = self.state
        for seat in range(state.players):
            state.hands[seat] = []
            state.quit[seat] = False
        state.top = None
        state.draw_pile = []
        state.pending_roll = None
        state.pending_drawn = None
        state.resolve_mode = None
        if state.row is not None:
            state.row = []
        state.phase = Phase.DEAL
        state.to_act = None

    def clone(self) -> Game:
        """An independent copy sharing nothing mutable (for AI search)."""
        other = object.__new__(Game)
        other.rules = self.rules
        other.players = self.players
        other.options = self.options
        other.seed = self.seed
        other.chance = [RoundChance(c.deck, list(c.rolls)) for c in self.chance]
        other.state = self.state.clone()
        other.history = list(self.history)
        other.round_start = self.round_start
        other.round_opening = self.round_opening
        other._legal = None
        other.opening_events = []
        return other

