"""The rooms of bot/ import one way: each room's package docstring says what it may import,
and this test holds every module to it.

bot.common <- bot.words, bot.ladder <- bot.store <- bot.sessions <- bot.policies <-
bot.process; bot.pictures stands alone. bot/*.py (the entry point, the composition root
bot.app, the cluster launcher, the catalog tool) and the sandbox compose them all. Only the
process (and words: the slash commands' translations are discord.py's) use discord.py, and
only bot.app imports cogs/ (tests/test_layers.py).
"""

from __future__ import annotations

from pathlib import Path

from tests.test_layers import ROOT, import_graph, within

LOWER = ("bot.common", "bot.words", "bot.ladder", "bot.store", "bot.sessions", "bot.policies",
         "bot.pictures", "bot.process")
MAY_IMPORT: dict[str, frozenset[str]] = {
    "bot.common": frozenset(),
    "bot.words": frozenset({"bot.common", "discord"}),
    "bot.ladder": frozenset({"bot.common"}),
    "bot.store": frozenset({"bot.common", "bot.ladder"}),
    "bot.sessions": frozenset({"bot.common", "bot.words", "bot.ladder", "bot.store"}),
    "bot.policies": frozenset({"bot.common", "bot.words", "bot.ladder", "bot.store",
                               "bot.sessions"}),
    "bot.pictures": frozenset(),
    "bot.process": frozenset({"bot.common", "bot.words", "bot.ladder", "bot.store",
                              "bot.sessions", "bot.policies", "bot.pictures", "discord"}),
}
GUARDED = ("bot", "cogs", "discord", "fakediscord")  # what a lower room may not reach freely
MAX_MODULES = 12  # per folder, __init__ not counted


def room_of(module: str) -> str | None:
    """The lower room ``module`` lives in (None: the root, the sandbox, or not bot/)."""
    return next((room for room in LOWER if within(module, room)), None)


def wrong_imports(graph: dict[str, dict[str, int]]) -> list[str]:
    """Every import by a lower room of a room (or guarded package) it may not import."""
    wrong = []
    for name, edges in sorted(graph.items()):
        room = room_of(name)
        if room is None:
            continue
        for target, line in edges.items():
            if within(target, room) or not any(within(target, g) for g in GUARDED):
                continue
            allowed = MAY_IMPORT[room]
            if not any(within(target, other) for other in allowed):
                wrong.append(f"{name} imports {target} (line {line}): {room} may import only "
                             f"{', '.join(sorted(allowed)) or 'nothing of bot/'}")
    return wrong


def test_an_upward_import_is_caught() -> None:
    graph = {"bot.store.sqlite": {"bot.sessions.outbox": 21, "bot.ladder.results": 3},
             "bot.words.i18n": {"bot.store.sqlite": 9},
             "bot.common.clock": {"discord": 1},
             "bot.policies.timers": {"bot.sessions.sessions": 2, "cogs.table": 5},
             "bot.client": {"cogs.buttons": 1}}
    assert wrong_imports(graph) == [
        "bot.common.clock imports discord (line 1): bot.common may import only nothing of bot/",
        "bot.policies.timers imports cogs.table (line 5): bot.policies may import only "
        "bot.common, bot.ladder, bot.sessions, bot.store, bot.words",
        "bot.store.sqlite imports bot.sessions.outbox (line 21): bot.store may import only "
        "bot.common, bot.ladder",
        "bot.words.i18n imports bot.store.sqlite (line 9): bot.words may import only "
        "bot.common, discord",
    ]


def test_the_rooms_import_one_way() -> None:
    assert wrong_imports(import_graph()) == []


def test_every_room_says_what_it_may_import() -> None:
    for room in LOWER:
        init = ROOT / Path(*room.split(".")) / "__init__.py"
        doc = init.read_text(encoding="utf-8")
        assert doc.startswith('"""'), f"{init} has no docstring"
        for other in MAY_IMPORT[room] - {"discord"}:
            assert other in doc, f"{init}'s docstring does not say it may import {other}"


def test_no_folder_of_bot_holds_more_than_a_dozen_modules() -> None:
    crowded = {}
    for folder in [ROOT / "bot", *(p for p in (ROOT / "bot").rglob("*") if p.is_dir())]:
        count = len([p for p in folder.glob("*.py") if p.name != "__init__.py"])
        if count > MAX_MODULES:
            crowded[str(folder.relative_to(ROOT))] = count
    assert crowded == {}
