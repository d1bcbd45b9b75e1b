"""``python -m game simulate --rotate``: a tournament table for any mix of AIs.

The ``--ai`` list is one line-up; ``--rotate`` plays every deal once per
rotation of it (seat k's AI moves to seat k+1), so each AI meets the same
deals from every seat and seat order cannot favour anyone. Deal ``i`` of every
line-up comes from the seed ``"S:i"``; seat ``k``'s AI in rotation ``r`` chooses
from its own generator seeded ``"S:i:k:r"``. Decision times are CPU time of
the deciding process (``time.process_time``), over decisions with a choice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

from game import ai
from game.game import Game
from game.views import player_view


@dataclass
class Standing:
    """One row of the table (an AI, or a seat)."""

    label: str
    seats: int = 0
    games: int = 0
    wins: int = 0
    points: int = 0
    times: list[float] = field(default_factory=list)

    def row(self) -> str:
        games = max(self.games, 1)
        cells = (
            f"{self.label:<12} {self.seats:>5} {self.games:>6} {self.wins:>6}"
            f" {100 * self.wins / games:>8.1f}% {self.points / games:>10.2f}"
        )
        if not self.times:
            return cells
        ordered = sorted(self.times)
        p50 = ordered[len(ordered) // 2]
        p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
        return (
            f"{cells} {len(ordered):>9} {1000 * p50:>7.1f} {1000 * p95:>7.1f}"
            f" {1000 * ordered[-1]:>7.1f}"
        )


HEADER = (
    f"{'':<12} {'seats':>5} {'games':>6} {'wins':>6} {'win rate':>9} {'avg points':>10}"
    f" {'decisions':>9} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7}"
)


def make_player(name: str, seed: str, iterations: int | None) -> ai.Player:
    """The AI ``name``; ``iterations`` sets a searching AI's worlds per decision.

    ``hard:ismcts:600`` is ``hard`` searching by ISMCTS with 600 iterations (any of the
    two parts may be left out: ``hard::24``): line-ups can compare a searcher's settings.
    A fourth part names what the search maximises: ``hard:::points`` is the old round-points
    evaluation (``game``, the default, is the chance to win the game).
    """
    base, method, count, evaluation = [*name.split(":"), "", "", ""][:4]
    player = ai.find(base)(seed)
    if count:
        iterations = int(count)
    if iterations is not None and hasattr(player, "iterations"):
        player.iterations = iterations
    if method and hasattr(player, "method"):
        player.method = method
    if evaluation and hasattr(player, "evaluation"):
        player.evaluation = evaluation
    return player


def play_timed(game: Game, players: list[ai.Player], times: list[list[float]]) -> None:
    """Play ``game`` to its end; ``times[seat]`` gets each real decision's CPU time."""
    clock = time.process_time
    while not game.finished:
        seat = game.to_act
        if seat is None:
            raise ValueError("a tournament needs seeded games")
        view = player_view(game, seat)
        started = clock()
        action = players[seat].choose(view)
        if len(view.legal) > 1:
            times[seat].append(clock() - started)
        game.apply(seat, action)


def print_table(
    out: TextIO, title: str, by_ai: dict[str, Standing], by_seat: list[Standing]
) -> None:
    print(title, file=out)
    print(HEADER, file=out)
    for row in by_ai.values():
        print(row.row(), file=out)
    for row in by_seat:
        print(row.row(), file=out)
    print("(a shared win counts for each winner; decision times are CPU ms)", file=out, flush=True)


def run_tournament(
    variant: str,
    lineup: list[str],
    options: dict[str, int],
    seed: str,
    deals: int,
    iterations: int | None,
    out: TextIO,
    progress: Callable[[int, int], None] | None = None,
    report_every: int | None = None,
) -> dict[str, Standing]:
    """Play ``deals`` deals under every rotation of ``lineup``; print and return the table."""
    n = len(lineup)
    by_ai = {name: Standing(name) for name in dict.fromkeys(lineup)}
    by_seat = [Standing(f"seat {k}") for k in range(n)]
    for name in lineup:
        by_ai[name].seats += 1
    total = deals * n
    for index in range(deals):
        for rotation in range(n):
            names = [lineup[(k - rotation) % n] for k in range(n)]
            game = Game(
                variant, [f"{a}-{k}" for k, a in enumerate(names)], options, seed=f"{seed}:{index}"
            )
            players = [
                make_player(a, f"{seed}:{index}:{k}:{rotation}", iterations)
                for k, a in enumerate(names)
            ]
            times: list[list[float]] = [[] for _ in range(n)]
            play_timed(game, players, times)
            table = player_view(game, None)
            for k, name in enumerate(names):
                won = k in table.winners
                score = table.seats[k].score
                for row in (by_ai[name], by_seat[k]):
                    row.games += 1
                    row.wins += won
                    row.points += score
                by_ai[name].times.extend(times[k])
            if progress is not None:
                progress(index * n + rotation + 1, total)
        if report_every and (index + 1) % report_every == 0 and index + 1 < deals:
            print_table(out, f"after {index + 1} of {deals} deals:", by_ai, by_seat)
    print_table(
        out,
        f"{variant}, {n} players, {deals} deals x {n} line-ups (seats rotated) ="
        f" {total} games, seed {seed!r}" + (f", {iterations} iterations" if iterations else ""),
        by_ai,
        by_seat,
    )
    return by_ai
