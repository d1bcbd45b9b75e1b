"""What the ``hard`` AI maximises at the end of a simulated round: the game, not the round.

The game is won by the fewest points (the most in the tutorial) when it ends, so a
round's points matter by how they move each seat's chance to win. :func:`win_chances`
estimates those chances from the totals after the round with a softmax over the
totals whose temperature grows with the rounds still to come (a pairwise logistic
model of the difference between two seats' future points): early on it weighs every
opponent alike and turns into the old "my points against the others' mean"; near
the end it weighs the leader, rewards ending the game while ahead and avoids ending
it while behind. A finished game is 1 for every winner, 0 for the others.

The constants were measured from 150 four-player games between ``heuristic`` seats
per rule set (points a seat takes in a round: their spread, and how fast the leader
approaches the target).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

ROUND_SPREAD: dict[str, float] = {"classic": 6.2, "kadabra": 6.2, "dice": 5.1, "tutorial": 10.9}
"""Standard deviation of one seat's points in one round, between heuristic seats."""
LEADER_PACE: dict[str, float] = {"classic": 8.0, "kadabra": 10.5, "dice": 7.0, "tutorial": 10.0}
"""Points a round brings the seat nearest the target (target / rounds a game lasts)."""
LOGISTIC = math.sqrt(3) / math.pi
"""Scale of a logistic with unit standard deviation."""

SCALE = 60.0
"""Worth of a whole game's win, in round points (about a point per point early on)."""
LINEAR = 0.25
"""Weight of the round's relative points beside the chance to win: keeps a preference
when the chances barely move (a game all but decided either way)."""


def rounds_left(
    variant: str, scores: Sequence[int], round_no: int, options: Mapping[str, int], lower: bool
) -> float:
    """Expected rounds after round ``round_no`` (at least 1: the game did not end)."""
    if "rounds" in options:  # a fixed number of rounds
        return max(1.0, float(options["rounds"] - round_no))
    target = options.get("target", 40)
    nearest = max(scores) if lower else min(scores)
    gap = target - nearest if lower else nearest - target
    return max(1.0, gap / LEADER_PACE.get(variant, 8.0))


def win_chances(
    variant: str,
    scores: Sequence[int],
    round_no: int,
    options: Mapping[str, int],
    lower: bool,
    winners: Sequence[int] | None,
) -> list[float]:
    """Each seat's chance to win the game, given the totals ``scores`` after round
    ``round_no``; ``winners`` when that round ended the game."""
    n = len(scores)
    if winners is not None:
        return [1.0 if s in winners else 0.0 for s in range(n)]
    left = rounds_left(variant, scores, round_no, options, lower)
    spread = ROUND_SPREAD.get(variant, 6.0) * math.sqrt(2 * left)
    temperature = LOGISTIC * spread
    sign = -1.0 if lower else 1.0
    logits = [sign * score / temperature for score in scores]
    top = max(logits)
    weights = [math.exp(x - top) for x in logits]
    total = sum(weights)
    return [w / total for w in weights]


def game_values(
    variant: str,
    before: Sequence[int],
    after: Sequence[int],
    round_no: int,
    options: Mapping[str, int],
    lower: bool,
    winners: Sequence[int] | None,
) -> list[float]:
    """Each seat's outcome of a round that took the totals from ``before`` to ``after``:
    :data:`SCALE` × its chance to win, plus :data:`LINEAR` × its points against the
    others' mean (sign flipped where the most points win)."""
    n = len(after)
    chances = win_chances(variant, after, round_no, options, lower, winners)
    gains = [after[s] - before[s] for s in range(n)]
    total = sum(gains)
    sign = 1.0 if lower else -1.0
    return [
        SCALE * chances[s] + LINEAR * sign * ((total - gains[s]) / (n - 1) - gains[s])
        for s in range(n)
    ]
