"""Every cache of a long-running bot has a bound: filled past it, it holds no more.

The inventory test finds every module-level container and ``functools`` cache of bot/,
cogs/ and game/: each is either a table filled at import or start-up (``CONSTANT``) or a
cache bounded here (``BOUNDED``, with its test below), so a new cache must be given a bound
to pass. (benchmarks/memory.py measures what the bounds leave: RSS per 100 games.)
"""

from __future__ import annotations

import asyncio
import collections
import importlib
import inspect
import pkgutil
from dataclasses import replace
from types import SimpleNamespace

import pytest

import bot
import cogs
import game
from bot.common.clock import ManualClock
from bot.words import i18n
from cogs import charts, hands, legend, pictures, render
from game import Event, EventKind, events
from game.ai import heuristic, playout
from game.cards import Card
from game.rules import dice_tiles
from game.rules import items as rules

CONSTANT = {
    "bot.sessions.ai_players.DIFFICULTIES", "bot.catalog.KEYWORDS", "bot.catalog.METHOD_MAP",
    "bot.catalog.SOURCES", "bot.words.command_i18n.DISCORD_LOCALES",
    "bot.words.command_i18n.CONTEXTS",
    "bot.words.command_i18n.LANGUAGE_OF_LOCALE", "bot.words.i18n.DISCORD_LOCALES",
    "bot.words.i18n.DIGITS", "bot.words.i18n.TURN_MARKERS",
    "bot.pictures.faces.VALUE_RGB", "bot.pictures.faces._PIPS", "bot.ladder.ratings.AI_KEYS",
    "bot.sandbox.page.STATIC", "bot.sandbox.layout.AUTO_SELECTS",
    "bot.sandbox.process.DEFAULTS", "bot.sandbox.texts.PAGE",
    "cogs.admin.VARIANTS", "cogs.admin.IMAGE_CHOICES", "cogs.admin.PACES", "cogs.lobby.PACES",
    "cogs.relaxed.ON_OFF", "cogs.card_emojis.SIGNS",
    "cogs.cards.VALUE_EMOJI", "cogs.cards.SYMBOL_EMOJI", "cogs.cards.GAVE", "cogs.cards.STAGED",
    "cogs.cards.THREE_LLAMAS", "cogs.cards.RETURNED", "cogs.endings.VALUE_EMOJI",
    "cogs.endings.RETURNED_LINE", "cogs.endings.RETURNED_TOKEN_LINE",
    "cogs.language.LANGUAGE_NAMES", "cogs.language.CHOICES", "cogs.lobby.VARIANTS",
    "cogs.lobby.AI_SEATS",
    "cogs.hand_view.STYLES", "cogs.hand_view.LEGEND", "cogs.hand_view.LABELS",
    "cogs.hand_view.SYMBOL_EMOJI", "cogs.hand_view._MARKS",
    "cogs.stats.VARIANTS", "game.actions.SIMPLE",
    "game.ai.evaluate.ROUND_SPREAD", "game.ai.evaluate.LEADER_PACE", "game.ai.hard.STRATEGIES",
    "game.ai.hard.ITERATIONS", "game.ai.hard.STEPS", "game.ai.hard.PLAYOUT_STRATEGIES",
    "game.ai.heuristic.PLAYABLE_ON", "game.ai.heuristic.STRATEGIES",
    "game.ai.playout.PLAYABLE_ON", "game.ai.playout.MASK", "game.ai.playout.CARD_INDEX",
    "game.ai.playout.BIT", "game.ai.playout.POLICIES", "game.cards._SYMBOL_RANK",
    "game.cards._BY_TOKEN", "game.cli.narrate.ORDER", "game.record.SIMPLE_ACTIONS",
    "game.record.FIELDS", "game.rules.items.CHIP_POINTS", "game.rules.items.RETURNED_ITEMS",
    "game.rules.base.CHIP_POINTS", "game.rules.base.RETURNED_ITEMS",  # (items', imported)
    "game.rules.text.PARAGRAPHS", "game.rules.dice.TAKE_ACTIONS",
    "game.rules.dice_tiles.TAKE_ACTIONS",
    "game.rules.kadabra.PLAY_ACTIONS", "game.rules.kadabra.PLAYABLE_ON",
    "game.rules.kadabra.DECK_COUNTS", "game.rules.kadabra_uniform.PLAYABLE_ON",
    "game.rules.shedding.PLAYABLE_ON",
    "game.rules.shedding.PLAY_ACTIONS", "game.rules.tutorial.PLAY_ACTIONS",
    "game.rules.tutorial.CARD_ITEMS",
    # registries and start-up tables: one entry per rule set, AI, card face
    "game.ai.registry._REGISTRY", "game.rules.registry._REGISTRY", "cogs.cards.FACES",
    "cogs.card_emojis.FACES", "cogs.uploads.FACES",
    "cogs.pictures._rendering",  # pictures being drawn right now (each removes itself)
    "cogs.pictures._queued",  # those of them waiting for their turn on the loop (the same)
    "cogs.pictures._drain",  # the queue's next step: one per running event loop
    "game.rules.base.UNKEPT", "game.rules.shedding.UNKEPT",  # a list that keeps nothing
    "game.rng._STEPS", "game.rng._UNROLLED",  # per deck size: one entry per rule set's deck
    "game.rng._DEALS",  # per deck size and seat count (2-6): five per rule set's deck
    "game.rng._SEAT_DEALS",  # the same, a deal per first player in each
    "game.rules.classic.FOLLOWERS", "game.rules.tutorial.PLAY_VALUES",
    "game.rules.tutorial.PENALTIES", "game.rules.tutorial.AT_LEAST",
    "game.rules.CHIP_POINTS", "game.rules.UNKEPT",  # (game.rules.base's, re-exported)
}
"""Filled at import or start-up, by the code's own tables: not caches."""

