"""One measured run: a fresh fake Discord, one bot (lama or the baseline), N games played."""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import gc
import json
import os
import re
import signal
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.load.answer_report import decompose
from benchmarks.load.answer_trace import HarnessTrace, probe_loop
from benchmarks.load.players import KeyedNotifier, Players, Stats, Table
from benchmarks.load.procs import (
    TOKEN,
    cpu_seconds,
    main_thread_seconds,
    pin,
    rss_kb,
    runqueue_seconds,
    start_bot,
    stop_bot,
)
from fakediscord import ATTACH_FILES, FakeDiscord, FakeDiscordError, Message


def build_world(fake: FakeDiscord, args: argparse.Namespace) -> list[Table]:
    games: list[Table] = []
    guild = None
    for index in range(args.games):
        if index % args.games_per_guild == 0:
            number = index // args.games_per_guild  # guilds spread over the processes' shards
            guild = fake.add_guild(f"Load {number}", shard=(number % args.processes,
                                                            args.processes))
        assert guild is not None
        channel = guild.add_text_channel(f"lama-{index}")
        if args.images == "off":  # no Attach Files: the bot draws no picture (text only)
            channel.overwrites[guild.me.id] = (0, ATTACH_FILES)
            channel.overwrite_types[guild.me.id] = 1
        seats = args.min_players + index % (args.max_players - args.min_players + 1)
        members = [guild.add_member(f"g{index}p{s}") for s in range(seats)]
        games.append(Table(index, channel, members))
    return games


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


async def sample_memory(pid: list[int], games: list[Table], peak: dict[str, int]) -> None:
    """Remember the bot's RSS when the most games were being played at once."""
    while True:
        running = sum(g.playing for g in games)
        rss = rss_kb(pid)
        if running and running >= peak.get("running", 0):
            peak.update(running=running, rss=rss)
        peak["max_rss"] = max(peak.get("max_rss", 0), rss)
        await asyncio.sleep(0.2)  # sampling period, not synchronisation


NEVER = 2**30  # second-generation collections before a full one: not within a run
ROUTE = re.compile(r"/[^/]*\d[^/]*")


async def after_the_burst(games: list[Table], pids: list[int], stats: Stats
                          ) -> tuple[float, float, int]:
    """When every lobby has opened and started: the time, the bots' CPU and the moves then."""
    t0 = time.perf_counter()
    while any(g.outcome == "unstarted" for g in games):
        await asyncio.sleep(0.05)  # polling the players' progress, not synchronisation
    return time.perf_counter() - t0, cpu_seconds(pids), stats.moves


def light_log(fake: FakeDiscord, counts: collections.Counter[str]) -> None:
    """The fake logs every request for transcripts; here only counts (the middleware reads
    the last entry back, so one is kept)."""

    def log(kind: str, data: dict[str, Any]) -> None:
        counts[kind] += 1
        if kind == "rest" and data["method"] in ("POST", "PATCH") and data["body"] is None:
            counts["uploads"] += 1  # multipart (files): the fake logs JSON bodies only
        if kind == "rest":
            counts[f"{data['method']} {ROUTE.sub('/{id}', data['path'].split('/messages')[0])}"
                   + ("/messages" if "/messages" in data["path"] else "")] += 1
        fake.entries[:] = [data]

    fake.log = log  # type: ignore[method-assign]


def actions_in(db: Path) -> int:
    """Every action the bot's store holds (finished games, snapshots and move rows): the
    players' moves plus the AI's."""
    if not db.exists():
        return 0
    total = 0
    with contextlib.closing(sqlite3.connect(db)) as conn:
        for (record,) in conn.execute("SELECT record FROM games"):
            total += len(json.loads(record).get("actions", []))
        for (state,) in conn.execute("SELECT state FROM sessions"):
            record = json.loads(state).get("record") or {}
            total += len(record.get("actions", []))
        (rows,) = conn.execute("SELECT count(*) FROM moves WHERE action IS NOT NULL").fetchone()
    return total + rows


@contextlib.contextmanager
def no_full_collections() -> Iterator[None]:
    """The harness (the fake and the players: the measuring instrument) makes no full garbage
    collection while it measures: each walks the fake's whole world (every message of every
    game), up to 0.2-1.3 s of wall time on a busy machine, and an answer arriving meanwhile
    waits for it. Start-up's heap is frozen (out of every collection's reach) and the oldest
    generation is not collected until the measured window ends; the young ones still are, so
    only cyclic garbage that outlives them waits (the harness's memory growth is printed)."""
    gc.collect()
    gc.freeze()
    threshold = gc.get_threshold()
    gc.set_threshold(threshold[0], threshold[1], NEVER)
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        gc.unfreeze()
        gc.collect()


