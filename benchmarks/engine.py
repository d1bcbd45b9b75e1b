"""Engine speed: whole 4-player games between ``random`` AIs, and replaying a long record.

Each rule set is played on the full engine (``Game``, as ``simulate --ai random``)
and on the fast simulation path (``game.fast``, what AI search plays out), side
by side, in interleaved pairs of short runs. Then the time to load and to replay a
long record. Prints numbers and asserts nothing. One core, one process::

    python benchmarks/engine.py --games 600
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from game import ai, loads, replay
from game.fast import FastGame, RandomChance
from game.game import Game
from game.record import dumps
from game.rng import chooser
from game.rules import names as variant_names

PLAYERS = 4
LONG_RECORD = 500
ROOT = Path(__file__).resolve().parents[1]
SIDE = Path(__file__).resolve().with_name("engine_side.py")


def whole_games(variant: str, games: int, first: int = 0) -> tuple[int, float]:
    """Plays games ``first`` … ``first + games - 1``; an action is one legal listing, one
    choice and one apply."""
    actions = 0
    started = time.process_time()
    for index in range(first, first + games):
        game = Game(variant, [f"p{s}" for s in range(PLAYERS)], seed=f"bench:{index}")
        players = [ai.find("random")(f"bench:{index}:{s}") for s in range(PLAYERS)]
        actions += ai.play_out(game, players)
    return actions, time.process_time() - started


def fast_games(variant: str, games: int, first: int = 0) -> tuple[int, float]:
    """The same on the fast path: uniform random legal actions, decks from one generator."""
    actions = 0
    started = time.process_time()
    chance = RandomChance(f"bench:{first}")
    random = chooser(f"bench:{first}", "fast-players").random
    for _ in range(games):
        sim = FastGame.new(variant, PLAYERS, chance=chance)
        while not sim.finished:
            legal = sim.legal()
            sim.apply(legal[int(random() * len(legal))])
            actions += 1
    return actions, time.process_time() - started


def long_record(variant: str, options: dict[str, int]) -> str:
    """The record of the first seeded game with at least ``LONG_RECORD`` actions."""
    for index in range(1000):
        game = Game(variant, [f"p{s}" for s in range(PLAYERS)], options, seed=f"long:{index}")
        players = [ai.find("random")(f"long:{index}:{s}") for s in range(PLAYERS)]
        if ai.play_out(game, players) >= LONG_RECORD:
            return dumps(game)
    raise SystemExit(f"no {variant} game of {LONG_RECORD}+ actions in 1000 seeds")


def time_replay(text: str, runs: int) -> tuple[int, float, float]:
    """Actions in the record, and ms to load it and to replay it: each the best of ``runs``."""
    actions = len(loads(text).actions)
    load = play = float("inf")
    for _ in range(runs):
        started = time.process_time()
        record = loads(text)
        loaded = time.process_time()
        result = replay(record)
        done = time.process_time()
        if result.exit_code != 0:
            raise SystemExit(f"the long record did not replay: {result.error}")
        load, play = min(load, loaded - started), min(play, done - loaded)
    return actions, load * 1000, play * 1000


def compare(variant: str, games: int, chunks: int) -> tuple[float, float, float, float, float]:
    """Full engine and fast path in ``chunks`` interleaved pairs of ``games // chunks`` games.

    Returns each path's best actions/s and games/s, and the median of the pairs' speed-ups:
    the machine's speed changes from second to second when it is shared, and a pair run
    back to back sees the same machine (a ratio of two bests can pair a fast moment of one
    path with a slow moment of the other).
    """
    size = max(1, games // chunks)
    full_rate = fast_rate = 0.0
    full_games = fast_games_rate = 0.0
    ratios = []
    for chunk in range(chunks):
        actions, seconds = whole_games(variant, size, chunk * size)
        fast_actions, fast_seconds = fast_games(variant, size, chunk * size)
        full, fast = actions / seconds, fast_actions / fast_seconds
        ratios.append(fast / full)
        full_rate, fast_rate = max(full_rate, full), max(fast_rate, fast)
        full_games = max(full_games, size / seconds)
        fast_games_rate = max(fast_games_rate, size / fast_seconds)
    return full_games, full_rate, fast_games_rate, fast_rate, statistics.median(ratios)


def unpack(rev: str, into: Path) -> Path:
    """Commit ``rev``'s ``game/`` unpacked under ``into`` (a tree ``engine_side.py`` imports)."""
    tree = into / rev.replace("/", "_")
    tree.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "game"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