BOUNDED = {
    "cogs.render._LOG_LINES", "cogs.pictures._recent", "game.ai.playout._CHAINS",
    "game.ai.playout._ROLLS", "game.rules.items._SCORE_ITEMS", "game.rules.dice_tiles._DISCARDS",
    "game.rules.items._COUNTED", "game.events._SHARED", "bot.sessions.persistence._shared_actions",
    "bot.words.i18n._FILLED", "bot.words.i18n._NAMES", "cogs.render._SEAT_LINES",
}
"""Module-level caches with a bound, each tested below."""


def project_modules() -> dict[str, object]:
    for package in (game, bot, cogs):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(info.name)
    import sys

    return {name: module for name, module in sys.modules.items()
            if name.split(".")[0] in ("bot", "cogs", "game")}


def test_every_module_level_container_is_a_table_or_a_bounded_cache() -> None:
    found = set()
    for name, module in project_modules().items():
        for attr, value in vars(module).items():
            if (isinstance(value, dict | list | set | collections.deque)
                    and not attr.startswith("__")):
                found.add(f"{name}.{attr}")
    unknown = found - CONSTANT - BOUNDED
    assert not unknown, f"give these a bound (and a test here), or list them as tables: {unknown}"
    assert found >= BOUNDED  # (a test below for each)


def test_every_functools_cache_has_a_size_limit() -> None:
    unbounded = []
    for name, module in project_modules().items():
        for attr, value in vars(module).items():
            if getattr(value, "__module__", None) != name or not callable(
                    getattr(value, "cache_parameters", None)):
                continue
            takes = inspect.signature(value).parameters
            if value.cache_parameters()["maxsize"] is None and takes:  # (no argument: one value)
                unbounded.append(f"{name}.{attr}")
    assert not unbounded


def fill(function, arguments) -> int:  # type: ignore[no-untyped-def]
    function.cache_clear()
    for args in arguments:
        function(*args)
    return function.cache_info().currsize


