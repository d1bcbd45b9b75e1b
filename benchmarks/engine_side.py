"""One side of ``benchmarks/engine.py --against``: one tree's full engine, in its own process.

Run as ``python benchmarks/engine_side.py TREE``: imports ``game`` from ``TREE`` (a
checkout, or an old commit's ``game/`` unpacked into a temporary directory), then for
each line ``VARIANT GAMES FIRST`` read from stdin plays games ``FIRST`` …
``FIRST + GAMES - 1``, seeded 4-player games between ``random`` AIs exactly as
``benchmarks/engine.py``'s ``whole_games`` does (``ai.play_out``, the same seeds), and
answers one JSON line: the actions played and the process's CPU seconds for them. The
process stays up between chunks, so the comparing process can interleave short chunks of
each side. Only APIs every version since the ``random`` AI has are used, so any commit
can be measured. Standard library only; the import and a few warm-up games are not timed.
"""

from __future__ import annotations

import json
import sys
import time

PLAYERS = 4
WARM_UP = 5


def main() -> None:
    sys.path.insert(0, sys.argv[1])
    from game import ai
    from game.game import Game

    def play(variant: str, index: int) -> int:
        game = Game(variant, [f"p{s}" for s in range(PLAYERS)], seed=f"bench:{index}")
        players = [ai.find("random")(f"bench:{index}:{s}") for s in range(PLAYERS)]
        return ai.play_out(game, players)

    warm: set[str] = set()
    for line in sys.stdin:
        variant, games, first = line.split()
        if variant not in warm:
            warm.add(variant)
            for index in range(WARM_UP):
                play(variant, -1 - index)  # seeds the timed games do not use
        actions = 0
        started = time.process_time()
        for index in range(int(first), int(first) + int(games)):
            actions += play(variant, index)
        seconds = time.process_time() - started
        print(json.dumps({"actions": actions, "seconds": seconds}), flush=True)


if __name__ == "__main__":
    main()
