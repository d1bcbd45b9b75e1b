"""Memory in a long run: many games, one after another, through one bot process.

A fresh fake Discord (no pacing: the games go as fast as the bot answers) and one
``python -m bot``; ``--channels`` channels each play their games one after another (the
players of benchmarks/load/players.py, no think time: a new ``/lama start`` as soon as a
game ends), until ``--games`` have ended. Every ``--every`` games the bot's RSS (from
/proc) is printed; the growth per 100 games is measured from the end of the warm-up
(``--warmup`` games: imports, first renders, caches filling, the allocator's arenas)::

    nice python benchmarks/memory.py                 # 1,000 games (~3 s each, busy machine)
    nice python benchmarks/memory.py --games 300 --detail    # and what the heap holds

Games rotate over ``--variants`` and 2-4 players; every ``--ai-every``-th game also seats a
normal AI (it decides in the bot's process, through game/ai/heuristic.py's caches). The
players are a fixed population (``--channels`` × 4 members), as a real server's are.

``--detail`` runs the bot as ``python -m benchmarks.load.memory_probe``: at each sample it
also prints the objects that grew (by type), the largest module-level containers and caches,
what a full collection found and what in that garbage refers to it (the cycles), and the
native heaps (CPython's arenas, glibc's, SQLite's); the probe then collects, so the RSS figures of a
``--detail`` run are not the bot's own (run without it for them). ``--tracemalloc`` adds the
source lines whose allocations grew (slow).
Bounded: ``--seconds`` stops the run; the bot is stopped on any exit.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.load.measure import light_log  # noqa: E402
from benchmarks.load.players import KeyedNotifier, Players, Stats, Table  # noqa: E402
from benchmarks.load.procs import TOKEN, rss_kb, start_bot, stop_bot  # noqa: E402
from fakediscord import ATTACH_FILES, FakeDiscord, FakeDiscordError, Message  # noqa: E402


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="games played in all")
    parser.add_argument("--warmup", type=int, default=100, help="games before the baseline")
    parser.add_argument("--every", type=int, default=100, help="games between samples")
    parser.add_argument("--channels", type=int, default=20, help="games at once")
    parser.add_argument("--variants", default="classic,kadabra,dice",
                        help="rule sets, in turn (comma-separated)")
    parser.add_argument("--target", type=int, default=10, help="target points")
    parser.add_argument("--ai-every", type=int, default=3,
                        help="every Nth game seats a normal AI too (0: none)")
    parser.add_argument("--actions-per-game", type=int, default=400,
                        help="a game still running after this many moves is stopped")
    parser.add_argument("--seconds", type=float, default=1800, help="stop the run after this")
    parser.add_argument("--images", choices=("on", "off"), default="off",
                        help="on: hands carry pictures (drawn in the bot's threads)")
    parser.add_argument("--limit", type=float, default=3.0, help="Discord's answer deadline")
    parser.add_argument("--seed", default="memory", help="LAMA_SEED for the bot")
    parser.add_argument("--detail", action="store_true",
                        help="print what the bot's heap holds at each sample (it collects)")
    parser.add_argument("--tracemalloc", action="store_true",
                        help="with --detail: the source lines whose allocations grew (slow)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.games < args.warmup + args.every or args.channels < 1:
        parser.error("need --games >= --warmup + --every, and 1+ channels")
    args.think_mean = 0.0  # (the load players' think time: none)
    return args


class Lobbies(Players):
    """The load benchmark's players; the host may seat a normal AI before starting."""

    def __init__(self, stats: Stats, args: argparse.Namespace) -> None:
        super().__init__(stats, args)
        self.with_ai: set[int] = set()  # tables (by index) that seat an AI

    async def lobby(self, game: Table) -> bool:
        host, *guests = game.members
        variant = game.variant  # type: ignore[attr-defined]
        burst = self.stats.lobby
        reply = await self.timed(lambda: host.slash(game.channel, "lama start", variant=variant,
                                                    target=self.args.target), burst)
        if reply is None or reply.message is None:
            return False
        lobby = reply.message
        while lobby.loading:  # a deferred answer: the lobby comes with its edit
            await game.changed()
        for guest in guests:
            if await self.timed(lambda g=guest: g.click(lobby, "Join"), burst) is None:
                return False
        if game.index in self.with_ai and await self.timed(
                lambda: host.click(lobby, "Add AI"), burst) is None:
            return False
        return await self.timed(lambda: host.click(lobby, "Start"), burst) is not None