def test_i18n_caches_hold_their_bound() -> None:
    templates = [(f"{{n}} thing {i}",) for i in range(i18n.TEMPLATES_KEPT + 50)]
    for cached in (i18n._fields, i18n._isolated, i18n._plain_fields):
        assert fill(cached, templates) == i18n.TEMPLATES_KEPT
    locales = [(f"xx-{i}",) for i in range(i18n.LOCALES_KEPT + 5)]  # hostile locales: English
    assert fill(i18n.translator, locales) == i18n.LOCALES_KEPT
    assert i18n.translator("fr").language == "fr"
    languages = [(language,) for language in i18n.LANGUAGES]
    assert fill(i18n.signs, languages + languages) == len(i18n.LANGUAGES)


def test_filled_texts_keep_the_newest() -> None:
    tr = i18n.translator("fa")
    i18n._FILLED.clear()
    for i in range(i18n.FILLED_KEPT + 100):
        tr("{n} thing", n=i)
    assert len(i18n._FILLED) == i18n.FILLED_KEPT
    fsi, pdi = i18n.FSI, i18n.PDI
    assert tr("{n} thing", n=1) == f"{fsi}۱{pdi} thing"
    assert tr("{n} thing", n=True) == f"{fsi}True{pdi} thing"  # (not 1's text)
    assert tr("{n} thing", n=[1]) == f"{fsi}[۱]{pdi} thing"  # (not kept: not a key)
    assert len(i18n._FILLED) == i18n.FILLED_KEPT


def test_a_translators_templates_hold_their_bound() -> None:
    tr = i18n.Translator("en", i18n.translator("en")._catalog)
    for i in range(i18n.TEMPLATES_KEPT + 50):
        assert tr(f"{{n}} thing {i}", n=i) == f"{i} thing {i}"
    assert len(tr._templates) <= i18n.TEMPLATES_KEPT
    assert tr("Your hand: {cards}", cards="x") == "Your hand: x"


def test_names_keep_the_newest() -> None:
    tr = i18n.translator("fa")
    i18n._NAMES.clear()
    for i in range(i18n.NAMES_KEPT + 100):
        tr.name(f"*p{i}*")
    assert len(i18n._NAMES) == i18n.NAMES_KEPT
    assert tr.name("*p1*") == f"{i18n.FSI}\\*p1\\*{i18n.PDI}"
    assert i18n.translator("en").name("*p1*") == "\\*p1\\*"  # (not fa's: not isolated)


def test_log_lines_keep_the_newest() -> None:
    tr = i18n.translator("en")
    names = ("ana", "ben")
    render._LOG_LINES.clear()
    events = [Event(EventKind.DREW, seat=i % 2, card=None) for i in range(2)]
    for i in range(render.LOG_LINES_KEPT + 100):
        render.log_line(tr, events[i % 2], (*names, f"p{i}"))
    assert len(render._LOG_LINES) == render.LOG_LINES_KEPT
    newest = (tr.language, events[1], (*names, f"p{render.LOG_LINES_KEPT + 99}"))
    assert newest in render._LOG_LINES
    assert (tr.language, events[0], (*names, "p0")) not in render._LOG_LINES
    assert render.log_line(tr, events[0], names) == "ana drew a card."
    render._LOG_LINES.clear()


def test_seat_lines_keep_the_newest() -> None:
    from game import Game, player_view

    tr = i18n.translator("en")
    view = player_view(Game("classic", ["ana", "ben"], seed="bounds"), None)
    seat = view.seats[0]
    render._SEAT_LINES.clear()
    for i in range(render.SEAT_LINES_KEPT + 100):
        render.seat_line(tr, view, 0, False)
        view = replace(view, seats=(replace(seat, name=f"p{i}"), view.seats[1]))
    assert len(render._SEAT_LINES) == render.SEAT_LINES_KEPT
    oldest = (tr.language, seat, view.to_act == 0, view.uses_chips, False)
    assert oldest not in render._SEAT_LINES
    assert render.seat_line(tr, view, 1, True) == render._seat_line(tr, view, 1, True)
    assert f"**p{render.SEAT_LINES_KEPT + 99}**" in render.seat_line(tr, view, 0, False)
    render._SEAT_LINES.clear()


