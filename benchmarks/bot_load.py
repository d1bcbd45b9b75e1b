"""Load on the real bot: N concurrent games played through the fake Discord as fast as it answers.

The bot runs as a subprocess (``python -m bot``) pinned to one core; the fake Discord and the
simulated humans run in this process on another core, so they do not share the bot's CPU.
Prints actions/s, interaction answer latency (driver side: from sending INTERACTION_CREATE to
the callback being accepted), the bot's CPU use (with its AI pool's) and its resident memory
per running game. ``--hard-ais N`` adds N hard AI seats to every game::

    python benchmarks/bot_load.py --games 200 --seconds 60
    python benchmarks/bot_load.py --games 100 --processes 2 --pg auto   # 1 vs 2 processes

``--processes N`` measures twice, with one process and with N (shard ranges sharing one
database: ``--pg URL`` of a PostgreSQL server where it may create a database per run, or
``auto`` for a throwaway server as the tests start; without it, one SQLite file), and prints
the two side by side. Several processes are not pinned; compare the CPU per action (each
process's cost) rather than throughput unless the machine has a core for each.

Bounded (``--seconds``, ``--actions-per-game``), loopback only; the bot is stopped on any exit.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import os
import random
import re
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fakediscord import ATTACH_FILES, FakeDiscord, FakeDiscordError, Member, Message, TextChannel  # noqa: E402
from fakediscord.base import Notifier, WaitTimeout  # noqa: E402

T = TypeVar("T")
TOKEN = "fake.bot-load-benchmark"
MENTION = re.compile(r"<@(\d+)>, it is your turn")
HAND, ACT, REMATCH = "lama:v2:hand:", "lama:v2:act:", "lama:v2:rematch:"
TURN_WAIT = 30.0  # a game whose table does not move for this long is counted as stuck
PR_SET_PDEATHSIG = 1
DEFERRED_UPDATE, UPDATE = 6, 7  # interaction callback types that accept a click


class KeyedNotifier(Notifier):
    """The fake's notifier without the thundering herd (its own wakes every waiter per change).

    With hundreds of games each change would wake hundreds of waiters, making the harness the
    bottleneck. Here the driver's generic waits (an interaction's answer, login, sync) are checked
    on message-less notifications only, which is where the fake signals them; message changes go
    to ``watch`` (per-channel tracking of the games). Only the driver calls the benchmark makes
    (slash, click, select) are supported.
    """

    def __init__(self, watch: Callable[[str, Message], None]) -> None:
        super().__init__()
        self.watch = watch
        self._waiters: dict[asyncio.Future[Any], Callable[[], Any]] = {}

    def notify(self, kind: str = "", message: Message | None = None) -> None:
        if message is not None:
            self.watch(kind, message)
            return
        for future, check in list(self._waiters.items()):
            if future.done():
                continue
            try:
                result = check()
            except Exception as exc:  # e.g. the interaction failed: the driver raises
                future.set_exception(exc)
                continue
            if result is not None:
                future.set_result(result)

    async def wait_for(self, check: Callable[[], T | None], timeout: float, what: str) -> T:
        result = check()
        if result is not None:
            return result
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._waiters[future] = check

        def expire() -> None:
            if not future.done():
                future.set_exception(WaitTimeout(f"timed out after {timeout}s waiting for {what}"))

        handle = loop.call_later(timeout, expire)
        try:
            return await future
        finally:
            handle.cancel()
            self._waiters.pop(future, None)


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    actions: int = 0
    errors: list[str] = field(default_factory=list)
    over_limit: int = 0


@dataclass
class Table:
    """One game's channel as its players see it: the current table and the final standings."""

    index: int
    channel: TextChannel
    members: list[Member]
    table: Message | None = None
    final: Message | None = None
    wake: asyncio.Future[None] | None = None
    actions: int = 0
    playing: bool = False
    outcome: str = "unstarted"

    def see(self, kind: str, message: Message) -> None:
        if kind == "create" and any(b.custom_id.startswith(REMATCH) for b in message.buttons):
            self.final = message
        elif kind == "create" and any(b.custom_id.startswith(HAND) for b in message.buttons):
            self.table = message
        if self.wake is not None and not self.wake.done():
            self.wake.set_result(None)

    def stamp(self) -> tuple[int, int] | None:
        return None if self.table is None else (self.table.id, self.table.edits)

    async def changed(self, seen: tuple[int, int] | None) -> None:
        """Wait until the table moved on from ``seen`` or the game ended."""
        async with asyncio.timeout(TURN_WAIT):
            while self.final is None and (self.table is None or self.stamp() == seen):
                self.wake = asyncio.get_running_loop().create_future()
                await self.wake