async def probe_heap(bot: asyncio.subprocess.Process, target: Path) -> dict[str, Any] | None:
    """The probe's figures (``--detail``): SIGUSR2, then the file it writes."""
    target.unlink(missing_ok=True)
    bot.send_signal(signal.SIGUSR2)
    for _ in range(600):  # polling a file the bot writes (at most 60 s)
        if target.exists():
            return json.loads(target.read_text())
        await asyncio.sleep(0.1)
    return None


def show_detail(figures: dict[str, Any] | None) -> None:
    if figures is None:
        print("    (no heap figures from the bot)")
        return
    print(f"    collections by generation so far {figures['collections']}; "
          f"blocks {figures['blocks']} -> {figures['blocks_after_collect']} after a full "
          f"collection ({figures['unreachable']} unreachable: "
          + ", ".join(f"{k} {n}" for k, n in figures["garbage_types"][:6]) + ")")
    print(f"    tracked objects {figures['tracked_objects']}; grew: "
          + ", ".join(f"{k} {n:+d}" for k, n in figures["grown_types"][:10]))
    for kind, refs in figures.get("garbage_holders", {}).items():
        print(f"    garbage {kind} held by: {', '.join(refs)}")
    print("    KB: " + ", ".join(f"{k} {n}" for k, n in figures.get("native", {}).items()))
    print("    containers: " + ", ".join(f"{k} {n}" for k, n in figures["containers"][:10]))
    for line in figures.get("grown_lines", [])[:12]:
        print(f"    {line}")


