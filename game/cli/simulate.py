"""``python -m game simulate``: AI-only games, one JSON object of statistics on stdout.

With ``--rotate`` it is a tournament instead (:mod:`game.cli.tournament`): every deal is
played once per rotation of the ``--ai`` line-up and a table of wins, average points and
decision times per AI and per seat is printed.

Game ``i`` (0-based) is dealt from the seed ``"S:i"`` and seat ``k``'s AI chooses from its
own generator seeded ``"S:i:k"``, so the same arguments give the same games and the same
numbers (timings aside).

Without ``--records``, games whose every AI picks uniformly from the legal actions by its
own generator's numbers (``random``: ``RandomPlayer.draws``, ``RandomPlayer.reseed``) are
played on the fast path (:class:`FastRun`: each game played by the rule set's
``play_game_uniformly``, drawing decks and rolls from the same seed as :class:`game.Game`):
the same games, the same winners and scores, more than twice as fast. ``heuristic`` and
``hard`` decide from a seat's full :class:`~game.views.PlayerView` (the hand sorted, the
seats' chips, this round's cards seen, which ``hard`` guesses the hidden hands from), which
the fast path does not build, so a line-up with any of them (or one keeping records, which
need the full engine's history) is played on the full engine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TextIO

from game import ai, rng
from game.cli import add_option_arguments, parse_options
from game.cli.tournament import make_player, run_tournament
from game.errors import MalformedRecord
from game.fast import SeededChance
from game.game import Game
from game.record import dumps
from game.rules import find as find_rules
from game.rules import names as variant_names
from game.views import player_view

PROGRESS_WIDTH = 30


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--variant", required=True, help=f"one of {', '.join(variant_names())}")
    parser.add_argument(
        "--players",
        type=int,
        default=None,
        help="seats per game (2-6; default 4, or one per --ai with --rotate)",
    )
    parser.add_argument("--games", type=int, default=100, help="how many games")
    parser.add_argument("--seed", default="0", help="the run's seed (any text)")
    parser.add_argument(
        "--ai",
        action="append",
        default=None,
        metavar="NAME",
        help="once for every seat, or once per seat in seat order (default random)",
    )
    parser.add_argument(
        "--records",
        metavar="DIR",
        help="write each game's record here (plays on the full engine: without records, "
        "line-ups of random AIs play on the fast path, the same games over twice as fast; "
        "heuristic and hard need the full engine's player views)",
    )
    parser.add_argument(
        "--rotate",
        action="store_true",
        help="tournament: play each deal once per rotation of the --ai line-up; print a table",
    )
    parser.add_argument(
        "--report-every", type=int, metavar="DEALS", help="--rotate: print the table so far too"
    )
    parser.add_argument(
        "--iterations", type=int, help="worlds per decision for searching AIs (hard)"
    )
    add_option_arguments(parser)


@dataclass
class Tally:
    """Running totals over the games of one run."""

    players: int
    games: int = 0
    actions: int = 0
    wins: list[int] = field(default_factory=list)
    points: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.wins = [0] * self.players
        self.points = [0] * self.players

    def add(self, game: Game, actions: int) -> None:
        table = player_view(game, None)
        self.add_result(table.winners, [seat.score for seat in table.seats], actions)

    def add_result(self, winners: Sequence[int], scores: Sequence[int], actions: int) -> None:
        """One finished game: its winning seats and every seat's final score."""
        self.games += 1
        self.actions += actions
        for seat in winners:
            self.wins[seat] += 1
        for seat, score in enumerate(scores):
            self.points[seat] += score

    def report(self, seconds: float) -> dict[str, Any]:
        games = max(self.games, 1)
        return {
            "games": self.games,
            "actions": self.actions,
            "seconds": round(seconds, 3),
            "games_per_second": round(self.games / seconds, 1) if seconds > 0 else None,
            "actions_per_second": round(self.actions / seconds, 1) if seconds > 0 else None,
            "wins_by_seat": list(self.wins),
            "win_rate_by_seat": [round(w / games, 4) for w in self.wins],
            "average_points_by_seat": [round(p / games, 3) for p in self.points],
        }


def play_one(
    variant: str,
    ais: list[str],
    options: dict[str, int],
    seed: str,
    index: int,
    iterations: int | None = None,
) -> tuple[Game, int]:
    """Game ``index`` of the run seeded ``seed``: deck and rolls from ``"seed:index"``."""
    names = [f"{name}-{seat}" for seat, name in enumerate(ais)]
    game = Game(variant, names, options, seed=f"{seed}:{index}")
    players = [
        make_player(name, f"{seed}:{index}:{seat}", iterations) for seat, name in enumerate(ais)
    ]
    return game, ai.play_out(game, players)


