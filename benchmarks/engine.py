"""Engine speed: whole 4-player games between ``random`` AIs, and replaying a long record.

Prints numbers and asserts nothing. One core, one process::

    python benchmarks/engine.py --games 200
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from game import ai, loads, replay
from game.game import Game
from game.record import dumps
from game.rules import names as variant_names

PLAYERS = 4
LONG_RECORD = 500


def whole_games(variant: str, games: int) -> tuple[int, float]:
    """Plays ``games`` games; an action is one legal listing, one choice and one apply."""
    actions = 0
    started = time.perf_counter()
    for index in range(games):
        game = Game(variant, [f"p{s}" for s in range(PLAYERS)], seed=f"bench:{index}")
        players = [ai.find("random")(f"bench:{index}:{s}") for s in range(PLAYERS)]
        actions += ai.play_out(game, players)
    return actions, time.perf_counter() - started


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
    started = time.perf_counter()
    for _ in range(runs):
        result = replay(loads(text))
        if result.exit_code != 0:
            raise SystemExit(f"the long record did not replay: {result.error}")
    return len(record.actions), (time.perf_counter() - started) * 1000 / runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200, help="games per rule set")
    parser.add_argument("--replays", type=int, default=20, help="replays of the long record")
    args = parser.parse_args()
    print(f"{PLAYERS}-player games between random AIs, {args.games} per rule set, one core")
    for variant in variant_names():
        actions, seconds = whole_games(variant, args.games)
        print(
            f"{variant:>9}: {args.games / seconds:8.1f} games/s  {actions / seconds:9.0f} actions/s"
            f"  ({actions / args.games:.0f} actions/game)"
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