async def measure(args: argparse.Namespace, workdir: Path, db: str | None = None
                  ) -> dict[str, Any]:
    trackers: dict[int, Table] = {}
    load0 = os.getloadavg()[0]

    def watch(kind: str, message: Message) -> None:
        game = trackers.get(message.channel.id)
        if game is not None:
            game.see(kind, message)

    pacing = args.pacing if args.pacing > 0 else None
    trace = (HarnessTrace() if getattr(args, "trace", False) and args.bot == "lama"
             and args.processes == 1 else None)
    if trace is not None:  # before the fake's routes are bound
        trace.install()
    stack = contextlib.ExitStack()
    async with FakeDiscord(token=TOKEN, interaction_timeout=args.limit, pacing=pacing,
                           shards=args.processes, max_concurrency=args.processes) as fake:
        fake.notifier = KeyedNotifier(watch)
        requests: collections.Counter[str] = collections.Counter()
        light_log(fake, requests)
        games = build_world(fake, args)
        trackers.update({g.channel.id: g for g in games})
        launched = time.perf_counter()
        bots = [await start_bot(fake.port, workdir, args, i, db) for i in range(args.processes)]
        pids = [b.pid for b in bots]
        try:
            pinning = (pin(bots[0].pid) if len(bots) == 1 and args.pin
                       else f"{len(bots)} process(es), not pinned")
            await fake.notifier.wait_for(
                lambda: True if fake.command_syncs and len(fake.gateway.shards()) == len(bots)
                else None, 60, "the bots to sync and connect")
            probe = games[0].members[0]
            for _ in range(10):  # the first interactions may arrive before the guilds are cached
                with contextlib.suppress(FakeDiscordError):
                    await probe.slash(games[0].channel, "lama rules")
                    break
            startup = time.perf_counter() - launched
            failures_before = len(fake.failures)
            idle_rss = rss_kb(pids)
            stats, peak = Stats(), {}
            if trace is not None:
                probe = asyncio.create_task(probe_loop(trace.lags, trace.sched))
            players = Players(stats, args, trace)
            sampler = asyncio.create_task(sample_memory(pids, games, peak))
            wait0 = fake.pacing.stats.wait if fake.pacing else 0.0
            limited0 = (fake.pacing.stats.limited + fake.pacing.stats.global_limited
                        if fake.pacing else 0)
            rest0, uploads0 = requests["rest"], requests["uploads"]
            queued0 = runqueue_seconds(pids)
            own_queued0 = runqueue_seconds(os.getpid(), children=False)
            own_rss0 = rss_kb(os.getpid())
            stack.enter_context(no_full_collections())
            collections0 = [g["collections"] for g in gc.get_stats()]
            cpu0, own0, t0 = cpu_seconds(pids), time.process_time(), time.perf_counter()
            wall0 = time.time()  # (moves are stamped on this clock)
            main0 = main_thread_seconds(pids)
            stagger = getattr(args, "stagger", 0.0) / len(games)  # (0: every lobby at once)
            tasks = [asyncio.create_task(players.run(g, g.index, g.index * stagger))
                     for g in games]
            burst = asyncio.create_task(after_the_burst(games, pids, stats))
            _, late = await asyncio.wait(tasks, timeout=args.seconds)
            if not burst.done():
                burst.cancel()
            burst_end = burst.result() if burst.done() and not burst.cancelled() else None
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)
            elapsed = time.perf_counter() - t0
            failed = len(fake.failures) - failures_before  # (not the answers cut by the end)
            bot_cpu, own_cpu = cpu_seconds(pids) - cpu0, time.process_time() - own0
            main_cpu = main_thread_seconds(pids) - main0
            queued = runqueue_seconds(pids) - queued0
            own_collections = [g["collections"] - c
                               for g, c in zip(gc.get_stats(), collections0, strict=True)]
            own_rss = rss_kb(os.getpid())
            own_queued = runqueue_seconds(os.getpid(), children=False) - own_queued0
            rest = requests["rest"] - rest0
            uploads = requests["uploads"] - uploads0
            routes = {k: v for k, v in requests.items() if " " in k}
            waited = (fake.pacing.clock.real(fake.pacing.stats.wait - wait0)
                      if fake.pacing else 0.0)
            limited = (fake.pacing.stats.limited + fake.pacing.stats.global_limited - limited0
                       if fake.pacing else 0)
            end = time.time()
            for game in games:  # moves the table never showed: lagging until now at least
                game.lag += [end - t for t in game.unshown]
                game.lag_moved += game.unshown
            sampler.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sampler
        finally:
            if trace is not None and bots[0].returncode is None:  # the bot's stamps, now
                bots[0].send_signal(signal.SIGUSR1)
                for _ in range(200):  # polling a file the bot writes (at most 20 s)
                    if (workdir / "trace-0.json").exists():
                        break
                    await asyncio.sleep(0.1)
            for bot in bots:
                await stop_bot(bot)
            stack.close()
    decomposition = None
    if trace is not None:
        probe.cancel()
        trace.uninstall()
        traced = workdir / "trace-0.json"
        if traced.exists():
            since = t0 + (burst_end[0] if burst_end is not None else 0.0)
            decomposition = decompose(json.loads(traced.read_text()), trace, since,
                                      t0 + elapsed)
        else:
            log = workdir / "bot.log"
            sys.stderr.write("no answer trace from the bot; its log ends:\n"
                             + (log.read_text(errors="replace")[-2000:] if log.exists() else ""))
    human = stats.moves
    if burst_end is not None:  # the CPU per move is that of the play after the lobby burst
        burst_s, burst_cpu, burst_moves = burst_end
        play_cpu, play_moves = bot_cpu - (burst_cpu - cpu0), human - burst_moves
    else:
        burst_s, play_cpu, play_moves = elapsed, bot_cpu, human
    store = Path(args.db_dir or workdir) / "lama.db"
    ai = max(0, actions_in(store) - human) if args.bot == "lama" and not db else 0
    moves = max(human + ai, 1)
    play_moves = max(play_moves + ai, 1)  # (AI seats play once the games have started)
    running = peak.get("running", 0)
    lags = [lag for g in games for lag in g.lag]
    settled = wall0 + burst_s  # every lobby had started (the burst's posts were owed)
    lags_after = [lag for g in games for lag, moved in zip(g.lag, g.lag_moved, strict=True)
                  if moved >= settled]
    # once every game's first table was up (200 games opened in the same second owe 200 first
    # posts at once, 5 s of the request budget, ahead of the first moves' edits): the steady play
    posted = [g.posted for g in games]
    up = max(posted) if posted and None not in posted else None  # type: ignore[type-var]
    lags_steady = [lag for g in games for lag, moved in zip(g.lag, g.lag_moved, strict=True)
                   if up is not None and moved >= up]
    pictured = [t for g in games for t in g.pictured]
    late = sum(g.pictured_late for g in games)
    return {
        "bot": args.bot if args.processes == 1 else f"{args.bot} ×{args.processes} processes",
        "pinning": pinning,
        "startup_s": round(startup, 1),
        "elapsed_s": round(elapsed, 1),
        "games_played": sum(g.actions > 0 for g in games),  # (at least one move accepted)
        "games_finished": sum(g.outcome == "finished" for g in games),
        "games_failed": sum(g.outcome in ("lobby failed", "stuck") for g in games),
        "games_by_outcome": dict(collections.Counter(g.outcome for g in games)),
        "human_moves": human,
        "ai_moves": ai,
        "hand_opens": stats.opens,
        "moves_per_second": round(moves / elapsed, 1),
        "cpu_ms_per_move": round(1000 * play_cpu / play_moves, 3),
        "cpu_ms_per_move_with_burst": round(1000 * bot_cpu / moves, 3),
        "main_thread_share": round(main_cpu / max(bot_cpu, 1e-9), 3),  # (rest: worker threads
        # drawing pictures or writing SQLite, AI processes), burst included
        "burst_s": round(burst_s, 1),
        # the bot's CPU from the first /lama start until every lobby had started (the lobbies,
        # joins and Start clicks, and the hands and moves already under way by then)
        "burst_cpu_ms": (round(1000 * (burst_end[1] - cpu0)) if burst_end is not None
                         else None),
        "bot_cpu_percent": round(100 * bot_cpu / elapsed),
        "rest_calls_per_move": round(rest / moves, 2),
        "uploads_per_move": round(uploads / moves, 2),  # requests carrying a file (pictures)
        "p50_ms": round(percentile(stats.play, 0.50) * 1000, 1),
        "p99_ms": round(percentile(stats.play, 0.99) * 1000, 1),
        # the clicks made once every game's first table was up (as table_lag_p95_ms_steady:
        # the start's burst of hands opened at once left out)
        "p99_ms_steady": (round(percentile([t for t, at in zip(stats.play, stats.play_at,
                                                                  strict=True)
                                            if at >= up], 0.99) * 1000, 1)
                          if up is not None else None),
        "max_ms": round(max(stats.play, default=0) * 1000, 1),
        "max_ms_steady": (round(max((t for t, at in zip(stats.play, stats.play_at, strict=True)
                                     if at >= up), default=0) * 1000, 1)
                          if up is not None else None),
        # the moves alone (a card played or drawn, a quit, and the click that asks to quit
        # too), without the My hand clicks the start's tables send every player to at once
        "p99_ms_moves": round(percentile(stats.move_play, 0.99) * 1000, 1),
        "max_ms_moves": round(max(stats.move_play, default=0) * 1000, 1),
        "over_3s": stats.over_limit,
        "p99_ms_click_to_player_resumed": round(percentile(stats.play_wall, 0.99) * 1000, 1),
        # My hand with pictures: the click to its picture shown (with the answer, or in the
        # edit that follows an answer sent without it), on the harness's clock
        "p99_ms_my_hand_to_picture": round(percentile(pictured, 0.99) * 1000, 1),
        "max_ms_my_hand_to_picture": round(max(pictured, default=0) * 1000, 1),
        "my_hands_pictured_in_a_later_edit": late,
        "my_hands_never_pictured": sum(len(g.unpictured) for g in games),  # (a move first)
        "lobby_burst_p99_ms": round(percentile(stats.lobby, 0.99) * 1000, 1),
        "lobby_burst_max_ms": round(max(stats.lobby, default=0) * 1000, 1),
        # from the first /lama start to the last (0 unless ``--stagger``)
        "lobbies_opened_over_s": round(max(stats.lobby_at, default=0)
                                       - min(stats.lobby_at, default=0), 1),
        "table_lag_p95_ms": round(percentile(lags, 0.95) * 1000),
        # the same, of the moves made once every lobby had started (the 200 tables' first
        # posts owed, ahead of the moves' edits); the figure above counts every move
        "table_lag_p95_ms_after_burst": (round(percentile(lags_after, 0.95) * 1000)
                                         if burst_end is not None else None),
        "table_lag_p50_ms": round(percentile(lags, 0.50) * 1000),
        # the same, of the moves made once every game's first table was up (the start's posts
        # delivered), and how long after the start that was
        "table_lag_p95_ms_steady": (round(percentile(lags_steady, 0.95) * 1000)
                                    if lags_steady else None),
        "tables_up_s": round(up - wall0, 1) if up is not None else None,
        # from a move's answer until some player's hand or the table let them act again
        "turn_wait_p50_ms": round(percentile(stats.turn_wait, 0.50) * 1000),
        "turn_wait_p90_ms": round(percentile(stats.turn_wait, 0.90) * 1000),
        "turn_wait_mean_ms": round(1000 * sum(stats.turn_wait) / max(len(stats.turn_wait), 1)),
        "bucket_wait_ms_per_move": round(1000 * waited / moves, 2),
        "rate_limited_429s": limited,
        "429s_by_bucket": (dict(fake.pacing.stats.by_bucket) if fake.pacing else {}),
        "failed_interactions": failed,
        "errors": len(stats.errors),
        "fake_cpu_percent": round(100 * own_cpu / elapsed),
        "bot_cpu_wait_ms_per_move": round(1000 * queued / moves, 2),
        "fake_cpu_wait_percent": round(100 * own_queued / elapsed),
        "fake_gc_collections_by_generation": own_collections,
        "fake_rss_growth_mb": round((own_rss - own_rss0) / 1024, 1),
        "answers_timed_by_harness_clock": stats.unstamped,
        "rss_idle_mb": round(idle_rss / 1024, 1),
        "memory_kb_per_game": round((peak.get("rss", idle_rss) - idle_rss) / max(running, 1)),
        "routes": "; ".join(f"{k} {v}" for k, v in sorted(routes.items(), key=lambda kv: -kv[1])),
        "first_errors": "; ".join(stats.errors[:3]) or "-",
        "load_average_1min_before_after": [round(load0, 2), round(os.getloadavg()[0], 2)],
        **({"answer_trace": decomposition} if decomposition is not None else {}),
    }