class Players:
    """The simulated humans: click as soon as the bot answered (plus ``think`` seconds)."""

    def __init__(self, stats: Stats, args: argparse.Namespace) -> None:
        self.stats = stats
        self.args = args
        self.limit = args.limit

    async def timed(self, call: Callable[[], Awaitable[T]]) -> T | None:
        """Run one user action; record how long the bot took to answer it."""
        if self.args.think:
            await asyncio.sleep(self.args.think)  # human think time, not synchronisation
        started = time.perf_counter()
        try:
            return await call()
        except FakeDiscordError as exc:
            self.stats.errors.append(str(exc).splitlines()[0])
            return None
        finally:
            took = time.perf_counter() - started
            self.stats.latencies.append(took)
            if took > self.limit:
                self.stats.over_limit += 1

    async def lobby(self, game: Table) -> bool:
        host, *guests = game.members
        options = {"variant": self.args.variant}
        options["rounds" if self.args.variant == "tutorial" else "target"] = self.args.target
        reply = await self.timed(partial(host.slash, game.channel, "lama start", **options))
        if reply is None or reply.message is None:
            return False
        lobby = reply.message
        for guest in guests:
            if await self.timed(partial(guest.click, lobby, "Join")) is None:
                return False
        for _ in range(self.args.hard_ais):  # they think in the bot's AI pool
            if await self.timed(partial(host.click, lobby, "Add hard AI")) is None:
                return False
        return await self.timed(partial(host.click, lobby, "Start")) is not None

    async def play(self, game: Table, rng: random.Random) -> None:
        by_id = {m.id: m for m in game.members}
        seen: tuple[int, int] | None = None
        while game.actions < self.args.actions_per_game:
            await game.changed(seen)
            if game.final is not None:
                game.outcome = "finished"
                return
            if game.table is None:
                continue
            seen = game.stamp()
            match = MENTION.search(game.table.content or "")
            if match is None:
                continue
            member = by_id[int(match[1])]
            hand_button = next(b for b in game.table.buttons if b.custom_id.startswith(HAND))
            reply = await self.timed(partial(member.click, game.table, hand_button.custom_id))
            hand = reply.message if reply is not None else None
            while hand is not None and hand.ephemeral and game.actions < self.args.actions_per_game:
                choice = pick(hand, rng)
                if choice is None:
                    break
                custom_id, value = choice
                call = (partial(member.click, hand, custom_id) if value is None
                        else partial(member.select, hand, value, custom_id=custom_id))
                result = await self.timed(call)
                if result is None or result.type not in (DEFERRED_UPDATE, UPDATE):
                    break  # refused or failed: look at the table again
                game.actions += 1
                self.stats.actions += 1
                if result.type == DEFERRED_UPDATE:
                    break  # the hand is edited later: reopen it from the table
                hand = result.message
        game.outcome = "capped"

    async def run(self, game: Table, seed: int) -> None:
        try:
            if not await self.lobby(game):
                game.outcome = "lobby failed"
                return
            game.playing, game.outcome = True, "cut by --seconds"
            await self.play(game, random.Random(seed))
        except TimeoutError:
            game.outcome = "stuck"
        finally:
            game.playing = False


def pick(hand: Message, rng: random.Random) -> tuple[str, str | None] | None:
    """A random legal choice, avoiding "quit" while anything else is possible."""
    choices: list[tuple[str, str | None]] = [
        (b.custom_id, None) for b in hand.buttons if b.custom_id.startswith(ACT) and not b.disabled
    ]
    for select in hand.selects:
        choices += [(select.custom_id, o.value) for o in select.options]
    keep = [c for c in choices if not (c[1] or c[0]).endswith("quit")]
    return rng.choice(keep or choices) if choices else None


# ---- the bot process ------------------------------------------------------------------------
def rss_kb(pid: int | list[int]) -> int:
    if isinstance(pid, list):
        return sum(rss_kb(p) for p in pid)
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


