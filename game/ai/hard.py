"""The ``hard`` AI: determinized search from one seat's view.

For each of ``iterations`` worlds (the unseen cards dealt at random, consistent
with what the table saw, :mod:`game.ai.worlds`), every legal action is tried
and the round is played out on the fast path (:mod:`game.fast`) by the
``heuristic`` AI for every seat; the action with the best average outcome
wins (flat determinized sampling: "perfect-information Monte Carlo"). All
candidates of one world share the deal and the dice (common random numbers),
so their difference measures the action, not the luck.

An outcome is judged by the game, not the round (:mod:`game.ai.evaluate`): this
seat's chance to win the game given the totals at the playout's round end (1 or 0
when that round ended the game), plus a little of the round's points against the
others' mean. ``evaluation="points"`` keeps the earlier outcome for comparisons:
the round's points gained by the others on average minus mine (sign flipped where
the most points win), plus a bonus if the game ends in that round and this seat
is among the winners.

It decides from ``choose(view)`` alone: its seat's view and the public history
that view carries (``view.seen``). Every random choice comes from a generator
seeded by the player's seed and the public situation, so a decision is a pure
function of what the seat may know; ``budget`` (seconds) bounds the search
in the bot, and is off in tests.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from game import rng
from game.actions import Action
from game.ai import ismcts, playout
from game.ai.evaluate import game_values
from game.ai.heuristic import STRATEGIES, dice
from game.ai.limits import OutOfSteps, OutOfTime
from game.ai.playout import Policy
from game.ai.registry import register
from game.ai.worlds import base_state, sample_world, unseen_cards
from game.fast import FastGame, RandomChance
from game.rules import RuleSet
from game.rules import find as find_rules
from game.state import State
from game.views import PlayerView, state_view

DEFAULT_ITERATIONS = 32
ITERATIONS: dict[str, int] = {"classic": 64, "kadabra": 40, "dice": 32, "tutorial": 64}
"""Worlds per decision by rule set, where nobody sets ``iterations``: as many as keep a
decision's p95 under 150 ms of one core (docs/performance.md, "The AIs' strength")."""
PRIOR = 1.0
"""Points of mean outcome credited to the heuristic's own choice: search must find a
real difference to overrule it, not sampling noise."""
WIN_BONUS = 40.0
"""``evaluation="points"``: worth of winning the game in this round, in round points."""
PLAYOUT_LIMIT = 400
"""Actions after which a playout stops (a round of dice can in principle go on)."""
DEFAULT_STEPS = 4000
STEPS: dict[str, int] = {"classic": 10000, "kadabra": 5000, "dice": 6000, "tutorial": 4000}
"""Playout steps (actions applied in simulated games) one decision may spend, by rule set:
the bound of a decision's work, whatever the hands. Worlds stop coming once the next one
would, at the average so far, go past it, and a world that does go past it is dropped (a
world counts whole or not at all). A step costs about 15 (classic), 30 (kadabra, dice)
to 60 µs (tutorial, played through views) of CPU, so the longest decision stays well under
half a second on one core; the counts rarely bind (docs/performance.md, "The AIs' strength")."""


PLAYOUT_STRATEGIES: dict[str, Callable[[PlayerView], Action]] = {
    "dice": lambda view: dice(view, depth=1),
}
"""Cheaper stand-ins for the heuristic where it is slow (dice plans over many rolls)."""


@dataclass(frozen=True)
class SearchResult:
    """What a search found: the choice, and each candidate's mean outcome."""

    action: Action
    means: tuple[tuple[Action, float], ...]
    worlds: int
    steps: int = 0
    """Playout steps spent (those of a dropped world included)."""


