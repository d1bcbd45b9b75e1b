"""Single-observer information-set MCTS (Cowling, Powley and Whitehouse, 2012) for ``hard``.

One tree over the actions of every seat, from the searching seat's information set: each
iteration deals a fresh world consistent with its view (:mod:`game.ai.worlds`), walks the
tree choosing, among the actions legal in that world, the child with the best UCB1 score
(a child's exploration counts the iterations in which it was available, not its parent's
visits), adds one node, plays the round out with the playout policy, and credits every
node with the outcome for the seat that chose it. The most visited first action wins.

It is kept as ``HardPlayer(method="ismcts")`` to be compared with flat determinized sampling
(:func:`game.ai.hard.search`) at equal time (docs/performance.md, "The AIs' strength").
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Protocol

from game import rng
from game.actions import Action
from game.ai.limits import OutOfTime
from game.ai.worlds import base_state, sample_world, unseen_cards
from game.fast import FastGame, RandomChance
from game.rules import find as find_rules
from game.views import PlayerView

EXPLORE = 0.7
"""UCB1's exploration constant, for outcomes scaled by :data:`SCALE`."""
SCALE = 20.0
"""Round points that make one unit of reward (a round moves ~5–15 points)."""


class Rollout(Protocol):
    """What the search needs of a playout (``game.ai.hard.Playout``): play a round out
    (``OutOfTime`` past ``deadline``), then each seat's outcome since ``before``."""

    deadline: float | None
    clock: Callable[[], float]

    def finish(self, sim: FastGame, round_no: int) -> None: ...

    def values(self, sim: FastGame, before: list[int]) -> list[float]: ...


class Node:
    """The actions taken so far in the round from the root; statistics of the last one."""

    __slots__ = ("available", "children", "seat", "total", "visits")

    def __init__(self, seat: int | None) -> None:
        self.seat = seat  # who chose the action leading here
        self.children: dict[Action, Node] = {}
        self.visits = 0
        self.available = 0
        self.total = 0.0


def search(
    view: PlayerView,
    seed: int | str,
    iterations: int,
    playout_factory: Callable[..., Rollout],
    situation: tuple[object, ...],
    deadline: float | None = None,
    clock: Callable[[], float] | None = None,
) -> tuple[Action, int]:
    """The most visited legal action after ``iterations`` iterations (or the deadline)."""
    legal = view.legal
    rule_set = find_rules(view.variant)
    options = dict(view.options)
    random = rng.chooser(seed, "ismcts", *situation).random
    base = base_state(rule_set, view)
    unseen = unseen_cards(rule_set, view)
    policy = playout_factory(rule_set, view)
    policy.deadline = deadline
    if clock is not None:
        policy.clock = clock
    root = Node(None)
    done = 0
    while done < max(iterations, 1):
        world = sample_world(base, view, unseen, random)
        sim = FastGame(rule_set, world, options, RandomChance(int(random() * 2**53)))
        state = sim.state
        round_no = state.round_no
        before = [state.score(s) for s in range(state.players)]
        path = [root]
        node = root
        # selection and expansion, within this round
        while state.round_no == round_no and not sim.finished:
            moves = sim.legal()
            seat = state.to_act
            if len(moves) == 1:  # forced moves are not choices: no node for them
                sim.apply(moves[0])
                continue
            children = node.children
            fresh = [a for a in moves if a not in children]
            for action in moves:
                child = children.get(action)
                if child is not None:
                    child.available += 1
            if fresh:
                action = fresh[int(random() * len(fresh))]
                child = children[action] = Node(seat)
                child.available += 1
                sim.apply(action)
                path.append(child)
                break
            best_score = -math.inf
            action = moves[0]
            for move in moves:
                child = children[move]
                log_n = math.log(child.available)
                score = child.total / child.visits + EXPLORE * math.sqrt(log_n / child.visits)
                if score > best_score:
                    best_score, action = score, move
            node = children[action]
            sim.apply(action)
            path.append(node)
        try:
            policy.finish(sim, round_no)
        except OutOfTime:
            break
        values = policy.values(sim, before)
        for visited in path[1:]:
            visited.visits += 1
            if visited.seat is not None:
                visited.total += values[visited.seat] / SCALE
        done += 1
        if deadline is not None and clock is not None and clock() >= deadline:
            break
    if not root.children:
        return legal[0], 0
    best = max(legal, key=lambda a: (root.children[a].visits if a in root.children else -1))
    return best, done
