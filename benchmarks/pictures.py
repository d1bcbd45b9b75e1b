"""Picture speed and size: hands, dice racks and end-of-game charts, as real games deal them.

Prints numbers and asserts nothing. One core, one process; times are CPU times of this
process (``time.process_time``), which a busy machine inflates less than wall time::

    python benchmarks/pictures.py --hands 500
    python benchmarks/pictures.py --games 2     # also: what whole games render and upload
    python benchmarks/pictures.py --steady 20000  # also: many games' hands in one process

``--steady N`` draws, as a bot hosting many games at once does, every seat's hand (the one
to act with its playable cards framed) at each decision of random games of all four rule
sets in one process, N per rule set, in three passes with the finished pictures forgotten
between them: the CPU per picture, the cells cut anew (1-14 ms each) and the rows joined
anew from cut pieces per pass. After the start-up's warm-up no cell should be cut at all.

``--games N`` plays N games per rule set through the fake Discord with the real bot (three
players, each reopening My hand every turn as benchmarks/bot_load.py's players do, then
keeping their hand open as people do) and prints, per move, the hand pictures drawn,
uploaded and kept by an edit, and the share of asks for a picture served without drawing.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.pictures import compose, dice_picture, hand_picture, tiles
from bot.pictures.chart import _chart, _ratings, ratings_chart, totals_chart
from game import ActionType, ai, player_view
from game.game import Game


def timed(render: Callable[[], bytes]) -> tuple[float, int]:
    started = time.process_time()
    size = len(render())
    return (time.process_time() - started) * 1000, size


def decisions(variant: str, prefix: str) -> Iterator[Game]:
    """Random 4-seat games of ``variant``, one after another, at each decision (the random
    AI of the seat to act then plays it), without end."""
    seed = 0
    while True:
        game = Game(variant, [f"p{s}" for s in range(4)], seed=f"{prefix}:{seed}")
        seed += 1
        players = [ai.find("random")(f"{prefix}:{seed}:{s}") for s in range(4)]
        while not game.finished:
            yield game
            seat = game.to_act
            game.apply(seat, players[seat].choose(player_view(game, seat)))


def views(variant: str, count: int) -> list[Callable[[], bytes]]:
    """Renders of the hands players really held, one per decision, until ``count``."""
    renders: list[Callable[[], bytes]] = []
    for game in decisions(variant, "pictures"):
        if len(renders) >= count:
            break
        seat = game.to_act
        view = player_view(game, seat)
        me = view.seats[seat]
        playable = [a.card for a in view.legal if a.type is ActionType.PLAY and a.card]
        if me.tiles is not None:
            tiles_, roll = tuple(me.tiles), tuple(view.roll or ())
            renders.append(lambda t=tiles_, r=roll, p=playable: dice_picture(t, r, p))
        else:
            hand = tuple(view.hand)
            renders.append(lambda h=hand, p=playable: hand_picture(h, p))
    return renders


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def clear() -> None:
    compose._hand_png.cache_clear()
    compose._dice_png.cache_clear()


def cold_renders(drawn: list[Callable[[], bytes]]) -> tuple[list[float], list[float]]:
    """Each render with an empty cache: its CPU ms and its size in KB."""
    times, sizes = [], []
    for render in drawn:
        clear()
        ms, size = timed(render)
        times.append(ms)
        sizes.append(size / 1024)
    return times, sizes


def renders(count: int) -> None:
    started = time.process_time()
    compose.warm()  # (as python -m bot does at start-up)
    print(f"warm-up (every face's tile, cut into pieces, once per process): "
          f"{(time.process_time() - started) * 1000:.0f} ms")
    print(f"{'rule set':<10} {'p50 ms':>7} {'p95 ms':>7} {'max ms':>7} {'hit ms':>7} "
          f"{'p95 KB':>7} {'max KB':>7}")
    classic: list[Callable[[], bytes]] = []
    for variant in ("classic", "kadabra", "dice", "tutorial"):
        drawn = views(variant, count)
        classic = classic or drawn
        times, sizes = cold_renders(drawn)
        hits = [timed(render)[0] for render in drawn[:100] for _ in (0, 1)][1::2]
        print(f"{variant:<10} {statistics.median(times):7.2f} {percentile(times, 0.95):7.2f} "
              f"{max(times):7.2f} {statistics.median(hits):7.3f} "
              f"{percentile(sizes, 0.95):7.1f} {max(sizes):7.1f}")
    pieces_on = compose.PIECES
    compose.PIECES = False
    level = compose.LEVEL
    for compose.LEVEL in (1, 3, 6):
        times, sizes = cold_renders(classic)
        print(f"classic through zlib at level {compose.LEVEL}: p50 {statistics.median(times):.2f}"
              f" ms, p95 {percentile(times, 0.95):.2f} ms, mean {statistics.fmean(sizes):.1f} KB")
    compose.LEVEL = level
    compose.PIECES = pieces_on
    writers = {"from pieces": (True, compose.palette_png),
               "through zlib": (False, compose.palette_png), "by Pillow": (False, pillow_png)}
    times_of: dict[str, list[float]] = {name: [] for name in writers}
    sizes_of: dict[str, list[float]] = {name: [] for name in writers}
    for render in classic:  # the PNG writers, turn about on the same hands
        for name, (from_pieces, writer) in writers.items():
            clear()
            compose.PIECES, compose.png_writer = from_pieces, writer
            ms, size = timed(render)
            times_of[name].append(ms)
            sizes_of[name].append(size / 1024)
    compose.PIECES, compose.png_writer = pieces_on, compose.palette_png
    for name in writers:
        times, sizes = times_of[name], sizes_of[name]
        print(f"classic, PNG {name}: p50 {statistics.median(times):.3f} ms, p95 "
              f"{percentile(times, 0.95):.3f} ms, mean {statistics.fmean(sizes):.2f} KB, "
              f"p95 {percentile(sizes, 0.95):.2f} KB")
    ours, zlibs = sizes_of["from pieces"], sizes_of["through zlib"]
    ratios = [a / b for a, b in zip(ours, zlibs, strict=True)]
    means = statistics.fmean(ours) / statistics.fmean(zlibs)
    print(f"classic, size from pieces / through zlib: median {statistics.median(ratios):.2f}, "
          f"max {max(ratios):.2f}, of the means {means:.2f}")
    clear()


def pillow_png(image: Any) -> bytes:
    """Pillow's own PNG writer, as compose used it before writing the chunks itself."""
    import io

    out = io.BytesIO()
    image.save(out, "PNG", compress_level=compose.LEVEL, transparency=tiles.CLEAR)
    return out.getvalue()