def search(
    view: PlayerView,
    seed: int | str,
    iterations: int = DEFAULT_ITERATIONS,
    deadline: float | None = None,
    clock: Callable[[], float] = time.perf_counter,
    evaluation: str = "game",
    steps: int | None = None,
) -> SearchResult:
    """Flat determinized sampling over ``view.legal``.

    At most ``iterations`` worlds, and at most ``steps`` playout steps (default: the rule
    set's :data:`STEPS`): the search stops before a world that would, at the average so far,
    go past them, and drops one that does. With a deadline, it also stops at it, keeping
    only whole worlds. With no whole world, the heuristic decides.
    """
    legal = view.legal
    me = view.me if view.me is not None else 0
    rule_set = find_rules(view.variant)
    options = dict(view.options)
    random = rng.chooser(seed, "hard", *situation(view)).random
    base = base_state(rule_set, view)
    unseen = unseen_cards(rule_set, view)
    policy = Playout(rule_set, view, evaluation)
    totals = [0.0] * len(legal)
    worlds = 0
    policy.deadline, policy.clock = deadline, clock
    policy.allowance = STEPS.get(view.variant, DEFAULT_STEPS) if steps is None else steps
    while worlds < max(iterations, 1):
        if worlds and policy.spent + policy.spent / worlds > policy.allowance:
            break  # the next world would most likely not fit in the allowance
        world = sample_world(base, view, unseen, random)
        dice_seed = int(random() * 2**53)
        try:
            outcomes = [
                policy.outcome(
                    FastGame(rule_set, world.clone(), options, RandomChance(dice_seed)), action, me
                )
                for action in legal
            ]
        except (OutOfTime, OutOfSteps):
            break  # a world only counts whole: every candidate on the same deal
        totals = [t + o for t, o in zip(totals, outcomes, strict=True)]
        worlds += 1
        if deadline is not None and clock() >= deadline:
            break
    if worlds == 0:  # out of time before one whole world: the heuristic decides
        action = STRATEGIES[view.variant](view)
        return SearchResult(action, tuple((a, 0.0) for a in legal), 0, policy.spent)
    totals[legal.index(STRATEGIES[view.variant](view))] += PRIOR * worlds
    best = max(range(len(legal)), key=lambda k: (totals[k], -k))
    means = tuple((a, totals[k] / worlds) for k, a in enumerate(legal))
    return SearchResult(legal[best], means, worlds, policy.spent)


def situation(view: PlayerView) -> tuple[object, ...]:
    """The public facts that tell one decision of a game from another (seeds the search)."""
    return (
        view.round_no,
        view.phase.value,
        tuple(s.hand_size for s in view.seats),
        tuple(s.score for s in view.seats),
        view.draw_pile,
        len(view.seen),
        len(view.row or ()),
        " ".join(c.token for c in view.roll or ()),
    )


CLOCK_EVERY = 4
"""Playout steps between two looks at the clock (a step can be slow: long hands)."""