def cpu_seconds(pid: int | list[int]) -> float:
    """CPU time of ``pid`` (or each of a list) and every live process under it (AI pools too)."""
    roots = pid if isinstance(pid, list) else [pid]
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            child = int(stat.parent.name)
            parents[child] = int(fields[1])
            ticks[child] = int(fields[11]) + int(fields[12])
    family, grew = set(roots), True
    while grew:
        more = {p for p, parent in parents.items() if parent in family} - family
        family |= more
        grew = bool(more)
    return sum(ticks.get(p, 0) for p in family) / os.sysconf("SC_CLK_TCK")


def die_with_parent() -> None:
    """In the child: get SIGTERM if the benchmark dies without cleaning up."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


async def start_bot(
    port: int, workdir: Path, args: argparse.Namespace, shard: int = 0, db: str | None = None
) -> asyncio.subprocess.Process:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAMA_")}
    env.update({
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "DISCORD_TOKEN": TOKEN, "LAMA_DB": str(Path(args.db_dir or workdir) / "lama.db"),
        "LAMA_SEED": args.seed, "LAMA_AI_DELAY": "0", "LAMA_GUILD_READY_TIMEOUT": "0.1",
        "LAMA_DISCORD_URL": f"http://127.0.0.1:{port}", "LAMA_LOG_LEVEL": "WARNING",
        "LAMA_IDENTIFY_WINDOW": "0",
    })
    if db:
        env["LAMA_DB"] = db
    shards = ["--shard-count", str(args.processes), "--shard-ids", str(shard)] + (
        ["--no-sync"] if shard else []) if args.processes > 1 else []
    log = (workdir / "bot.log").open("ab")
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", *shards, cwd=workdir, env=env,
        stdin=asyncio.subprocess.DEVNULL, stdout=log, stderr=log, preexec_fn=die_with_parent,
    )


async def stop_bot(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        process.send_signal(signal.SIGINT)
        try:
            await asyncio.wait_for(process.wait(), 5)
        except TimeoutError:
            process.kill()
            await process.wait()


def pin(bot_pid: int) -> str:
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        return f"not pinned (only core {cores} available)"
    os.sched_setaffinity(bot_pid, {cores[0]})
    os.sched_setaffinity(0, set(cores[1:]))
    return f"bot on core {cores[0]}, fake + players on {cores[1:]}"


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


async def measure(args: argparse.Namespace, workdir: Path, db: str | None = None
                  ) -> dict[str, Any]:
    trackers: dict[int, Table] = {}

    def watch(kind: str, message: Message) -> None:
        game = trackers.get(message.channel.id)
        if game is not None and message.ephemeral_to is None:
            game.see(kind, message)

    async with FakeDiscord(token=TOKEN, interaction_timeout=args.limit,
                           shards=args.processes, max_concurrency=args.processes) as fake:
        fake.notifier = KeyedNotifier(watch)
        games = build_world(fake, args)
        trackers.update({g.channel.id: g for g in games})
        launched = time.perf_counter()
        bots = [await start_bot(fake.port, workdir, args, i, db) for i in range(args.processes)]
        pids = [b.pid for b in bots]
        try:
            pinning = pin(bots[0].pid) if len(bots) == 1 else f"{len(bots)} processes, not pinned"
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
            players = Players(stats, args)
            sampler = asyncio.create_task(sample_memory(pids, games, peak))
            cpu0, own0, t0 = cpu_seconds(pids), time.process_time(), time.perf_counter()
            tasks = [asyncio.create_task(players.run(g, g.index)) for g in games]
            _, late = await asyncio.wait(tasks, timeout=args.seconds)
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)
            elapsed = time.perf_counter() - t0
            bot_cpu, own_cpu = cpu_seconds(pids) - cpu0, time.process_time() - own0
            sampler.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sampler
        finally:
            for bot in bots:
                await stop_bot(bot)
    running = peak.get("running", 0)
    return {
        "settings": (f"games={args.games} variant={args.variant} players={args.min_players}-"
                     f"{args.max_players} {'rounds' if args.variant == 'tutorial' else 'target'}="
                     f"{args.target} seconds={args.seconds} actions_per_game="
                     f"{args.actions_per_game} think={args.think} hard_ais={args.hard_ais} "
                     f"games_per_guild={args.games_per_guild} seed={args.seed} "
                     f"db={'postgresql' if db else args.db_dir or 'temporary sqlite'}; "
                     f"{pinning}"),
        "bot_startup_s": f"{startup:.1f}",
        "elapsed_s": f"{elapsed:.1f}",
        "games_finished": sum(g.outcome == "finished" for g in games),
        "games_capped": sum(g.outcome == "capped" for g in games),
        "games_cut_by_time": sum(g.outcome in ("cut by --seconds", "unstarted") for g in games),
        "games_failed": sum(g.outcome in ("lobby failed", "stuck") for g in games),
        "interactions": len(stats.latencies),
        "actions": stats.actions,
        "interactions_per_s": f"{len(stats.latencies) / elapsed:.1f}",
        "actions_per_s": f"{stats.actions / elapsed:.1f}",
        "latency_p50_ms": f"{percentile(stats.latencies, 0.50) * 1000:.1f}",
        "latency_p99_ms": f"{percentile(stats.latencies, 0.99) * 1000:.1f}",
        "latency_max_ms": f"{max(stats.latencies, default=0) * 1000:.1f}",
        "latency_mean_ms": f"{statistics.fmean(stats.latencies or [0]) * 1000:.1f}",
        f"answers_over_{args.limit:g}s": stats.over_limit,
        "failed_interactions": len(fake.failures) - failures_before,
        "errors": len(stats.errors),
        "bot_cpu_percent": f"{100 * bot_cpu / elapsed:.0f}",
        "bot_cpu_ms_per_action": f"{1000 * bot_cpu / max(stats.actions, 1):.2f}",
        "images": args.images,
        "harness_cpu_percent": f"{100 * own_cpu / elapsed:.0f}",
        "rss_idle_mb": f"{idle_rss / 1024:.1f}",
        "rss_peak_mb": f"{peak.get('max_rss', idle_rss) / 1024:.1f}",
        "games_running_at_sample": running,
        "memory_per_game_kb": f"{(peak.get('rss', idle_rss) - idle_rss) / max(running, 1):.0f}",
        "first_errors": "; ".join(stats.errors[:3]) or "-",
    }


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="concurrent games")
    parser.add_argument("--variant", default="classic", help="rule set (classic, kadabra, ...)")
    parser.add_argument("--target", type=int, default=15, help="target points (rounds: tutorial)")
    parser.add_argument("--seconds", type=float, default=60, help="stop the games after this")
    parser.add_argument("--actions-per-game", type=int, default=400, help="stop a game after")
    parser.add_argument("--think", type=float, default=0.0, help="human think time per click")
    parser.add_argument("--hard-ais", type=int, default=0, help="hard AI seats added per game")
    parser.add_argument("--min-players", type=int, default=2)
    parser.add_argument("--max-players", type=int, default=4)
    parser.add_argument("--games-per-guild", type=int, default=20, help="channels per guild")
    parser.add_argument("--limit", type=float, default=3.0, help="Discord's answer deadline")
    parser.add_argument("--seed", default="bench", help="LAMA_SEED for the bot")
    parser.add_argument("--images", choices=("on", "off"), default="on",
                        help="off: the bot lacks Attach Files, so it sends no pictures")
    parser.add_argument("--db-dir", help="an empty directory for the bot's SQLite file "
                        "(default: a new temporary directory)")
    parser.add_argument("--processes", type=int, default=1,
                        help="also measure N processes, one shard each (side by side)")
    parser.add_argument("--pg", help="PostgreSQL server URL (a database per run), or auto")
    args = parser.parse_args(argv)
    if args.max_players + args.hard_ais > 6:
        parser.error("max-players + hard-ais must be 6 or fewer")
    if not 2 <= args.min_players <= args.max_players <= 6 or args.games < 1:
        parser.error("need 1+ games and 2 <= min-players <= max-players <= 6")
    return args


def one_run(args: argparse.Namespace, server: str | None) -> dict[str, Any]:
    from tests import pg

    with tempfile.TemporaryDirectory(prefix="lama-load-") as tmp:
        try:
            if server is None:
                return asyncio.run(measure(args, Path(tmp)))

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


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.processes > 1:  # enough guilds for every process, the same layout in both runs
        args.games_per_guild = min(args.games_per_guild,
                                   max(1, args.games // (2 * args.processes)))
    with contextlib.ExitStack() as stack:
        server = args.pg
        if server == "auto":
            from tests import pg

            server = stack.enter_context(pg.throwaway_server())
        runs = [one_run(argparse.Namespace(**{**vars(args), "processes": n}), server)
                for n in sorted({1, args.processes})]
    width = max(map(len, runs[0]))
    if len(runs) > 1:
        print(f"{'':<{width}}  1 process | {args.processes} processes")
    for key in runs[0]:
        print(f"{key:<{width}}  " + " | ".join(str(r.get(key, "-")) for r in runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
