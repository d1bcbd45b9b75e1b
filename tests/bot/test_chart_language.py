"""The final standings' chart writes its numbers as the reader's language does: a Persian
game's chart, owed in the outbox and drawn on the charts' thread, has Persian tick labels
(read from the chart's axes there, not from its pixels)."""

from __future__ import annotations

import json

import discord

from bot.pictures.chart import TOTALS, _chart, shown_tick_labels
from bot.words.i18n import translator
from cogs.charts import CHARTS, add_chart, chart_body
from cogs.render import Payload
from game import ai, player_view
from game.game import Game

PERSIAN = set("۰۱۲۳۴۵۶۷۸۹")


def finished_game() -> Game:
    game = Game("classic", ["ana", "ben", "cleo"], seed="chart-language")
    players = [ai.find("random")(f"chart-language:{seat}") for seat in range(3)]
    while not game.finished:
        seat = game.to_act
        game.apply(seat, players[seat].choose(player_view(game, seat)))
    return game


async def drawn_labels(body: dict[str, object]) -> tuple[list[str], list[str]]:
    """The tick labels of ``body``'s chart as add_chart draws it (cache emptied: drawn)."""
    _chart.cache_clear()
    payload = await add_chart(Payload(embed=discord.Embed(title="standings")), body)
    assert payload.files and payload.embed is not None and payload.embed.image
    return CHARTS.submit(shown_tick_labels, TOTALS).result()


async def test_a_persian_games_chart_has_persian_ticks_an_older_body_matplotlibs_own() -> None:
    view = player_view(finished_game(), None)
    body = json.loads(json.dumps(chart_body(translator("fa"), view)))  # (as the outbox keeps)
    assert body["language"] == "fa"
    xs, ys = await drawn_labels(body)
    assert xs and ys and all(set(label) <= PERSIAN for label in xs + ys), (xs, ys)
    english = await drawn_labels(chart_body(translator("en"), view))
    assert all(label.isascii() and label.isdigit() for label in english[0] + english[1])
    del body["language"]  # (owed before the language was kept: matplotlib's digits)
    xs, ys = await drawn_labels(body)
    assert all(label.isascii() for label in xs + ys), (xs, ys)
