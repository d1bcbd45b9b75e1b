"""The game's story: every player's total after each round, as a line chart (matplotlib).

The chart carries no words, only whole numbers: each player is a colour, and the message
that carries it names the colours and says what the axes show, in the reader's language
(text in any script renders right there, where Discord shapes it; matplotlib would not
shape Persian, and an axis title in the picture would be one more thing to translate,
draw and cache per language). The numbers are written as the reader's language writes
them (Persian digits and minus sign): the caller gives the function that writes them
(:data:`Figures`, bot.words' ``Translator.figures``; this room imports no other).
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # matplotlib is imported at the first chart: half a second of every start
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

# Player colours, in seat order; the matching emoji name them in the message text.
SEAT_RGB: tuple[str, ...] = ("#e74c3c", "#3498db", "#2ecc71", "#f1c40f", "#9b59b6", "#e67e22")
SEAT_EMOJI: tuple[str, ...] = ("🟥", "🟦", "🟩", "🟨", "🟪", "🟧")
BACKGROUND = "#2b2d31"  # Discord's dark embed background
GRID = "#4e5058"
TEXT = "#dbdee1"

Figures = Callable[[object], str]
"""How the reader's language writes a number (a tick's label); None: matplotlib's own. A
chart is cached by it too: give one function per language (the same object each time)."""


_figures = threading.local()
_labelled = threading.local()  # per style: the Figures its figure's ticks are written by now


@dataclass(frozen=True)
class Style:
    """How a kind of chart looks: its size, margins, tick count and label size. Each kind
    gets one figure per thread, styled once (:func:`_axes`)."""

    name: str
    height: float  # inches at 80 dpi; every chart is 6.4 wide
    margins: tuple[float, float, float, float]  # left, right, top, bottom
    x_ticks: int
    labelsize: int


TOTALS = Style("totals", 3.6, (0.07, 0.98, 0.96, 0.09), x_ticks=10, labelsize=10)
RATINGS = Style("ratings", 3.2, (0.08, 0.98, 0.96, 0.1), x_ticks=10, labelsize=9)


def _axes(style: Style) -> tuple[Figure, Axes]:
    """This thread's figure for ``style``, styled once and emptied of the last chart's
    lines: its axes, ticks and text layouts are reused, which is most of what a new figure
    costs (charts render in worker threads; matplotlib objects are not shared between
    threads)."""
    made: tuple[Figure, Axes] | None = getattr(_figures, style.name, None)
    if made is None:
        from matplotlib.figure import Figure  # a bare Figure draws with Agg: no pyplot
        from matplotlib.ticker import MaxNLocator

        figure = Figure(figsize=(6.4, style.height), dpi=80, facecolor=BACKGROUND)
        axes = figure.add_subplot()
        axes.set_facecolor(BACKGROUND)
        # few ticks: each is a handful of artists, and they are most of the drawing time;
        # whole numbers only (rounds, games, points), even where one fits in the view: by
        # default the locator falls back to 0.5, 0.6 … 1.5 below two whole numbers
        axes.xaxis.set_major_locator(MaxNLocator(nbins=style.x_ticks, integer=True,
                                                 min_n_ticks=1))
        axes.yaxis.set_major_locator(MaxNLocator(nbins=6, integer=True, min_n_ticks=1))
        axes.grid(color=GRID, linewidth=0.6)
        axes.tick_params(colors=TEXT, labelsize=style.labelsize)
        for spine in axes.spines.values():
            spine.set_color(GRID)
        left, right, top, bottom = style.margins
        figure.subplots_adjust(left=left, right=right, top=top, bottom=bottom)
        made = (figure, axes)
        setattr(_figures, style.name, made)
        setattr(_labelled, style.name, None)  # (matplotlib's own labels)
    for line in list(made[1].lines):
        line.remove()
    return made


def _label_ticks(style: Style, axes: Axes, figures: Figures | None) -> None:
    """The tick labels written by ``figures`` (a whole number as one), or by matplotlib;
    set only when they change (the figure is this thread's, reused)."""
    if getattr(_labelled, style.name, _labelled) is figures:
        return
    setattr(_labelled, style.name, figures)
    from matplotlib.ticker import FuncFormatter, ScalarFormatter

    for axis in (axes.xaxis, axes.yaxis):
        if figures is None:
            axis.set_major_formatter(ScalarFormatter())
        else:
            axis.set_major_formatter(FuncFormatter(
                lambda value, _: figures(int(value) if float(value).is_integer() else value)))


def shown_tick_labels(style: Style) -> tuple[list[str], list[str]]:
    """The labels of :func:`shown_ticks`, as this thread's last chart of ``style`` writes
    them (its axes' formatters; the tests read them here, not from the pixels)."""
    made: tuple[Figure, Axes] | None = getattr(_figures, style.name, None)
    if made is None:
        return [], []
    axes = made[1]
    xs, ys = shown_ticks(style)
    return (axes.xaxis.get_major_formatter().format_ticks(xs),
            axes.yaxis.get_major_formatter().format_ticks(ys))


def shown_ticks(style: Style) -> tuple[list[float], list[float]]:
    """The x and y ticks inside the view of this thread's last chart of ``style``: what a
    reader sees on its axes (the tests check they are whole numbers)."""
    made: tuple[Figure, Axes] | None = getattr(_figures, style.name, None)
    if made is None:
        return [], []
    axes = made[1]

    def inside(ticks: Sequence[float], limits: tuple[float, float]) -> list[float]:
        low, high = sorted(limits)
        return [float(t) for t in ticks if low - 1e-9 <= t <= high + 1e-9]

    return (inside(axes.get_xticks(), axes.get_xlim()),
            inside(axes.get_yticks(), axes.get_ylim()))


def _png(figure: Figure) -> bytes:
    """The figure as PNG, compressed quickly (zlib level 1: flat colours compress anyway)."""
    out = io.BytesIO()
    figure.savefig(out, format="png", facecolor=BACKGROUND, pil_kwargs={"compress_level": 1})
    return out.getvalue()


@lru_cache(maxsize=64)
def _chart(totals: tuple[tuple[int, ...], ...], target: int | None,
           winners: frozenset[int], figures: Figures | None) -> bytes:
    figure, axes = _axes(TOTALS)
    _label_ticks(TOTALS, axes, figures)
    rounds = list(range(len(totals[0]) + 1)) if totals else [0]
    for seat, line in enumerate(totals):
        colour = SEAT_RGB[seat % len(SEAT_RGB)]
        won = seat in winners
        axes.plot(rounds, [0, *line], color=colour, linewidth=3.2 if won else 1.8,
                  marker="o", markersize=4, zorder=3 if won else 2)
        if won:
            axes.plot([rounds[-1]], [line[-1]], marker="*", markersize=18, color=colour,
                      markeredgecolor="white", zorder=4)
    if target is not None:
        axes.axhline(target, color="white", linestyle="--", linewidth=1.2, alpha=0.7)
    axes.relim()
    axes.autoscale_view()
    return _png(figure)  # ~35 KB


def totals_chart(totals: Sequence[Sequence[int]], target: int | None = None,
                 winners: Sequence[int] = (), figures: Figures | None = None) -> bytes:
    """PNG of each seat's running total after every round (seat order = colour order).

    ``totals[seat][r]`` is the seat's total after round ``r + 1``; ``target`` draws the
    line that ends the game; ``winners`` get a thick line and a star at the end;
    ``figures`` writes the ticks' numbers (:data:`Figures`).
    """
    if any(len(line) != len(totals[0]) for line in totals):
        raise ValueError("every seat needs a total for every round")
    return _chart(tuple(tuple(line) for line in totals), target, frozenset(winners), figures)


@lru_cache(maxsize=64)
def _ratings(series: tuple[tuple[int, tuple[tuple[int, float, bool], ...]], ...],
             figures: Figures | None) -> bytes:
    figure, axes = _axes(RATINGS)
    _label_ticks(RATINGS, axes, figures)
    games = 0
    for colour_index, points in series:
        colour = SEAT_RGB[colour_index % len(SEAT_RGB)]
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        games = max(games, *xs)
        axes.plot(xs, ys, color=colour, linewidth=2.2, marker="o", markersize=4, zorder=2)
        won = [(x, y) for x, y, w in points if w]
        if won:
            axes.plot([x for x, _ in won], [y for _, y in won], linestyle="none", marker="*",
                      markersize=13, color=colour, markeredgecolor="white", zorder=3)
    axes.axhline(0, color="white", linestyle="--", linewidth=1.0, alpha=0.5)
    axes.relim()
    axes.autoscale_view(scalex=False)
    axes.set_xlim(0.5, games + 0.5)  # games numbered 1..; integer ticks, at most ten
    return _png(figure)


def ratings_chart(series: Sequence[tuple[int, Sequence[tuple[int, float, bool]]]],
                  figures: Figures | None = None) -> bytes:
    """PNG of one player's rating after each of their recent games (``/lama stats``).

    ``series``: per rule set, its colour's index (:data:`SEAT_RGB`) and its games as
    ``(game number, rating after it, won)``, numbered 1.. across every rule set in time
    order; won games get a star, the dashed line is a newcomer's rating (0); ``figures``
    writes the ticks' numbers (:data:`Figures`).
    """
    if not any(points for _, points in series):
        raise ValueError("no game to draw")
    return _ratings(tuple((c, tuple((int(x), float(y), bool(w)) for x, y, w in points))
                          for c, points in series if points), figures)