async def test_recent_pictures_keep_the_newest() -> None:
    pictures._recent.clear()
    loop = asyncio.get_running_loop()
    for i in range(pictures.RECENT + 10):
        done = loop.create_future()
        done.set_result(b"png %d" % i)
        pictures._remember(("hand", (str(i),), None, None), done)
    assert len(pictures._recent) == pictures.RECENT
    assert next(reversed(pictures._recent)) == ("hand", (str(pictures.RECENT + 9),), None, None)
    assert pictures.file_name.cache_parameters()["maxsize"] == 1024
    pictures._recent.clear()


def test_tick_figures_keep_one_per_language() -> None:
    charts.tick_figures.cache_clear()
    for language in (*i18n.LANGUAGES, "xx", "yy", "fa"):
        charts.tick_figures(language)
    assert charts.tick_figures.cache_info().currsize == len(i18n.LANGUAGES)
    charts.tick_figures.cache_clear()


def test_playout_caches_empty_when_full() -> None:
    cache: dict[int, float] = {}
    for key in range(playout.CACHE_LIMIT + 10):
        playout.remember(cache, key, 0.5)
    assert len(cache) <= playout.CACHE_LIMIT + 1
    assert cache[playout.CACHE_LIMIT + 9] == 0.5


def test_score_items_empty_when_full() -> None:
    rules._SCORE_ITEMS.clear()
    for i in range(rules.SCORE_ITEMS_KEPT + 10):
        item = rules._score_item(3, ("3",) * (i + 1))
    assert len(rules._SCORE_ITEMS) <= rules.SCORE_ITEMS_KEPT
    assert rules._score_item(3, ("3",) * (rules.SCORE_ITEMS_KEPT + 10)) is item
    rules._SCORE_ITEMS.clear()


def test_dice_discards_empty_when_full() -> None:
    dice_tiles._DISCARDS.clear()
    roll = (Card.parse("3"), Card.parse("3"), Card.parse("5"))
    hand = [Card.parse("3"), Card.parse("5")]
    for i in range(dice_tiles.DISCARDS_KEPT + 10):
        actions = dice_tiles.remembered_discards((roll, i), roll, hand)
    assert len(dice_tiles._DISCARDS) <= dice_tiles.DISCARDS_KEPT
    assert actions == dice_tiles.discards(roll, hand)
    dice_tiles._DISCARDS.clear()


