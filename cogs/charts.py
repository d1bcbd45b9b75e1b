"""Charts in messages: the final standings' chart and the ratings' chart, drawn on a
thread of their own (:data:`CHARTS`), never on the event loop, their numbers written in the
reader's language (:func:`tick_figures`)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from itertools import accumulate
from typing import Any

from bot.pictures.chart import SEAT_EMOJI, Figures, totals_chart
from bot.pictures.chart import warm as warm_chart
from bot.pictures.compose import warm as warm_pictures
from bot.words.i18n import LANGUAGES, Translator, translator
from bot.words.markdown import FIELD_VALUE, clip
from cogs.render import Payload
from cogs.uploads import picture_file
from game import PlayerView

log = logging.getLogger(__name__)

CHART_FILE = "totals.png"

# Charts on a thread of their own: its styled figures stay warm (in asyncio's pool each
# new thread styles its own), and a chart never holds up a hand. Hands stay in the pool:
# on one thread, under load, their renders queue behind one another and games slow down
# (benchmarks/bot_load.py: fewer moves in the same time, more CPU per move).
CHARTS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lama-charts")


@lru_cache(maxsize=len(LANGUAGES))
def tick_figures(language: str) -> Figures:
    """How ``language`` writes a chart's tick numbers: its translator's
    :meth:`~bot.words.i18n.Translator.figures` (Persian digits and minus sign), one function
    per language so that a chart is cached by what it shows."""
    return translator(language).figures


async def drawn_chart(draw: Callable[..., bytes], *args: Any) -> bytes:
    """``draw(*args)`` (a chart) on the charts' thread, off the event loop."""
    return await asyncio.get_running_loop().run_in_executor(CHARTS, draw, *args)


async def warm_charts() -> None:
    """The hand pictures' tiles cut into pieces (bot/pictures/compose.py's ``warm``, 0.2 s:
    the first hands need them), then matplotlib loaded and the charts' figure styled (the
    first chart is a game away), on the charts' thread, off the event loop: ``python -m
    bot`` starts it with the process."""
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(CHARTS, warm_pictures)
    await loop.run_in_executor(CHARTS, warm_chart)


def chart_body(tr: Translator, view: PlayerView) -> dict[str, Any]:
    """What the final standings' chart shows, as plain data for the outbox (rendered when
    delivered): running totals per seat, the target, the winners, and the colour legend."""
    totals = [list(accumulate(s.round_points)) for s in view.seats]
    rounds = min((len(t) for t in totals), default=0)
    legend = "\n".join(f"{SEAT_EMOJI[s.seat % len(SEAT_EMOJI)]} {tr.name(s.name)}"
                       + (" 🏆" if s.seat in view.winners else "") for s in view.seats)
    options = dict(view.options)
    target = None if "rounds" in options else options.get("target")
    # the picture has no words (matplotlib would not shape Persian): its axes are named here
    axes = [tr("Across: the rounds; up: each player's total points.")]
    if target is not None:
        axes.append(tr("The dashed line is the total that ends the game ({target}).",
                       target=target))
    return {
        "language": tr.language,  # (the ticks' digits)
        "totals": [t[:rounds] for t in totals],
        "target": target,
        "winners": list(view.winners),
        "title": tr("Totals after each round"),
        "legend": clip("\n".join([legend, *axes]), FIELD_VALUE),
        "alt": tr("A line chart of every player's total points (up) after each round "
                  "(across)."),
    }


async def add_chart(payload: Payload, chart: dict[str, Any]) -> Payload:
    """The standings with their chart (rendered now, off the event loop) and its legend."""
    if payload.embed is None or not chart.get("totals") or not chart["totals"][0]:
        return payload
    try:
        language = chart.get("language")  # (none in a body owed before it was kept)
        data = await drawn_chart(totals_chart, chart["totals"], chart.get("target"),
                                 chart.get("winners") or (),
                                 tick_figures(language) if language else None)
    except ValueError:
        log.warning("a final chart could not be drawn", exc_info=True)
        return payload
    payload.embed.add_field(name=chart["title"], value=chart["legend"], inline=False)
    payload.embed.set_image(url=f"attachment://{CHART_FILE}")
    chart_file = picture_file(data, CHART_FILE, chart.get("alt", ""))
    payload.files = [*payload.files, chart_file]  # (after the record, if any)
    return payload


def without_files(payload: Payload) -> Payload:
    """The same message as text only (the chart's legend and image reference dropped)."""
    payload.files = []
    if payload.embed is not None and payload.embed.image:
        payload.embed.set_image(url=None)
        if payload.embed.fields:
            payload.embed.remove_field(len(payload.embed.fields) - 1)
    return payload