def ratings_series(seed: int) -> list[tuple[int, list[tuple[int, float, bool]]]]:
    """A player's last 20 games over three rule sets, as /lama stats draws them."""
    lines: dict[int, list[tuple[int, float, bool]]] = {}
    for number in range(1, 21):
        colour = (number * 7 + seed) % 3
        lines.setdefault(colour, []).append((number, (number * 13 + seed) % 17 - 4.5,
                                             (number + seed) % 4 == 0))
    return sorted(lines.items())


def chart_times(draw: Callable[[int], bytes], clear_cache: Callable[[], None]
                ) -> tuple[list[float], list[float], int]:
    draw(0)  # matplotlib's first figure loads fonts; this thread's figure is styled once
    cpu, wall = [], []
    for k in range(10):
        clear_cache()
        started = time.perf_counter()
        cpu.append(timed(lambda k=k: draw(k))[0])
        wall.append((time.perf_counter() - started) * 1000)
    return cpu, wall, len(draw(0)) // 1024


def charts() -> None:
    from cogs.charts import tick_figures

    for seats, rounds, language in ((5, 7, None), (5, 7, "fa"), (6, 15, None)):
        figures = tick_figures(language) if language else None
        cpu, wall, size = chart_times(
            lambda k, s=seats, r=rounds, f=figures: totals_chart(
                [[3 * n + p + k for n in range(1, r + 1)] for p in range(s)], 40, [0], f),
            _chart.cache_clear)
        ticks = ", Persian ticks" if language else ""
        print(f"end-of-game chart ({seats} seats, {rounds} rounds{ticks}): CPU median "
              f"{statistics.median(cpu):.0f} ms, max {max(cpu):.0f} ms (wall median "
              f"{statistics.median(wall):.0f} ms), {size} KB")
    cpu, wall, size = chart_times(lambda k: ratings_chart(ratings_series(k)),
                                  _ratings.cache_clear)
    print(f"/lama stats ratings chart (20 games, 3 rule sets): CPU median "
          f"{statistics.median(cpu):.0f} ms, max {max(cpu):.0f} ms (wall median "
          f"{statistics.median(wall):.0f} ms), {size} KB")


def steady(count: int) -> None:
    from bot.pictures import pieces
    from cogs.pictures import hand_spec, render

    cuts = pieces._segment  # a cell's rows cut into deflate codes: 1-14 ms each
    # rows joined from cut pieces: the caches a checkout has (older ones lack _clear_run;
    # the "before" figures of docs/performance.md ran this script in such a checkout)
    joins = [getattr(pieces, name) for name in ("_rows", "_twin", "_far", "_clear_run")
             if hasattr(getattr(pieces, name, None), "cache_info")]

    def joined() -> int:
        return sum(cache.cache_info().misses for cache in joins)

    compose.warm()
    specs: dict[str, list[Any]] = {}
    for variant in ("classic", "kadabra", "dice", "tutorial"):
        drawn = specs.setdefault(variant, [])
        for game in decisions(variant, "steady"):
            if len(drawn) >= count:
                break
            drawn.extend(spec for s in range(4)
                         if (spec := hand_spec(player_view(game, s))) is not None)
    print(f"{'pass':<5} {'rule set':<9} {'us/picture':>10} {'max ms':>7} {'cells cut':>9} "
          f"{'rows joined':>11}")
    for number in (1, 2, 3):
        for variant, drawn in specs.items():
            clear()
            cut, rows = cuts.cache_info().misses, joined()
            times = [timed(lambda spec=spec: render(spec))[0] for spec in drawn]
            cut, rows = cuts.cache_info().misses - cut, joined() - rows
            print(f"{number:<5} {variant:<9} {statistics.fmean(times) * 1000:>10.1f} "
                  f"{max(times):>7.2f} {cut:>9} {rows:>11}")
    kept = ", ".join(f"{c.__name__} {c.cache_info().currsize}" for c in (cuts, *joins))
    print(f"pieces kept: {kept}")
    clear()