class FastRun:
    """``play_one`` on the fast path for a line-up of ``random`` AIs (:func:`fast_capable`):
    the same games, seed for seed, as :class:`game.fast.FastGame` plays them.

    Game ``index`` takes its decks and rolls from ``"seed:index"`` as on the full engine
    (:class:`SeededChance`), and seat ``k`` picks by its AI's draws from ``"seed:index:k"``
    (``RandomPlayer.reseed``: a Twister per seat, kept by the run, put in the state of the
    generator ``RandomPlayer.draws`` would build); the game is played by the rule set's
    ``play_game_uniformly``. What does not change from game to game (the rule set, the
    options, the seats' Twisters) is made once per run.
    """

    def __init__(self, variant: str, ais: list[str], options: dict[str, int], seed: str) -> None:
        self.rules = find_rules(variant)
        self.options = self.rules.validate_options(options)
        twisters = [rng.scratch() for _ in ais]  # a seat's, reseeded for each game
        self.reseeds = [
            partial(ai.find(name.split(":")[0]).reseed, twister)  # type: ignore[attr-defined]
            for name, twister in zip(ais, twisters, strict=True)
        ]
        self.draws = [twister.random for twister in twisters]
        self.seed = seed
        self.chance = SeededChance(seed)  # its seed set for each game
        self.twister = rng.scratch()  # a game's decks and rolls, reseeded
        self.play_game = self.rules.play_game_uniformly
        self.rounds = 0
        """Rounds dealt in the last game played (the benchmark's floor counts its decks)."""

    def play(self, index: int) -> tuple[tuple[int, ...], list[int], int]:
        """Game ``index``: the winners, the final scores and the action count (the rule
        set's ``play_game_uniformly``). A run's seats and chance are its own: one game at a
        time (a Twister reseeded while another game draws from it would mix them up)."""
        seed = f"{self.seed}:{index}"
        for seat, reseed in enumerate(self.reseeds):
            reseed(f"{seed}:{seat}")
        chance = self.chance
        chance.seed = seed
        winners, scores, actions, self.rounds = self.play_game(
            seed, self.draws, self.options, chance, self.twister
        )
        return winners, scores, actions


def play_one_fast(
    variant: str,
    ais: list[str],
    options: dict[str, int],
    seed: str,
    index: int,
) -> tuple[tuple[int, ...], list[int], int]:
    """Game ``index`` of :class:`FastRun` (one game: tests)."""
    return FastRun(variant, ais, options, seed).play(index)


def fast_capable(ais: list[str]) -> bool:
    """Whether every AI of the line-up picks uniformly from the legal actions by its own
    generator's numbers (``draws``, ``reseed``: the ``random`` AI), so the game can be
    played on the fast path."""
    return all(hasattr(ai.find(name.split(":")[0]), "reseed") for name in ais)


def seat_ais(requested: list[str] | None, players: int) -> list[str]:
    """``--ai`` once for all seats or once per seat; ``ValueError`` otherwise."""
    chosen = requested or ["random"]
    if len(chosen) == 1:
        chosen = chosen * players
    if len(chosen) != players:
        raise ValueError(f"--ai given {len(chosen)} times: give it once, or {players} times")
    for name in chosen:
        ai.find(name.split(":")[0])
    return chosen


def _load_players(ais: list[str]) -> None:
    """Import what the AIs of this run use before the heap is frozen (a first decision
    would import the rule sets and the search)."""
    for name in ais:
        make_player(name, "load", None)


def progress(stream: TextIO, done: int, total: int) -> None:
    filled = PROGRESS_WIDTH * done // max(total, 1)
    bar = "#" * filled + "." * (PROGRESS_WIDTH - filled)
    stream.write(f"\r[{bar}] {done}/{total} games")
    if done == total:
        stream.write("\n")
    stream.flush()


def run(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args._parser
    try:
        find_rules(args.variant)
        if args.players is None:
            args.players = len(args.ai) if args.rotate and args.ai and len(args.ai) > 1 else 4
        if not 2 <= args.players <= 6:
            raise ValueError(f"--players must be 2 to 6, not {args.players}")
        if args.games < 0:
            raise ValueError(f"--games must be 0 or more, not {args.games}")
        ais = seat_ais(args.ai, args.players)
        options = parse_options(args.option)
        find_rules(args.variant).validate_options(options)
    except (MalformedRecord, ValueError) as exc:
        parser.error(str(exc))  # exits with status 2, the message on stderr
    show_progress = sys.stderr.isatty() and args.games >= 20
    _load_players(ais)
    ai.settle_heap()  # set up: the collector leaves the modules' objects alone from here
    if args.rotate:
        run_tournament(
            args.variant,
            ais,
            options,
            str(args.seed),
            args.games,
            args.iterations,
            sys.stdout,
            (lambda done, total: progress(sys.stderr, done, total)) if show_progress else None,
            args.report_every,
        )
        return 0
    records = Path(args.records) if args.records else None
    if records is not None:
        records.mkdir(parents=True, exist_ok=True)
    step = max(args.games // 100, 1)
    tally = Tally(args.players)
    fast = FastRun(args.variant, ais, options, str(args.seed)) if (
        records is None and fast_capable(ais)
    ) else None
    started = time.perf_counter()
    for index in range(args.games):
        if fast is not None:
            tally.add_result(*fast.play(index))
        else:
            game, actions = play_one(
                args.variant, ais, options, str(args.seed), index, args.iterations
            )
            tally.add(game, actions)
        if records is not None:
            path = records / f"game-{index + 1:05d}.json"
            path.write_text(dumps(game) + "\n", encoding="utf-8")
        if show_progress and ((index + 1) % step == 0 or index + 1 == args.games):
            progress(sys.stderr, index + 1, args.games)
    seconds = time.perf_counter() - started
    print(json.dumps(tally.report(seconds)))
    return 0