def test_heuristic_caches_are_bounded() -> None:
    for cached in (heuristic.chain_gain, heuristic.stay_value, heuristic.roll_value):
        assert cached.cache_parameters()["maxsize"] == heuristic.SEARCH_CACHE_KEPT
    top = Card.parse("1")
    hands_ = [(top,) * (1 + i % 5) + (Card.parse(str(2 + i % 5)),) * (i // 5)
              for i in range(heuristic.SEARCH_CACHE_KEPT + 50)]
    heuristic.chain_gain.cache_clear()
    for hand in hands_:
        heuristic.chain_gain(top, hand[:12])
    assert heuristic.chain_gain.cache_info().currsize <= heuristic.SEARCH_CACHE_KEPT


class Clicked(SimpleNamespace):
    """An interaction as LiveHands reads it: its user."""


def live_hands() -> tuple[hands.LiveHands, ManualClock]:
    clock = ManualClock()
    return hands.LiveHands(clock), clock


def answer(live: hands.LiveHands, channel: int, user: int) -> None:
    session = SimpleNamespace(channel_id=channel, game_id="g")
    view = SimpleNamespace(round_no=1, my_turn=False, hand=(), drawn=None, roll=None, legal=(),
                           finished=False)
    live.answered(Clicked(user=SimpleNamespace(id=user)), session, 0, view)  # type: ignore[arg-type]


def test_live_hands_keep_the_newest_clicks() -> None:
    live, _ = live_hands()
    for user in range(hands.MAX_LIVE_HANDS + 20):
        answer(live, 100 + user % 7, user)
    assert len(live) == hands.MAX_LIVE_HANDS
    assert not live.live(100, 0)  # the oldest went
    newest = hands.MAX_LIVE_HANDS + 19
    assert live.live(100 + newest % 7, newest)


def test_live_hands_forget_expired_tokens() -> None:
    live, clock = live_hands()
    for user in range(50):
        answer(live, 1 + user % 3, user)
    clock.advance(hands.TOKEN_TTL)
    answer(live, 9, 1000)
    assert len(live) == 1 and live.live(9, 1000)
    assert set(live._users) == {9}  # no channel left with no hand


@pytest.mark.parametrize("kind", ["outbox", "hands"])
async def test_channel_locks_go_with_their_last_user(kind: str) -> None:
    """The per-channel locks live while a delivery or a follow holds them, not forever."""
    if kind == "hands":
        live, _ = live_hands()
        session = SimpleNamespace(channel_id=5, game_id="g")

        async def nothing(*_: object) -> object:
            raise AssertionError("no hand to render")

        for channel in range(200):
            session.channel_id = channel
            await live.follow(session, nothing)  # type: ignore[arg-type]
        locks = live._locks
    else:
        from bot.sessions.outbox import Outbox

        outbox = Outbox(SimpleNamespace())  # type: ignore[arg-type]
        for channel in range(200):
            await outbox.deliver(channel)
        locks = outbox._locks
    assert len(locks) == 0


def test_counted_hands_empty_when_full() -> None:
    rules._COUNTED.clear()
    for n in range(rules._COUNTED_MAX + 10):
        rules._COUNTED[(n,)] = ()  # (any key: the bound is on the count)
        if len(rules._COUNTED) >= rules._COUNTED_MAX:
            break
    rules.counted_values([Card.parse("3")])
    assert len(rules._COUNTED) <= rules._COUNTED_MAX
    rules._COUNTED.clear()


def test_shared_events_empty_when_full() -> None:
    events._SHARED.clear()
    for n in range(events.SHARED_KEPT + 10):
        events.shared(EventKind.PLAYED, seat=n)
    assert len(events._SHARED) <= events.SHARED_KEPT
    events._SHARED.clear()


def test_shared_actions_stop_growing_when_full() -> None:
    from bot.sessions import persistence
    from game import Action, ActionType

    persistence._shared_actions.clear()
    try:
        made = [Action(ActionType.PLAY, give_to=n) for n in range(persistence.SHARED_ACTIONS + 10)]
        kept = [persistence.shared(a) for a in made]
        assert len(persistence._shared_actions) == persistence.SHARED_ACTIONS
        assert kept[-1] is made[-1], "past the bound an action is returned as it is"
        assert persistence.shared(Action(ActionType.PLAY, give_to=0)) is made[0], "shared"
    finally:
        persistence._shared_actions.clear()


def test_legend_keeps_one_game_per_channel_and_player() -> None:
    """A channel's next game replaces what the last one explained: games played one after
    another in one channel hold one entry per player, not one per game."""
    shown = legend.Explained()
    for game_no in range(50):
        for user in (1, 2, 3):
            assert shown.new(7, f"g{game_no}", user, ["star", "chips"]) == ["star", "chips"]
            assert shown.new(7, f"g{game_no}", user, ["star", "hat"]) == ["hat"]
    assert len(shown) == 3


def test_legend_keeps_the_newest_pairs() -> None:
    shown = legend.Explained(kept=100)
    for channel in range(150):
        shown.new(channel, "g", 1, ["star"])
    assert len(shown) == 100
    assert shown.new(149, "g", 1, ["star"]) == []  # the newest is still known
    assert shown.new(0, "g", 1, ["star"]) == ["star"]  # the oldest was forgotten