async def run(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    trackers: dict[int, Table] = {}

    def watch(kind: str, message: Message) -> None:
        game = trackers.get(message.channel.id)
        if game is not None:
            game.see(kind, message)

    variants = args.variants.split(",")
    bot_args = argparse.Namespace(
        processes=1, db_dir=None, seed=args.seed, without=None, bot="lama", trace=False,
        bot_module="benchmarks.load.memory_probe" if args.detail else None)
    env_before = dict(os.environ)
    os.environ["MEMORY_PROBE_FILE"] = str(workdir / "heap.json")
    if args.tracemalloc:
        os.environ["MEMORY_PROBE_TRACEMALLOC"] = "1"
    async with FakeDiscord(token=TOKEN, interaction_timeout=args.limit, pacing=None) as fake:
        fake.notifier = KeyedNotifier(watch)
        light_log(fake, collections.Counter())
        guild = fake.add_guild("Memory")
        seats = []
        for index in range(args.channels):
            channel = guild.add_text_channel(f"lama-{index}")
            if args.images == "off":  # no Attach Files: text hands only
                channel.overwrites[guild.me.id] = (0, ATTACH_FILES)
                channel.overwrite_types[guild.me.id] = 1
            seats.append((channel, [guild.add_member(f"c{index}p{s}") for s in range(4)]))
        bot = await start_bot(fake.port, workdir, bot_args)
        os.environ.clear()
        os.environ.update(env_before)
        started = time.perf_counter()
        try:
            await fake.notifier.wait_for(lambda: True if fake.command_syncs else None, 60,
                                         "the bot to sync")
            for _ in range(10):  # the first interactions may arrive before the guilds are cached
                with contextlib.suppress(FakeDiscordError):
                    await seats[0][1][0].slash(seats[0][0], "lama rules")
                    break
            stats = Stats()
            players = Lobbies(stats, args)
            outcomes: collections.Counter[str] = collections.Counter()
            samples: list[tuple[int, int]] = [(0, rss_kb(bot.pid))]
            print(f"games=0 rss={samples[0][1] / 1024:.1f} MB (idle, after start-up)",
                  flush=True)
            next_index = iter(range(args.games))
            ended = 0
            sampling = asyncio.Lock()

            async def sample() -> None:
                async with sampling:
                    rss = rss_kb(bot.pid)
                    samples.append((ended, rss))
                    print(f"games={ended} rss={rss / 1024:.1f} MB "
                          f"outcomes={dict(outcomes)} t={time.perf_counter() - started:.0f}s",
                          flush=True)
                    if args.detail:
                        show_detail(await probe_heap(bot, workdir / "heap.json"))

            async def channel_loop(channel: Any, members: list[Any]) -> None:
                nonlocal ended
                for index in next_index:
                    table = Table(index, channel, members[:2 + index % 3])
                    table.variant = variants[index % len(variants)]  # type: ignore[attr-defined]
                    if args.ai_every and index % args.ai_every == args.ai_every - 1:
                        players.with_ai.add(index)
                    trackers[channel.id] = table
                    await players.run(table, index)
                    outcomes[table.outcome] += 1
                    if table.outcome != "finished":  # a game left running: the host stops it
                        with contextlib.suppress(FakeDiscordError):
                            await members[0].slash(channel, "lama stop")
                    players.with_ai.discard(index)
                    ended += 1
                    if ended == args.warmup or (ended > args.warmup
                                                and (ended - args.warmup) % args.every == 0):
                        await sample()

            loops = [asyncio.create_task(channel_loop(c, m)) for c, m in seats]
            _, late = await asyncio.wait(loops, timeout=args.seconds)
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)
            errors = [t.exception() for t in loops if not t.cancelled() and t.exception()]
            if errors:
                raise errors[0]  # type: ignore[misc]
        finally:
            await stop_bot(bot)
    return report(args, samples, outcomes, stats, time.perf_counter() - started)


def report(args: argparse.Namespace, samples: list[tuple[int, int]],
           outcomes: collections.Counter[str], stats: Stats, elapsed: float) -> dict[str, Any]:
    """The growth per 100 games after the warm-up: end to end, and a least-squares slope."""
    after = [(g, r) for g, r in samples if g >= args.warmup]
    per_100 = slope = None
    if len(after) >= 2:
        (g0, r0), (g1, r1) = after[0], after[-1]
        per_100 = round((r1 - r0) / 1024 / (g1 - g0) * 100, 2)
        mean_g = sum(g for g, _ in after) / len(after)
        mean_r = sum(r for _, r in after) / len(after)
        slope = round(sum((g - mean_g) * (r - mean_r) for g, r in after)
                      / sum((g - mean_g) ** 2 for g, _ in after) / 1024 * 100, 2)
    return {
        "games_ended": samples[-1][0] if samples else 0,
        "outcomes": dict(outcomes),
        "errors": len(stats.errors),
        "first_errors": stats.errors[:3],
        "elapsed_s": round(elapsed),
        "rss_mb_by_games": {g: round(r / 1024, 1) for g, r in samples},
        "mb_per_100_games_after_warmup": per_100,
        "mb_per_100_games_slope": slope,
        "detail": args.detail,
    }


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    with tempfile.TemporaryDirectory(prefix="lama-memory-") as tmp:
        try:
            result = asyncio.run(run(args, Path(tmp)))
        except BaseException:
            log = Path(tmp, "bot.log")
            if log.exists():
                sys.stderr.write("bot log (tail):\n" + log.read_text(errors="replace")[-3000:])
            raise
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"games={args.games} channels={args.channels} variants={args.variants} "
          f"target={args.target} ai_every={args.ai_every} images={args.images} "
          f"seed={args.seed}" + (" (--detail: the probe collects, so these RSS figures are "
                                 "not the bot's own)" if args.detail else ""))
    for key, value in result.items():
        print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
