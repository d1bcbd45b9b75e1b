"""Load on the real bot, side by side with a minimal discord.py bot doing the same per move.

Each run starts a fresh fake Discord (pacing like Discord's rate limits, at real speed, by
default) and one bot process pinned to one core; the fake and the simulated players run in
this process on any core (pinned to the other, they measured no better on the shared
machine). N games open at once (the lobby burst, reported apart; with ``--stagger S`` one
after another, evenly over S seconds, as on a server whose games began at different moments),
then their players think an exponentially distributed time (``--think-mean``, seeded) before
each move and click what their hand offers. The same players then play the baseline
(``benchmarks/load/baseline.py``: each move answered by its type-7 answer, a table edit and
the next player's hand edit, nothing else; with pictures, the default, a pre-made PNG of a
hand's size attached where lama uploads a hand picture; its channel requests keep Discord's
global limit as lama's do, ``--baseline-per-second``; discord.py as ``pip install
discord.py`` gives it, without lama's uvloop and orjson unless ``--baseline-speedups``).
``--images off`` takes Attach Files away in every channel (text only on both sides). Printed
per bot: the games played and lost, CPU ms per accepted move (the whole process tree: the bot
and its AI workers; players' and AI moves counted apart), REST calls per move, answer times
(p50/p99/max, over 3 s: the fake's stamps, frame written to callback reached), the table's
lag behind the game (p95), time waited on Discord's buckets per move, the fake's own CPU and
collections, memory per game; then the ratio to the baseline and what the store writes per
action (``benchmarks/store_growth.py``)::

    python benchmarks/bot_load.py --games 200 --seconds 60 --think-mean 1
    python benchmarks/bot_load.py --games 200 --json          # one JSON object
    python benchmarks/bot_load.py --games 200 --stagger 15    # lobbies over the first 15 s
    python benchmarks/bot_load.py --games 100 --processes 2 --pg auto   # 1 vs 2 processes

``--processes N`` adds a run of lama as N processes (shard ranges sharing one database:
``--pg URL`` of a PostgreSQL server where it may create a database per run, or ``auto`` for a
throwaway server as the tests start; without it, one SQLite file). Several processes are not
pinned; compare the CPU per move rather than throughput unless the machine has a core for each.

Bounded (``--seconds``, ``--actions-per-game``), loopback only; bots are stopped on any exit.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.load.measure import measure  # noqa: E402

JSON_KEYS = (
    "cpu_ms_per_move", "baseline_cpu_ms_per_move", "ratio_to_baseline", "rest_calls_per_move",
    "moves_per_second", "p50_ms", "p99_ms", "max_ms", "over_3s", "table_lag_p95_ms",
    "table_lag_p95_ms_after_burst", "table_lag_p95_ms_steady", "tables_up_s",
    "bucket_wait_ms_per_move", "pacing", "store_bytes_per_action_early",
    "store_bytes_per_action_late", "memory_kb_per_game",
)


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="concurrent games")
    parser.add_argument("--variant", default="classic", help="rule set (classic, kadabra, ...)")
    parser.add_argument("--target", type=int, default=15, help="target points (rounds: tutorial)")
    parser.add_argument("--seconds", type=float, default=60, help="stop the games after this")
    parser.add_argument("--stagger", type=float, default=0.0, metavar="SECONDS",
                        help="open the lobbies one after another, evenly over this many "
                        "seconds (a server whose games started at different moments); 0, "
                        "the default: every lobby at once (the start's burst)")
    parser.add_argument("--actions-per-game", type=int, default=400, help="stop a game after")
    parser.add_argument("--think-mean", type=float, default=1.0,
                        help="mean think time before each move, seconds (exponential; 0: none)")
    parser.add_argument("--pacing", type=float, default=1.0,
                        help="the fake's rate limits, this many times faster than Discord "
                        "(1: real speed; 0: off)")
    parser.add_argument("--hard-ais", type=int, default=0, help="hard AI seats added per game")
    parser.add_argument("--min-players", type=int, default=2)
    parser.add_argument("--max-players", type=int, default=4)
    parser.add_argument("--games-per-guild", type=int, default=20, help="channels per guild")
    parser.add_argument("--limit", type=float, default=3.0, help="Discord's answer deadline")
    parser.add_argument("--seed", default="bench", help="LAMA_SEED for the bot")
    parser.add_argument("--images", choices=("on", "off"), default="on",
                        help="on (the bot's default): the bot may attach files, so hands "
                        "carry pictures, and the baseline uploads a PNG of a hand's size "
                        "where lama uploads one; off: no Attach Files in the channels, text "
                        "only on both sides")
    parser.add_argument("--db-dir", help="an empty directory for the bot's SQLite file "
                        "(default: a new temporary directory)")
    parser.add_argument("--processes", type=int, default=1,
                        help="also measure lama as N processes, one shard each")
    parser.add_argument("--pg", help="PostgreSQL server URL (a database per run), or auto")
    parser.add_argument("--without", action="append", choices=("orjson", "uvloop"),
                        help="run lama without this dependency (a speed-up; the baseline "
                        "has them only with --baseline-speedups)")
    parser.add_argument("--baseline-speedups", action="store_true",
                        help="the minimal bot on lama's uvloop and orjson too (by default it "
                        "runs on discord.py as `pip install discord.py` gives it)")
    parser.add_argument("--baseline-first", action="store_true",
                        help="run the minimal bot before lama (by default after): a machine "
                        "that speeds up or slows down within a pair shows as a ratio that "
                        "moves with the order")
    parser.add_argument("--no-pin", dest="pin", action="store_false",
                        help="let the bot run on any core (a busy shared machine)")
    parser.add_argument("--no-baseline", action="store_true", help="measure lama only")
    parser.add_argument("--baseline-per-second", type=float, default=40.0,
                        help="the baseline's channel requests a second, keeping Discord's "
                        "global limit as lama does (0: unpaced, discord.py's 429 handling "
                        "alone)")
    parser.add_argument("--no-store", action="store_true",
                        help="skip the store's bytes per action (benchmarks/store_growth.py)")
    parser.add_argument("--trace", action="store_true",
                        help="stamp each answer on both sides of the wire and print where the "
                        "time went (benchmarks/load/answer_trace.py; lama only)")
    parser.add_argument("--metrics", metavar="ADDR",
                        help="turn the bot's health and metrics on (LAMA_METRICS_ADDR, e.g. "
                        "127.0.0.1:0): what they cost per move")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.max_players + args.hard_ais > 6:
        parser.error("max-players + hard-ais must be 6 or fewer")
    if args.stagger < 0:
        parser.error("--stagger takes 0 or more seconds")
    if not 2 <= args.min_players <= args.max_players <= 6 or args.games < 1:
        parser.error("need 1+ games and 2 <= min-players <= max-players <= 6")
    return args


def one_run(args: argparse.Namespace, server: str | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="lama-load-") as tmp:
        try:
            if server is None:
                return asyncio.run(measure(args, Path(tmp)))
            from tests import pg

            async def on_a_new_database() -> dict[str, Any]:
                db = await pg.create_database(server)
                try:
                    return await measure(args, Path(tmp), db)
                finally:
                    await pg.drop_database(server, db)

            return asyncio.run(on_a_new_database())
        except BaseException:
            log = Path(tmp, "bot.log")
            if log.exists():
                sys.stderr.write("bot log (tail):\n" + log.read_text(errors="replace")[-3000:])
            raise


def store_figures() -> dict[str, Any]:
    from benchmarks.store_growth import one_game

    with tempfile.TemporaryDirectory(prefix="lama-store-") as tmp:
        figures = asyncio.run(one_game(Path(tmp) / "store.db", 500, "NORMAL"))
    return {k: round(figures[k]) for k in ("store_bytes_per_action_early",
                                           "store_bytes_per_action_late")}


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.processes > 1:  # enough guilds for every process, the same layout in every run
        args.games_per_guild = min(args.games_per_guild,
                                   max(1, args.games // (2 * args.processes)))
    plans = [{"bot": "lama", "processes": 1}]
    if args.processes > 1:
        plans.append({"bot": "lama", "processes": args.processes})
    if not args.no_baseline:
        plans.append({"bot": "baseline", "processes": 1, "hard_ais": 0})
    store = {} if args.no_store else store_figures()  # (first: a failure costs no run)
    load = os.getloadavg()
    with contextlib.ExitStack() as stack:
        server = args.pg
        if server == "auto":
            from tests import pg

            server = stack.enter_context(pg.throwaway_server())
        order = list(range(len(plans)))
        if args.baseline_first and not args.no_baseline:  # (the runs print in the usual order)
            order = order[-1:] + order[:-1]
        done = {i: one_run(argparse.Namespace(**{**vars(args), **plans[i]}),
                           server if plans[i]["bot"] == "lama" else None) for i in order}
        for position, i in enumerate(order, 1):
            done[i]["measured"] = position  # (1: the first run)
        runs = [done[i] for i in range(len(plans))]
    ours, base = runs[0], (runs[-1] if not args.no_baseline else None)
    summary: dict[str, Any] = {k: ours[k] for k in JSON_KEYS if k in ours}
    summary["pacing"] = args.pacing > 0
    summary["games_played"], summary["games_failed"] = ours["games_played"], ours["games_failed"]
    if base is not None:  # (a baseline that played fewer games measured a lighter load)
        summary["baseline_games_played"] = base["games_played"]
        summary["baseline_games_failed"] = base["games_failed"]
        summary["baseline_cpu_ms_per_move"] = base["cpu_ms_per_move"]
        summary["baseline_per_second"] = args.baseline_per_second
        summary["baseline_speedups"] = args.baseline_speedups
        summary["ratio_to_baseline"] = round(ours["cpu_ms_per_move"]
                                             / max(base["cpu_ms_per_move"], 1e-9), 2)
    summary.update(store)
    summary["load_average"] = [round(x, 2) for x in (load + os.getloadavg())]
    if args.json:
        print(json.dumps({**summary, "runs": runs}))
        return 0
    print(f"games={args.games} variant={args.variant} players={args.min_players}-"
          f"{args.max_players} think_mean={args.think_mean}s seconds={args.seconds} "
          f"stagger={format(args.stagger, 'g')}s "
          f"pacing={'x' + format(args.pacing, 'g') if args.pacing > 0 else 'off'} "
          f"images={args.images} hard_ais={args.hard_ais} seed={args.seed} "
          f"lama_without={','.join(args.without or []) or '-'} "
          f"baseline_per_second={format(args.baseline_per_second, 'g')} "
          f"baseline_speedups={'on' if args.baseline_speedups else 'off'}")
    width = max(map(len, runs[0]))
    for key in runs[0]:
        if key != "answer_trace":
            print(f"{key:<{width}}  " + " | ".join(str(r.get(key, "-")) for r in runs))
    for key in ("ratio_to_baseline", "store_bytes_per_action_early",
                "store_bytes_per_action_late"):
        if key in summary:
            print(f"{key:<{width}}  {summary[key]}")
    print(f"{'load_average':<{width}}  before {summary['load_average'][:3]}, "
          f"after {summary['load_average'][3:]}")
    if "answer_trace" in ours:
        print_trace(ours["answer_trace"])
    return 0


def print_trace(trace: dict[str, Any]) -> None:
    """Where lama's play answers spent their time (``--trace``), after the lobby burst."""
    print("\nanswer trace (play answers after the burst; ms):")
    for key, value in trace.items():
        if key not in ("segments", "bot_loop", "harness_loop"):
            print(f"  {key}: {value}")
    print(f"  {'segment':<44} {'n':>6} {'p50':>7} {'p99':>7} {'max':>7} {'slowest 1%':>10}")
    for row in trace["segments"]:
        print(f"  {row['segment']:<44} {row['n']:>6} {row['p50_ms']:>7} {row['p99_ms']:>7} "
              f"{row['max_ms']:>7} {row['slowest_1pct_mean_ms']!s:>10}")
    for side in ("bot_loop", "harness_loop"):
        print(f"  {side}: " + ", ".join(f"{k} {v}" for k, v in trace[side].items()))


if __name__ == "__main__":
    sys.exit(main())