class Side:
    """A process playing one tree's full engine on request (``benchmarks/engine_side.py``)."""

    def __init__(self, name: str, tree: Path) -> None:
        self.name = name
        self.process = subprocess.Popen(
            [sys.executable, str(SIDE), str(tree)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )

    def run(self, variant: str, games: int, first: int) -> tuple[int, float]:
        """Games ``first`` … ``first + games - 1``: (actions, CPU seconds)."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(f"{variant} {games} {first}\n")
        self.process.stdin.flush()
        result = json.loads(self.process.stdout.readline())
        return result["actions"], result["seconds"]

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def against(revs: list[str], variants: list[str], games: int, runs: int) -> None:
    """This checkout's full engine against each of ``revs``', interleaved, in one run."""
    print(f"full engine, {PLAYERS}-player games between random AIs: {runs} interleaved runs"
          f" of {games} games per side (each run other games, the same on every side)")
    print(f"load average (1, 5, 15 min): {load_average()}")
    with tempfile.TemporaryDirectory(prefix="lama-engine-") as temp:
        trees = [("this tree", ROOT)] + [(rev, unpack(rev, Path(temp))) for rev in revs]
        sides = [Side(name, tree) for name, tree in trees]
        try:
            for variant in variants:
                rates: dict[str, list[float]] = {side.name: [] for side in sides}
                different = 0
                for run in range(runs):
                    turn = run % len(sides)  # who goes first changes from run to run
                    counts = set()
                    for side in sides[turn:] + sides[:turn]:
                        actions, seconds = side.run(variant, games, run * games)
                        counts.add(actions)
                        rates[side.name].append(actions / seconds)
                    different += len(counts) > 1
                print(f"{variant}: " + ("the same actions on every side in every run"
                      if not different else f"WARNING: {different} runs differ in actions"))
                mine = rates["this tree"]
                for name, values in rates.items():
                    line = f"  {name:>10}: median {statistics.median(values):8.0f} act/s"
                    if name != "this tree":
                        ratios = [a / b for a, b in zip(mine, values, strict=True)]
                        quartiles = statistics.quantiles(ratios, n=4) if runs > 1 else ratios * 3
                        line += (f"  this tree / {name}: {statistics.median(ratios):.3f}"
                                 f" (median of the runs' ratios; quartiles"
                                 f" {quartiles[0]:.3f}–{quartiles[2]:.3f})")
                    print(line)
        finally:
            for side in sides:
                side.close()
    print(f"load average at the end: {load_average()}")


def simulate_paths(variant: str, games: int, chunks: int) -> None:
    """``simulate --ai random``'s two paths (``play_one``: full engine; ``FastRun``, made
    once per run as ``simulate`` does), the same seeded games, in ``chunks`` interleaved
    pairs; the median pair's speed-up. Each side also keeps ``simulate``'s tally of its
    games (``Tally.add``, ``Tally.add_result``), which must come out the same.

    Each chunk also times the chance both paths must draw for its games (the floor): each
    seat's generator and each round's deck, built the fast path's way (``rng.seeded``, the
    unrolled shuffle; dice rolls not included). Nothing else being free, the fast path
    could be at most full / floor times the full engine.
    """
    from game.ai.random import RandomPlayer
    from game.cli.simulate import FastRun, Tally
    from game.rng import fast_shuffled_deck
    from game.rules import find

    size = max(1, games // chunks)
    ais = ["random"] * PLAYERS
    deck = find(variant).deck()
    ratios, full_rates, fast_rates, floors, ceilings = [], [], [], [], []
    for chunk in range(chunks):
        indices = range(chunk * size, (chunk + 1) * size)
        rounds = []
        for i in indices:  # (untimed: how many rounds each game deals)
            counting = FastRun(variant, ais, {}, "sim")
            counting.play(i)
            rounds.append(counting.rounds)
        full_tally, fast_tally = Tally(PLAYERS), Tally(PLAYERS)
        if chunk % 2:  # who goes first changes from pair to pair (the collector's debts)
            fast_seconds = _fast_side(variant, indices, fast_tally)
            full_seconds = _full_side(variant, indices, full_tally)
        else:
            full_seconds = _full_side(variant, indices, full_tally)
            fast_seconds = _fast_side(variant, indices, fast_tally)
        actions = full_tally.actions
        done = time.process_time()
        for i, dealt in zip(indices, rounds, strict=True):
            seed = f"sim:{i}"
            for seat in range(PLAYERS):
                RandomPlayer.draws(f"{seed}:{seat}")
            for round_no in range(1, dealt + 1):
                fast_shuffled_deck(seed, round_no, deck)
        drawn = time.process_time()
        if fast_tally != full_tally:
            raise SystemExit(f"{variant}: the paths played different games")
        full_rates.append(actions / full_seconds)
        fast_rates.append(actions / fast_seconds)
        ratios.append(fast_rates[-1] / full_rates[-1])
        floors.append((drawn - done) / size * 1e6)
        ceilings.append(full_seconds / (drawn - done))
    print(f"simulate {variant:>9}: full {statistics.median(full_rates):8.0f} act/s, fast"
          f" {statistics.median(fast_rates):8.0f} act/s (medians), fast/full"
          f" {statistics.median(ratios):.2f}x (median of {chunks} pairs;"
          f" {min(ratios):.2f}–{max(ratios):.2f})")
    print(f"{'':>18} chance both draw: {statistics.median(floors):5.1f} µs a game (median);"
          f" full / floor {statistics.median(ceilings):.1f}x")


def _full_side(variant: str, indices: range, tally: Any) -> float:
    """``simulate``'s full-engine path for these games, tallied; CPU seconds."""
    from game.cli.simulate import play_one

    ais = ["random"] * PLAYERS
    started = time.process_time()
    for i in indices:
        tally.add(*play_one(variant, ais, {}, "sim", i))
    return time.process_time() - started