class Playout:
    """Plays a round out with the heuristic AI at every seat and scores it for ``me``."""

    deadline: float | None = None
    clock: Callable[[], float] = time.perf_counter
    allowance: int | None = None
    """Steps the playouts may take in all (``OutOfSteps`` past it); ``None``: no limit."""
    spent = 0
    """Steps the playouts took so far (the first action of each included)."""

    def __init__(self, rule_set: RuleSet, view: PlayerView, evaluation: str = "game") -> None:
        self.rules = rule_set
        self.evaluation = evaluation
        self.strategy = PLAYOUT_STRATEGIES.get(view.variant) or STRATEGIES[view.variant]
        fast = playout.POLICIES.get(view.variant)
        self.policy: Policy = (
            partial(fast, rule_set)
            if fast is not None
            else lambda state, seat, legal: self.strategy(self.view(state, seat, legal))
        )
        self.template = view
        self.sign = 1.0 if rule_set.lower_score_wins else -1.0

    def outcome(self, sim: FastGame, first: Action, me: int) -> float:
        """``me``'s outcome of playing ``first`` and the round out."""
        state = sim.state
        before = [state.score(s) for s in range(state.players)]
        round_no = state.round_no
        if self.allowance is not None and self.spent >= self.allowance:
            raise OutOfSteps
        sim.apply(first)
        self.spent += 1
        self.finish(sim, round_no)
        return self.values(sim, before)[me]

    def finish(self, sim: FastGame, round_no: int) -> None:
        """Play round ``round_no`` out (or ``PLAYOUT_LIMIT`` actions); ``OutOfTime`` past the
        deadline, ``OutOfSteps`` past the allowance."""
        state = sim.state
        steps = 0
        policy = self.policy
        allowance = self.allowance
        left = PLAYOUT_LIMIT if allowance is None else allowance - self.spent
        try:
            while state.round_no == round_no and not sim.finished and steps < PLAYOUT_LIMIT:
                if steps >= left:
                    raise OutOfSteps
                legal = sim.legal()
                seat = state.to_act
                if len(legal) == 1 or seat is None:
                    sim.apply(legal[0])
                else:
                    sim.apply(policy(state, seat, legal))
                steps += 1
                if (
                    self.deadline is not None
                    and steps % CLOCK_EVERY == 0
                    and self.clock() >= self.deadline
                ):
                    raise OutOfTime
        finally:
            self.spent += steps

    def values(self, sim: FastGame, before: list[int]) -> list[float]:
        """Each seat's outcome since the scores were ``before``: by the game
        (:func:`game.ai.evaluate.game_values`), or with ``evaluation="points"`` the others'
        average gain minus its own (sign flipped where the most points win) and the win
        bonus."""
        state = sim.state
        if self.evaluation == "game":
            return game_values(
                self.template.variant,
                before,
                [state.score(s) for s in range(state.players)],
                state.round_no if sim.finished else state.round_no - 1,  # the round played
                sim.options,
                self.rules.lower_score_wins,
                state.winners if sim.finished else None,
            )
        gains = [state.score(s) - before[s] for s in range(state.players)]
        total = sum(gains)
        share = state.players - 1
        sign = self.sign
        values = [sign * ((total - gain) / share - gain) for gain in gains]
        if sim.finished:
            for seat in state.winners:
                values[seat] += WIN_BONUS
        return values

    def view(self, state: State, seat: int, legal: list[Action]) -> PlayerView:
        """What the heuristic needs of ``seat``'s view, straight from the simulated state."""
        return state_view(self.rules, state, seat, None, self.template.options, tuple(legal))


class HardPlayer:
    """Searches ``iterations`` worlds per decision (default: :data:`ITERATIONS` of the rule
    set) within ``steps`` playout steps (default: :data:`STEPS` of the rule set), or until
    ``budget`` seconds have passed. ``method="ismcts"`` searches one
    information-set tree instead (:mod:`game.ai.ismcts`; an iteration is one world and one
    playout there, where flat sampling plays every candidate out in each world)."""

    name = "hard"

    def __init__(
        self,
        seed: int | str,
        iterations: int | None = None,
        budget: float | None = None,
        clock: Callable[[], float] = time.perf_counter,
        method: str = "flat",
        evaluation: str = "game",
        steps: int | None = None,
    ) -> None:
        self.seed = seed
        self.steps = steps
        self.evaluation = evaluation
        self.iterations = iterations
        self.method = method
        self.budget = budget
        self.clock = clock

    def choose(self, view: PlayerView) -> Action:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        deadline = None if self.budget is None else self.clock() + self.budget
        iterations = self.iterations
        if iterations is None:
            iterations = ITERATIONS.get(view.variant, DEFAULT_ITERATIONS)
        if self.method == "ismcts":
            action, _ = ismcts.search(
                view, self.seed, iterations, Playout, situation(view), deadline, self.clock
            )
            return action
        return search(
            view, self.seed, iterations, deadline, self.clock, self.evaluation, self.steps
        ).action


register(HardPlayer.name, HardPlayer)
