"""Engine speed: whole 4-player games between ``random`` AIs, and replaying a long record.

Each rule set is played on the full engine (``Game``, as ``simulate --ai random``)
and on the fast simulation path (``game.fast``, what AI search plays out), side
by side. Prints numbers and asserts nothing. One core, one process::

    python benchmarks/engine.py --games 200
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from game import ai, loads, replay
from game.fast import FastGame, RandomChance
from game.game import Game
from game.record import dumps
from game.rng import chooser
from game.rules import names as variant_names

PLAYERS = 4
LONG_RECORD = 500


def whole_games(variant: str, games: int) -> tuple[int, float]:
    """Plays ``games`` games; an action is one legal listing, one choice and one apply."""
    actions = 0
    started = time.process_time()
    for index in range(games):
        game = Game(variant, [f"p{s}" for s in range(PLAYERS)], seed=f"bench:{index}")
        players = [ai.find("random")(f"bench:{index}:{s}") for s in range(PLAYERS)]
        actions += ai.play_out(game, players)
    return actions, time.process_time() - started


def fast_games(variant: str, games: int) -> tuple[int, float]:
    """The same on the fast path: uniform random legal actions, decks from one generator."""
    actions = 0
    started = time.process_time()
    chance = RandomChance("bench")
    random = chooser("bench", "fast-players").random
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


def time_replay(text: str, runs: int) -> tuple[int, float]:
    """Actions in the record, and ms per load + replay averaged over ``runs``."""
    record = loads(text)
    started = time.process_time()
    for _ in range(runs):
        result = replay(loads(text))
        if result.exit_code != 0:
            raise SystemExit(f"the long record did not replay: {result.error}")
    return len(record.actions), (time.process_time() - started) * 1000 / runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200, help="games per rule set")
    parser.add_argument("--replays", type=int, default=20, help="replays of the long record")
    args = parser.parse_args()
    print(f"{PLAYERS}-player games between random AIs, {args.games} per rule set, one core")
    print("load average (1, 5, 15 min): " + " ".join(f"{x:.1f}" for x in os.getloadavg()))
    print(f"{'':>9}  {'full engine':>24}  {'fast path':>24}  speed-up")
    for variant in variant_names():
        # best of 3 interleaved runs each: the machine may be busy with other work
        runs = [(whole_games(variant, args.games), fast_games(variant, args.games)) for _ in "abc"]
        actions, seconds = min((full for full, _ in runs), key=lambda r: r[1])
        fast_actions, fast_seconds = min((fast for _, fast in runs), key=lambda r: r[1])
        full_rate, fast_rate = actions / seconds, fast_actions / fast_seconds
        print(
            f"{variant:>9}: {args.games / seconds:7.0f} games/s {full_rate:8.0f} act/s"
            f"  {args.games / fast_seconds:7.0f} games/s {fast_rate:8.0f} act/s"
            f"  {fast_rate / full_rate:5.2f}x  ({actions / args.games:.0f} actions/game)"
        )
    long_options = {"classic": {"target": 800}, "tutorial": {"rounds": 200}}
    for variant, options in long_options.items():
        actions, ms = time_replay(long_record(variant, options), args.replays)
        print(
            f"replay {variant} {options}: {actions} actions, {ms:.2f} ms per load+replay "
            f"(mean of {args.replays})"
        )


if __name__ == "__main__":
    main()
