"""What the ladder costs: storing a finished game with and without its rating update, the
board's query, rating older games at start-up, and the ``/lama stats`` chart.

On a real SQLite file (no Discord). "without" stores the same games through a store whose
rating step is switched off, in the same run, so the ratio is what to read on a busy
machine. Prints numbers, asserts nothing.

    .venv/bin/python benchmarks/ladder.py [--games 400] [--players 60]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.ladder.results import SeatResult
from bot.pictures.chart import ratings_chart, totals_chart
from bot.store import ladder_queries as ladder
from bot.store.sqlite import SqliteStore
from cogs.ladder_text import chart_series

GUILD = 1


def games(count: int, players: int, seed: int = 1) -> list[tuple[dict, list[SeatResult]]]:
    rng = random.Random(seed)
    out = []
    for number in range(count):
        seated = rng.sample(range(1, players + 1), rng.randint(2, 4))
        points = [rng.randint(0, 60) for _ in seated]
        best = min(points)
        doc = {"game_id": f"{number:032x}", "variant": "classic", "seed": "1", "record": None,
               "started_at": 0.0, "seats": [{"user_id": u, "name": f"p{u}"} for u in seated]}
        out.append((doc, [SeatResult(i, u, f"p{u}", p, p == best)
                          for i, (u, p) in enumerate(zip(seated, points, strict=True))]))
    return out


async def store_all(path: Path, plays: list, rated: bool) -> list[float]:
    store = SqliteStore(str(path))
    await store.open()
    times = []
    try:
        with mock.patch.object(ladder, "rate_game", ladder.rate_game if rated else _nothing):
            for doc, results in plays:
                start = time.perf_counter()
                await store.finish_game(GUILD, 2, doc, results)
                times.append(time.perf_counter() - start)
    finally:
        await store.close()
    return times


async def _nothing(*_: object) -> None:
    return None


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--players", type=int, default=60)
    args = parser.parse_args()
    plays = games(args.games, args.players)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        plain = await store_all(root / "plain.db", plays, rated=False)
        rated = await store_all(root / "rated.db", plays, rated=True)
        ms = lambda xs: 1000 * statistics.median(xs)  # noqa: E731
        print(f"finish_game, {args.games} games of 2-4 among {args.players} players: "
              f"median {ms(plain):.2f} ms without ratings, {ms(rated):.2f} ms with "
              f"(x{ms(rated) / ms(plain):.2f})")
        store = SqliteStore(str(root / "rated.db"))
        await store.open()
        start = time.perf_counter()
        for _ in range(20):
            board = await store.standings(GUILD, "classic")
        print(f"standings ({len(board)} players): {1000 * (time.perf_counter() - start) / 20:.2f}"
              " ms per board")
        played = await store.player_games(GUILD, board[0].user_id)
        others = [await store.player_games(GUILD, s.user_id) for s in board[1:11]]
        await store.close()
        # the plain file's games were never rated: open() rates them, oldest first
        start = time.perf_counter()
        again = SqliteStore(str(root / "plain.db"))
        await again.open()
        took = time.perf_counter() - start
        same = await again.standings(GUILD, "classic") == board
        await again.close()
        print(f"start-up rating of {args.games} older games: {1000 * took:.0f} ms "
              f"({1000 * took / args.games:.2f} ms per game); same board as rated live: {same}")
    series = chart_series(played)
    start, cpu = time.perf_counter(), time.process_time()
    data = ratings_chart(series)
    cold, cold_cpu = time.perf_counter() - start, time.process_time() - cpu
    renders, cpus = [], []
    for games_of in others:  # other players' charts: rendered, not cached
        start, cpu = time.perf_counter(), time.process_time()
        ratings_chart(chart_series(games_of))
        renders.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    totals = []
    for k in range(10):  # the end-of-game chart, as a yardstick on this machine now
        start = time.process_time()
        totals_chart([[k + r * s for r in range(1, 6)] for s in range(1, 5)], 40, [0])
        totals.append(time.process_time() - start)
    start = time.perf_counter()
    ratings_chart(series)
    cached = time.perf_counter() - start
    print(f"stats chart (last 20 games): {1000 * cold:.0f} ms the first in the process "
          f"({1000 * cold_cpu:.0f} ms CPU: fonts, the styled figure), then CPU median "
          f"{1000 * statistics.median(cpus):.0f} ms, max {1000 * max(cpus):.0f} ms (wall median "
          f"{1000 * statistics.median(renders):.0f} ms) over {len(renders)} players; "
          f"{1000 * cached:.3f} ms cached; {len(data)} bytes; the end-of-game chart: CPU "
          f"median {1000 * statistics.median(totals):.0f} ms")

if __name__ == "__main__":
    asyncio.run(main())
