"""Picture speed and size: hands, dice racks and end-of-game charts, as real games deal them.

Prints numbers and asserts nothing. One core, one process::

    python benchmarks/pictures.py --hands 500
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.pictures import compose, dice_picture, hand_picture
from bot.pictures.chart import _chart, totals_chart
from game import ActionType, ai, player_view
from game.game import Game


def timed(render: Callable[[], bytes]) -> tuple[float, int]:
    started = time.perf_counter()
    size = len(render())
    return (time.perf_counter() - started) * 1000, size


def views(variant: str, count: int) -> list[Callable[[], bytes]]:
    """Renders of the hands players really held, one per decision, until ``count``."""
    renders: list[Callable[[], bytes]] = []
    seed = 0
    while len(renders) < count:
        game = Game(variant, [f"p{s}" for s in range(4)], seed=f"pictures:{seed}")
        seed += 1
        players = [ai.find("random")(f"pictures:{seed}:{s}") for s in range(4)]
        while not game.finished and len(renders) < count:
            seat = game.to_act
            view = player_view(game, seat)
            me = view.seats[seat]
            playable = [a.card for a in view.legal if a.type is ActionType.PLAY and a.card]
            if me.tiles is not None:
                tiles, roll = tuple(me.tiles), tuple(view.roll or ())
                renders.append(lambda t=tiles, r=roll, p=playable: dice_picture(t, r, p))
            else:
                hand = tuple(view.hand)
                renders.append(lambda h=hand, p=playable: hand_picture(h, p))
            game.apply(seat, players[seat].choose(view))
    return renders


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=500, help="pictures per rule set")
    args = parser.parse_args()
    print(f"{'rule set':<10} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7} {'hit ms':>7} "
          f"{'p95 KB':>7} {'max KB':>7}")
    for variant in ("classic", "kadabra", "dice", "tutorial"):
        renders = views(variant, args.hands)
        renders[0]()  # warm-up: fonts and faces
        times, sizes = [], []
        for render in renders:
            compose._hand_png.cache_clear()
            compose._dice_png.cache_clear()
            ms, size = timed(render)
            times.append(ms)
            sizes.append(size / 1024)
        hits = [timed(render)[0] for render in renders[:100] for _ in (0, 1)][1::2]
        print(f"{variant:<10} {statistics.median(times):7.2f} {percentile(times, 0.95):7.2f} "
              f"{max(times):7.2f} {statistics.median(hits):7.3f} "
              f"{percentile(sizes, 0.95):7.1f} {max(sizes):7.1f}")
    totals = [[4 * r + s for r in range(1, 8)] for s in range(5)]
    chart_times = []
    for _ in range(10):
        _chart.cache_clear()
        chart_times.append(timed(lambda: totals_chart(totals, 40, [0]))[0])
    size = timed(lambda: totals_chart(totals, 40, [0]))[1] // 1024
    print(f"chart (5 seats, 7 rounds): median {statistics.median(chart_times):.0f} ms, "
          f"max {max(chart_times):.0f} ms, {size} KB")


if __name__ == "__main__":
    main()