# ---- whole games through the fake Discord ---------------------------------------------------


async def one_game(variant: str, keep_open: bool, seed: int, counts: Counter[str]) -> None:
    from bot import create_bot
    from fakediscord import FakeDiscord
    from tests.bot.conftest import make_settings
    from tests.bot.helpers import play_out

    with tempfile.TemporaryDirectory(prefix="lama-pictures-") as tmp:
        async with FakeDiscord() as fake:
            guild = fake.add_guild("Pictures")
            channel = guild.add_text_channel("lama")
            members = [guild.add_member(name) for name in ("ana", "ben", "cleo")]
            bot = create_bot(make_settings(Path(tmp), lama_seed=f"pictures:{seed}"))
            async with fake.run(bot):
                options = {"rounds": 3} if variant == "tutorial" else {"target": 20}
                lobby = (await members[0].slash(channel, "lama start", variant=variant,
                                                **options)).message
                assert lobby is not None
                for member in members[1:]:
                    await member.click(lobby, "Join")
                await members[0].click(lobby, "Start")
                await play_out(fake, channel, {m.id: m for m in members}, keep_open=keep_open)


def games(count: int) -> None:
    import cogs.pictures as pictures
    import cogs.uploads as uploads

    counts: Counter[str] = Counter()
    original_add, original_file = uploads.add_hand_picture, uploads.picture_file
    original_rendered = uploads.rendered

    async def rendered(spec: Any) -> bytes:
        counts["asked to draw"] += 1
        return await original_rendered(spec)

    async def add(payload: Any, view: Any, interaction: Any, settings: Any, tr: Any, *,
                  waiting_too: bool = True) -> Any:
        before = len(payload.files)
        out = await original_add(payload, view, interaction, settings, tr,
                                 waiting_too=waiting_too)
        counts["moves"] += not waiting_too  # the answer to a move, once per move
        counts["kept"] += out.keep_files
        counts["asked"] += 1
        counts["with picture"] += out.keep_files or len(out.files) > before
        return out

    def upload(data: bytes, name: str, alt: str) -> Any:
        counts["uploads"] += name.startswith("hand-")
        counts["upload KB"] += len(data) / 1024
        return original_file(data, name, alt)

    # cogs.table binds add_hand_picture when the bot loads it
    uploads.add_hand_picture, uploads.picture_file, uploads.rendered = add, upload, rendered
    print(f"{'rule set':<9} {'players':<9} {'moves':>5} {'drawn/move':>10} "
          f"{'uploads/move':>12} {'kept/move':>9} {'hit rate':>8} {'KB/upload':>9}")
    try:
        for variant in ("classic", "kadabra", "dice", "tutorial"):
            for keep_open in (False, True):
                counts.clear()
                clear()
                pictures._recent.clear()
                for seed in range(count):
                    asyncio.run(one_game(variant, keep_open, seed, counts))
                info = [compose._hand_png.cache_info(), compose._dice_png.cache_info()]
                misses = sum(i.misses for i in info)  # pictures drawn
                hits = counts["asked to draw"] - misses  # recent, being drawn, or cached
                moves = max(counts["moves"], 1)
                print(f"{variant:<9} {'keep open' if keep_open else 'reopen':<9} "
                      f"{counts['moves']:>5} {misses / moves:>10.2f} "
                      f"{counts['uploads'] / moves:>12.2f} {counts['kept'] / moves:>9.2f} "
                      f"{hits / max(hits + misses, 1):>8.0%} "
                      f"{counts['upload KB'] / max(counts['uploads'], 1):>9.1f}")
    finally:
        uploads.add_hand_picture, uploads.picture_file = original_add, original_file
        uploads.rendered = original_rendered


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=500, help="pictures per rule set")
    parser.add_argument("--games", type=int, default=0,
                        help="whole games per rule set through the fake Discord")
    parser.add_argument("--steady", type=int, default=0,
                        help="every seat's hand, this many per rule set, in one process")
    args = parser.parse_args()
    if args.steady:
        steady(args.steady)
        return
    renders(args.hands)
    charts()
    if args.games:
        games(args.games)


if __name__ == "__main__":
    main()
