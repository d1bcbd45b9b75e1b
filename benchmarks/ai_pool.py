"""The event loop while the hard AIs' process pool is saturated.

The bot runs as a subprocess against the fake Discord, as in ``benchmarks/bot_load.py`` (whose
simulated players and helpers this reuses), but started through this script so that a probe
task runs on the bot's own event loop: every ``--period`` ms it sleeps and records how late
it woke up (the event loop's lag: how long a ready callback, such as a click's answer, waits).

``--hard-games N`` games seat one human and three hard AIs with no AI delay, so the AIs think
continuously and the pool (``--workers``, ``LAMA_AI_WORKERS``) is never idle; ``--human-games
M`` games of two humans clicking as fast as the bot answers run beside them (their answer
times are the "other channels' clicks"). Each run is measured twice, side by side: without
the hard-AI games, then with them. The bot's CPU includes its pool's (every process under it).
Bot, pool, fake and players share the machine's cores (not pinned: the pool's workers are the
bot's own processes). Prints numbers, asserts nothing::

    python benchmarks/ai_pool.py --hard-games 4 --human-games 2 --seconds 30 [--nice-pool 10]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

BATCH = 50
"""Probe samples the bot process writes at once (a line each: wall time, lag)."""


# ---- in the bot process ---------------------------------------------------------------------
async def probe(path: Path, period: float) -> None:
    """Sleep ``period`` seconds again and again; write how late each wake-up came."""
    lags: list[tuple[float, float]] = []
    clock = time.perf_counter
    try:
        while True:
            before = clock()
            await asyncio.sleep(period)
            lags.append((time.time(), clock() - before - period))
            if len(lags) >= BATCH:
                write(path, lags)
    finally:
        write(path, lags)


def write(path: Path, lags: list[tuple[float, float]]) -> None:
    if lags:
        with path.open("a") as out:
            out.write("".join(f"{stamp:.4f} {lag:.5f}\n" for stamp, lag in lags))
        lags.clear()


def bot_child(path: Path, period: float, nice: int) -> int:
    """``python -m bot`` with the probe started on its event loop (and, with ``nice``, the
    AI pool's workers at that niceness: an experiment, not what the bot ships)."""
    import bot.__main__ as entry

    if nice:
        import concurrent.futures

        plain = concurrent.futures.ProcessPoolExecutor

        def niced(workers: int, context: Any) -> concurrent.futures.ProcessPoolExecutor:
            return plain(workers, context, initializer=os.nice, initargs=(nice,))

        concurrent.futures.ProcessPoolExecutor = niced  # type: ignore[misc,assignment]

    original = entry.run

    async def run_with_probe(*args: Any) -> None:
        task = asyncio.create_task(probe(path, period))
        try:
            await original(*args)
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    entry.run = run_with_probe  # type: ignore[assignment]
    return entry.main([])


# ---- the driver -----------------------------------------------------------------------------
def read_lags(path: Path, start: float, end: float) -> list[tuple[float, float]]:
    """The wake-ups the bot saw between the wall times ``start`` and ``end``: (seconds after
    ``start``, lag)."""
    lags: list[tuple[float, float]] = []
    if not path.exists():
        return lags
    for line in path.read_text().splitlines():
        stamp, lag = map(float, line.split())
        if start <= stamp <= end:
            lags.append((stamp - start, lag))
    return lags


async def measure(
    args: argparse.Namespace, hard_games: int, nice: int, workdir: Path
) -> dict[str, Any]:
    from load import measure as load_measure
    from load import players as load_players
    from load import procs as load_procs

    from fakediscord import FakeDiscord

    bot_load = argparse.Namespace(  # the load benchmark's players and helpers
        Table=load_players.Table, KeyedNotifier=load_players.KeyedNotifier,
        Stats=load_players.Stats, Players=load_players.Players,
        build_world=load_measure.build_world, percentile=load_measure.percentile,
        TOKEN=load_procs.TOKEN, die_with_parent=load_procs.die_with_parent,
        cpu_seconds=load_procs.cpu_seconds, stop_bot=load_procs.stop_bot)

    lag_file = workdir / f"lags-{hard_games}-{nice}.txt"
    trackers: dict[int, bot_load.Table] = {}

    def watch(kind: str, message: Any) -> None:
        game = trackers.get(message.channel.id)
        if game is not None and message.ephemeral_to is None:
            game.see(kind, message)

    common = dict(variant=args.variant, target=args.target, think_mean=0.0, limit=3.0,
                  actions_per_game=100_000, processes=1, images="off")
    hard_args = argparse.Namespace(**common, hard_ais=3, games_per_guild=20,
                                   min_players=1, max_players=1, games=hard_games)
    human_args = argparse.Namespace(**common, hard_ais=0, games_per_guild=20,
                                    min_players=2, max_players=2, games=args.human_games)
    async with FakeDiscord(token=bot_load.TOKEN, interaction_timeout=3.0) as fake:
        fake.notifier = bot_load.KeyedNotifier(watch)
        human_tables = bot_load.build_world(fake, human_args)
        hard_tables = bot_load.build_world(fake, hard_args)
        trackers.update({g.channel.id: g for g in human_tables + hard_tables})
        env = {k: v for k, v in os.environ.items() if not k.startswith("LAMA_")}
        env.update({
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])),
            "DISCORD_TOKEN": bot_load.TOKEN,
            "LAMA_DB": str(workdir / f"lama-{hard_games}-{nice}.db"),
            "LAMA_SEED": "ai-pool", "LAMA_AI_DELAY": "0", "LAMA_GUILD_READY_TIMEOUT": "0.1",
            "LAMA_DISCORD_URL": f"http://127.0.0.1:{fake.port}", "LAMA_LOG_LEVEL": "WARNING",
            "LAMA_IDENTIFY_WINDOW": "0", "LAMA_AI_WORKERS": str(args.workers),
        })
        log = (workdir / "bot.log").open("ab")
        bot = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--bot-child", str(lag_file), "--period", str(args.period),
            "--nice-pool", str(nice),
            cwd=workdir, env=env, stdin=asyncio.subprocess.DEVNULL, stdout=log, stderr=log,
            preexec_fn=bot_load.die_with_parent)
        try:
            await fake.notifier.wait_for(
                lambda: True if fake.command_syncs and fake.gateway.shards() else None,
                60, "the bot to sync and connect")
            stats_hard, stats_human = bot_load.Stats(), bot_load.Stats()
            players = [bot_load.Players(stats_hard, hard_args),
                       bot_load.Players(stats_human, human_args)]
            cpu0, wall0, t0 = bot_load.cpu_seconds(bot.pid), time.time(), time.perf_counter()
            tasks = [asyncio.create_task(players[0].run(g, g.index)) for g in hard_tables]
            tasks += [asyncio.create_task(players[1].run(g, 1000 + g.index))
                      for g in human_tables]
            _, late = await asyncio.wait(tasks, timeout=args.seconds)
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)
            elapsed = time.perf_counter() - t0
            wall1 = time.time()
            bot_cpu = bot_load.cpu_seconds(bot.pid) - cpu0
        finally:
            await bot_load.stop_bot(bot)
    samples = read_lags(lag_file, wall0, wall1)
    lags = [lag for _, lag in samples]
    worst_at = max(samples, key=lambda sample: sample[1], default=(0.0, 0.0))[0]
    answers = stats_human.play
    pct = bot_load.percentile
    return {
        "hard-AI games (1 human + 3 hard AIs)": hard_games,
        "human games (2 humans)": args.human_games,
        "probe samples": len(lags),
        "loop lag p50 ms": f"{pct(lags, 0.50) * 1000:.2f}",
        "loop lag p99 ms": f"{pct(lags, 0.99) * 1000:.2f}",
        "loop lag max ms": f"{max(lags, default=0) * 1000:.1f}",
        "worst lag, s after start": f"{worst_at:.1f}",
        "human answers": len(answers),
        "human answer p50 ms": f"{pct(answers, 0.50) * 1000:.1f}",
        "human answer p99 ms": f"{pct(answers, 0.99) * 1000:.1f}",
        "moves by humans in hard-AI games": stats_hard.moves,
        "bot + pool CPU %": f"{100 * bot_cpu / elapsed:.0f}",
        "errors": len(stats_hard.errors) + len(stats_human.errors),
        "load average (1, 5, 15 min)": " ".join(f"{x:.1f}" for x in os.getloadavg()),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hard-games", type=int, default=8, help="games with 3 hard AIs each")
    parser.add_argument("--human-games", type=int, default=20, help="games of 2 humans")
    parser.add_argument("--workers", type=int, default=1, help="LAMA_AI_WORKERS")
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--target", type=int, default=40, help="target points per game")
    parser.add_argument("--seconds", type=float, default=30, help="length of each measurement")
    parser.add_argument("--period", type=float, default=0.005, help="probe period, seconds")
    parser.add_argument("--nice-pool", type=int, default=0, metavar="N",
                        help="also measure with the pool's workers at niceness N (experiment)")
    parser.add_argument("--bot-child", metavar="LAGFILE", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.bot_child:
        return bot_child(Path(args.bot_child), args.period, args.nice_pool)
    print(f"{os.cpu_count()} cores; {args.workers} pool worker(s); {args.variant} to "
          f"{args.target}; {args.seconds:g} s each; probe every {args.period * 1000:g} ms")
    runs = []
    with tempfile.TemporaryDirectory(prefix="lama-ai-pool-") as tmp:
        settings = [(0, 0), (args.hard_games, 0)]
        if args.nice_pool:
            settings.append((args.hard_games, args.nice_pool))
        for hard, nice in settings:
            try:
                runs.append(asyncio.run(measure(args, hard, nice, Path(tmp))))
            except BaseException:
                log = Path(tmp, "bot.log")
                if log.exists():
                    sys.stderr.write("bot log (tail):\n" + log.read_text(errors="replace")[-3000:])
                raise
    width = max(map(len, runs[0]))
    titles = ["no hard AI", "pool saturated", f"pool niced {args.nice_pool}"][: len(runs)]
    print(f"{'':<{width}}" + "".join(f"  {t:>16}" for t in titles))
    for key in runs[0]:
        print(f"{key:<{width}}" + "".join(f"  {run[key]!s:>16}" for run in runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
