"""Whole games through the fake Discord at Discord's own pace (issue 29's goals).

The bot runs in this process against a fresh fake Discord whose rate limits are on at
``--pace`` (1: Discord's real speed; 20: twenty times faster, as the tests run). Each game
is 3 humans and 1 AI seat (the default level, ``LAMA_AI_DELAY=0``) in a channel of its own;
every rule set, ``--games`` games each, all at once. The humans behave as people do
(tests/bot/humans.py): each presses My hand once when the game starts and keeps that hand,
acts ``--think`` seconds after it shows their turn, and presses My hand again only if their
hand has not shown their turn within ``--reopen`` seconds of the table naming them. Human
times and the bot's timers are Discord seconds: at ``--pace 20`` they run twenty times
faster too (the bot on a scaled clock), so a game is the same game at either pace.

Printed per game and in total: My hand presses per human (goal ≤ 1), creates and deletes
per round (goal ≤ 3 and ≤ 1), 429s (0), rounds without a table (0), the time from a turn
passing to an AI seat to its move, the table's lag (from a committed change to the table
showing it: its embed's "as of" stamp, or a V2 table's arrival) as median/p95/max, turn
pings (the default 120 s turn: goal 0 with humans acting within 20 s, ``--think 0.3 20``)
and answered-ping traces::

    python benchmarks/play_loop.py --pace 1 --games 2
    python benchmarks/play_loop.py --pace 20 --games 5
    python benchmarks/play_loop.py --pace 20 --games 3 --think 0.3 20   # pings
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import logging
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot import Settings, create_bot  # noqa: E402
from bot.sessions.sessions import Session  # noqa: E402
from fakediscord import FakeDiscord, FakeDiscordError, Message, TextChannel  # noqa: E402
from fakediscord.base import Notifier  # noqa: E402
from tests.bot.humans import Habits, Humans  # noqa: E402
from tests.bot.traffic import table_round, traffic  # noqa: E402

VARIANTS = ("classic", "kadabra", "dice", "tutorial")
PING = "⏰ <@"


class ScaledClock:
    """The bot's timers ``scale`` times faster than real time (a turn's 120 s in 6 s at
    20×), as the fake's pacing is: the whole world sped up alike. The two limits the bot
    times on this clock that the fake keeps in real time (an interaction token's 15 minutes,
    an hour's edits of a message) are lengthened to match (:func:`real_time_limits`)."""

    def __init__(self, scale: float) -> None:
        self.scale = scale
        self.t0 = time.time()

    def now(self) -> float:
        return self.t0 + (time.time() - self.t0) * self.scale

    async def sleep_until(self, deadline: float) -> None:
        while (remaining := deadline - self.now()) > 0:
            await asyncio.sleep(remaining / self.scale)


def real_time_limits(scale: float) -> None:
    """Discord's token life and an old message's edit limit are real time in the fake: on
    the bot's scaled clock they last ``scale`` times longer (this process only)."""
    import cogs.hands
    import cogs.table_posts

    cogs.hands.TOKEN_TTL *= scale
    cogs.table_posts.EDITABLE_FOR *= scale


@dataclass
class Probe:
    """One game's channel, watched from the bot (committed changes) and the fake (what the
    channel shows), on the wall clock (``time.time()``)."""

    unshown: list[float] = field(default_factory=list)  # changes the table has not shown
    lag: list[float] = field(default_factory=list)
    ai: list[float] = field(default_factory=list)  # a turn passing to an AI -> its move
    ai_turn: tuple[int, int, float] | None = None  # (moves then, seat, since)
    moves: int = 0
    rounds_dealt: int = 0
    rounds_shown: set[int] = field(default_factory=set)
    pings: int = 0
    over: bool = False  # the game ended (or was stopped): nothing more is measured
    reopens: dict[str, int] = field(default_factory=dict)  # why a human pressed again

    def changed(self, session: Session) -> None:
        """A committed change (in the session's lock, before its save)."""
        game = session.game
        if game is None or self.over:
            return
        now = time.time()
        n = len(game.history)
        if n == self.moves:
            return
        if self.ai_turn is not None:
            moves, seat, since = self.ai_turn
            if len(game.history) > moves and game.history[moves][0] == seat:
                self.ai.append(now - since)
            self.ai_turn = None
        self.moves = n
        self.rounds_dealt = max(self.rounds_dealt, game.state.round_no)
        self.unshown.append(now)
        seat = session.ai_to_act()
        if seat is not None and not game.finished:
            self.ai_turn = (n, seat, now)

    def shown(self, kind: str, message: Message) -> None:
        if message.ephemeral_to is not None or kind not in ("create", "edit") or self.over:
            return
        body = {"embeds": message.embed_dicts, "components": message.component_dicts}
        round_no = table_round(body)
        if round_no is not None:
            self.rounds_shown.add(round_no)
            # an embed's timestamp says when it was drawn; a V2 table has none: when it
            # reached Discord (a move accepted while it was under way counts as shown)
            stamp = (message.embed_dicts[0].get("timestamp") if message.embed_dicts
                     else message.edited_timestamp or message.timestamp)
            if stamp:
                drawn = datetime.datetime.fromisoformat(stamp).timestamp()
                now = time.time()
                while self.unshown and self.unshown[0] <= drawn:
                    self.lag.append(now - self.unshown.pop(0))
        elif kind == "create" and (message.content or "").startswith(PING):
            self.pings += 1

    @staticmethod
    def traces(channel: TextChannel) -> list[str]:
        """The answered or folded pings the channel keeps at the end (short ⏰ lines)."""
        return [m.content for m in channel.messages if not m.deleted
                and (m.content or "").startswith("⏰") and "<@" not in (m.content or "")]


class Watching(Notifier[Message]):
    """The fake's notifier, also telling ``see`` of every message created or edited."""

    def __init__(self, see: Callable[[str, Message], None]) -> None:
        super().__init__()
        self.see = see

    def notify(self, kind: str = "", message: Message | None = None) -> None:
        if message is not None:
            self.see(kind, message)
        super().notify(kind)  # (the fake's own waits re-check; no log of every message)


def settings(folder: Path) -> Settings:
    return Settings(_env_file=None, discord_token="unused",  # type: ignore[call-arg]
                    lama_db=str(folder / "lama.db"), lama_ai_delay=0, lama_seed="bench",
                    lama_guild_ready_timeout=0.05, lama_card_emojis=False,
                    lama_identify_window=0)


def quantiles(values: list[float]) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"{statistics.median(ordered):.2f}/{p95:.2f}/{ordered[-1]:.2f}"


async def one_game(fake: FakeDiscord, bot: Any, guild: Any, index: int, variant: str,
                   args: argparse.Namespace, probes: dict[int, Probe]) -> dict[str, Any]:
    channel = guild.add_text_channel(f"lama-{variant}-{index}")
    members = [guild.add_member(f"{variant[:3]}{index}h{h}") for h in range(3)]
    probe = probes[channel.id] = Probe()
    scale = args.pace
    habits = Habits(think=(args.think[0] / scale, args.think[1] / scale),
                    reopen_after=args.reopen / scale, seed=hash((variant, index)) & 0xFFFF)
    humans = Humans(fake, channel, members, habits)

    def reopened(member: Any) -> None:
        """Why: the table named them while it was no longer (or not yet) their turn in the
        game (the table behind), or it was, and their hand did not show it."""
        session = bot.sessions.get(channel.id)
        seat = session.seat_of(member.id) if session is not None else None
        theirs = (session is not None and session.game is not None and seat is not None
                  and session.game.to_act == seat)
        why = "hand behind" if theirs else "table behind"
        probe.reopens[why] = probe.reopens.get(why, 0) + 1

    humans.on_reopen = reopened
    host = members[0]
    options: dict[str, Any] = {"variant": variant}
    if variant == "tutorial":
        options["rounds"] = args.rounds
    elif args.target is not None:
        options["target"] = args.target
    began = time.perf_counter()
    failed = None
    try:
        lobby = (await host.slash(channel, "lama start", **options)).message
        assert lobby is not None
        while lobby.loading:
            await fake.notifier.wait_for(lambda: True if not lobby.loading else None, 30,
                                         "lobby")
        for member in members[1:]:
            await member.click(lobby, "Join")
        await host.click(lobby, "Add AI")
        await host.click(lobby, "Start")
        await humans.start()
        await humans.play()
    except (FakeDiscordError, AssertionError) as error:  # e.g. a click not answered in 3 s
        failed = str(error).splitlines()[0][:200]
        logging.warning("%s #%s stopped: %s", variant, index, failed)
    wall = time.perf_counter() - began
    probe.over = True
    if args.dump:  # the channel's requests and clicks, one JSON line each
        prefix = f"/channels/{channel.id}/"
        with open(Path(args.dump) / f"{channel.name}.jsonl", "w") as out:
            for entry in fake.entries:
                if entry.get("channel") == channel.name or str(
                        entry.get("path", "")).startswith(prefix):
                    out.write(json.dumps(entry, default=str) + "\n")
    counts = traffic(fake, 0, channel)
    per_round = counts["per_round"]
    return {
        "game": f"{variant} #{index}" + (" (stopped)" if failed else ""),
        "failed": failed,
        "wall_s": round(wall, 1),
        "rounds": probe.rounds_dealt,
        "moves": probe.moves,
        "my_hand_max": max(humans.presses.values(), default=0),
        "my_hand": sorted(humans.presses.values()),
        "creates_max": max((r.get("creates", 0) for r in per_round.values()), default=0),
        "deletes_max": max((r.get("deletes", 0) for r in per_round.values()), default=0),
        "429s": counts["429s"],
        "rounds_without_table": len(set(range(1, probe.rounds_dealt + 1))
                                    - probe.rounds_shown),
        "pings": probe.pings,
        "reopens": probe.reopens,
        "traces": len(probe.traces(channel)),
        "ai_s": probe.ai,
        "lag_s": probe.lag,
    }


async def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    probes: dict[int, Probe] = {}

    def see(kind: str, message: Message) -> None:
        probe = probes.get(message.channel.id)
        if probe is not None:
            probe.shown(kind, message)

    with tempfile.TemporaryDirectory(prefix="lama-play-loop-") as tmp:
        async with FakeDiscord(pacing=args.pace, interaction_timeout=args.limit) as fake:
            fake.notifier = Watching(see)
            guild = fake.add_guild("Play loop")
            real_time_limits(args.pace)
            bot = create_bot(settings(Path(tmp)), clock=ScaledClock(args.pace))
            async with fake.run(bot):
                observe = bot.sessions.observe

                def changed(session: Session) -> None:
                    probe = probes.get(session.channel_id)
                    if probe is not None:
                        probe.changed(session)
                    observe(session)

                bot.sessions.observe = changed  # type: ignore[method-assign]
                games = [one_game(fake, bot, guild, i, v, args, probes)
                         for v in args.variant for i in range(args.games)]
                results = await asyncio.gather(*games)
            failures = len(fake.failures)
            limited = (fake.pacing.stats.limited + fake.pacing.stats.global_limited
                       if fake.pacing is not None else 0)
    for result in results:
        result["failed_interactions_all_games"] = failures
        result["429s_all_routes"] = limited
    return list(results)


def report(results: list[dict[str, Any]], args: argparse.Namespace, load: list[float]) -> None:
    print(f"pace x{args.pace:g}, think {args.think[0]:g}-{args.think[1]:g} s, reopen after "
          f"{args.reopen:g} s (Discord seconds), {args.games} game(s) per rule set at once, "
          f"target {args.target or 'default'}; load average {load[:3]} -> {load[3:]}")
    head = ("game", "wall s", "rounds", "moves", "My hand/human", "creates/round max",
            "deletes/round max", "429s", "rounds w/o table", "pings", "traces",
            "AI move s med/p95/max", "table lag s med/p95/max")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in results:
        print(f"| {r['game']} | {r['wall_s']} | {r['rounds']} | {r['moves']} | "
              f"{','.join(map(str, r['my_hand']))} | {r['creates_max']} | {r['deletes_max']} | "
              f"{r['429s']} | {r['rounds_without_table']} | {r['pings']} | {r['traces']} | "
              f"{quantiles(r['ai_s'])} | {quantiles(r['lag_s'])} |")
    ai = [x for r in results if not r["failed"] for x in r["ai_s"]]
    lag = [x for r in results if not r["failed"] for x in r["lag_s"]]
    print(f"| **all {len(results)}** | {sum(r['wall_s'] for r in results):.0f} | "
          f"{sum(r['rounds'] for r in results)} | {sum(r['moves'] for r in results)} | "
          f"max {max(r['my_hand_max'] for r in results)} | "
          f"max {max(r['creates_max'] for r in results)} | "
          f"max {max(r['deletes_max'] for r in results)} | "
          f"{sum(r['429s'] for r in results)} (all routes {results[0]['429s_all_routes']}) | "
          f"{sum(r['rounds_without_table'] for r in results)} | "
          f"{sum(r['pings'] for r in results)} | {sum(r['traces'] for r in results)} | "
          f"{quantiles(ai)} | {quantiles(lag)} |")
    print("(the totals' times leave the stopped games out)" if any(r["failed"] for r in results)
          else "")
    print(f"failed interactions: {results[0]['failed_interactions_all_games']}")
    for r in results:
        if r["failed"]:
            print(f"{r['game']}: {r['failed']}")
    why: dict[str, int] = {}
    for r in results:
        for k, v in r["reopens"].items():
            why[k] = why.get(k, 0) + v
    print(f"My hand pressed again because: {why or 'never'}")


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pace", type=float, default=1.0,
                        help="the fake's rate limits (and the bot's timers, the humans' "
                        "times) this many times faster than Discord (1: real speed)")
    parser.add_argument("--games", type=int, default=1, help="games per rule set, all at once")
    parser.add_argument("--variant", action="append", choices=VARIANTS,
                        help="rule set (repeatable; default: all)")
    parser.add_argument("--target", type=int, help="points that end a game (default: the "
                        "rule set's)")
    parser.add_argument("--rounds", type=int, default=4, help="tutorial rounds")
    parser.add_argument("--think", type=float, nargs=2, default=(0.3, 1.0),
                        metavar=("MIN", "MAX"), help="seconds a human takes to act once "
                        "their hand shows their turn (uniform)")
    parser.add_argument("--reopen", type=float, default=5.0, help="seconds after the table "
                        "names a human whose hand does not show their turn before they press "
                        "My hand again")
    parser.add_argument("--limit", type=float, default=3.0, help="Discord's answer deadline")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--dump", help="a folder: each game's channel traffic as JSON lines")
    args = parser.parse_args(argv)
    args.variant = args.variant or list(VARIANTS)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    logging.basicConfig(level=logging.WARNING)
    load = list(os.getloadavg())
    results = asyncio.run(run(args))
    load += list(os.getloadavg())
    if args.json:
        print(json.dumps({"load": load, "games": results}))
    else:
        report(results, args, [round(x, 2) for x in load])
    return 0


if __name__ == "__main__":
    sys.exit(main())