def _fast_side(variant: str, indices: range, tally: Any) -> float:
    """``simulate``'s fast path for these games (its ``FastRun`` made once), tallied."""
    from game.cli.simulate import FastRun

    started = time.process_time()
    run = FastRun(variant, ["random"] * PLAYERS, {}, "sim")
    for i in indices:
        tally.add_result(*run.play(i))
    return time.process_time() - started


def load_average() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=600, help="games per rule set and path")
    parser.add_argument("--chunks", type=int, default=20, help="interleaved pairs of runs")
    parser.add_argument("--replays", type=int, default=20, help="replays of each long record")
    parser.add_argument("--variant", action="append", help="only this rule set (repeatable)")
    parser.add_argument(
        "--against", action="append", metavar="REV",
        help="compare this tree's full engine with commit REV's instead (repeatable)",
    )
    parser.add_argument("--runs", type=int, default=15, help="--against: interleaved runs")
    parser.add_argument(
        "--side-games", type=int, default=200, help="--against: games per side and run"
    )
    parser.add_argument(
        "--simulate", action="store_true",
        help="compare simulate --ai random's full-engine and fast paths instead",
    )
    args = parser.parse_args()
    if args.simulate:
        ai.settle_heap()  # as ``simulate`` does before its games
        print(f"load average (1, 5, 15 min): {load_average()}")
        for variant in args.variant or variant_names():
            simulate_paths(variant, args.games, args.chunks)
        print(f"load average at the end: {load_average()}")
        return
    if args.against:
        against(args.against, args.variant or ["classic", "kadabra"], args.side_games, args.runs)
        return
    print(f"{PLAYERS}-player games between random AIs, {args.games} per rule set and path,"
          f" in {args.chunks} interleaved pairs; one core")
    print(f"load average (1, 5, 15 min): {load_average()}")
    print(f"{'':>9}  {'full engine':>24}  {'fast path':>24}  speed-up (median pair; best/best)")
    for variant in args.variant or variant_names():
        full_games, full_rate, fast_games_rate, fast_rate, median = compare(
            variant, args.games, args.chunks
        )
        print(
            f"{variant:>9}: {full_games:7.0f} games/s {full_rate:8.0f} act/s"
            f"  {fast_games_rate:7.0f} games/s {fast_rate:8.0f} act/s"
            f"  {median:5.2f}x ({fast_rate / full_rate:.2f}x)"
        )
    long_options = {"classic": {"target": 800}, "tutorial": {"rounds": 200}}
    for variant, options in long_options.items():
        text = long_record(variant, options)
        actions, load_ms, replay_ms = time_replay(text, args.replays)
        print(
            f"replay {variant} {options}: {actions} actions, {load_ms:.2f} ms to load "
            f"+ {replay_ms:.2f} ms to replay = {load_ms + replay_ms:.2f} ms "
            f"(best of {args.replays})"
        )
    print(f"load average at the end: {load_average()}")


if __name__ == "__main__":
    main()
