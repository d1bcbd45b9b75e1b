"""The layers hold: game/ below bot/ below cogs/, and no import cycle in any package.

Imports are read from the source (every ``import`` and ``from ... import`` anywhere in a
file: at the top, inside functions, under ``if TYPE_CHECKING:``), so a deferred import
cannot hide a cycle. A submodule importing a name from its own package's ``__init__``
(``from game.rules import find`` inside game/rules/) is an edge to that ``__init__``, which
usually imports the submodule back: a registry belongs in a module of its own. Every
top-level package of the project is walked (those found, not a list kept by hand). Only
:mod:`bot.app`, the composition root, wires bot/ and cogs/.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOT_WALKED = ("tests",)
"""Top-level packages that are not the project's code (the suite imports everything)."""
SHIPPED = ("bot", "cogs", "game", "fakediscord")
COMPOSITION_ROOT = "bot.app"
FORBIDDEN_IN_GAME = ("bot", "cogs", "discord")


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def packages(root: Path = ROOT) -> list[str]:
    """The top-level packages under ``root`` (a folder with an ``__init__.py``)."""
    return sorted(p.parent.name for p in root.glob("*/__init__.py")
                  if p.parent.name not in NOT_WALKED)


def modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the packages under ``root``, by dotted name."""
    return {module_name(path, root): path for package in packages(root)
            for path in sorted((root / package).rglob("*.py"))}


def imported(name: str, source: str, known: set[str], is_package: bool = False
             ) -> Iterator[tuple[str, int]]:
    """``(module, line)`` of every import in ``source`` (module ``name``), wherever it is.

    ``from package import name`` counts as importing ``package.name`` when that is a
    module; relative imports are resolved against ``name``'s package (``name`` itself
    when it ``is_package``: an ``__init__.py``).
    """
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                yield (sub if sub in known else target), node.lineno


def import_graph(root: Path = ROOT) -> dict[str, dict[str, int]]:
    """module -> {imported module (project modules and top-level others): line}."""
    sources = tuple((name, path.read_text(encoding="utf-8"), path.name == "__init__.py")
                    for name, path in modules(root).items())
    return {name: dict(edges) for name, edges in graph_of(sources).items()}


@lru_cache(maxsize=4)
def graph_of(sources: tuple[tuple[str, str, bool], ...]) -> dict[str, dict[str, int]]:
    """The graph of these ``(module, source, is_package)``: parsed once per test process
    for the checks that read the same files (some 300 files, a second or so)."""
    known = {name for name, _, _ in sources}
    graph: dict[str, dict[str, int]] = {}
    for name, source, is_package in sources:
        edges = graph.setdefault(name, {})
        for target, line in imported(name, source, known, is_package):
            edges.setdefault(target, line)
    return graph


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components with more than one module, or a self-import."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, {}):
            if nxt not in graph:
                continue
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1 or node in graph.get(node, {}):
                found.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph) + 100))
    try:
        for node in sorted(graph):
            if node not in index:
                visit(node)
    finally:
        sys.setrecursionlimit(limit)
    return found


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def described(found: list[list[str]], graph: dict[str, dict[str, int]]) -> str:
    """Each circle, with the imports that close it (``a -> b (line n)``)."""
    lines = []
    for component in found:
        members = set(component)
        lines.append(", ".join(component))
        lines += [f"    {name} -> {target} (line {line})" for name in component
                  for target, line in sorted(graph[name].items()) if target in members]
    return "\n".join(lines)


# ---- the checker can fail ------------------------------------------------------------

def test_deferred_and_type_checking_imports_are_seen() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from bot.sessions import Session\n"
        "def f():\n    from bot import takeover\n    import cogs.lobby\n"
        "from . import clock\n"
    )
    known = {"bot.sessions", "bot.takeover", "bot.clock", "bot.timers", "cogs.lobby"}
    assert {t for t, _ in imported("bot.timers", source, known)} == {
        "typing", "bot.sessions", "bot.takeover", "cogs.lobby", "bot.clock"}


def test_a_cycle_through_a_deferred_import_is_found() -> None:
    graph = {"bot.a": {"bot.b": 1}, "bot.b": {"bot.c": 1}, "bot.c": {"bot.a": 9},
             "bot.d": {"bot.a": 1}}
    assert cycles(graph) == [["bot.a", "bot.b", "bot.c"]]
    assert cycles({"bot.a": {"bot.b": 1}, "bot.b": {}}) == []


def write_tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_a_registry_in_its_package_init_is_a_circle(tmp_path: Path) -> None:
    """The shape game/rules/ had: the ``__init__`` imports the rule sets, which take
    ``register`` from the ``__init__``. Moving the registry to a module of its own (the rule
    sets import it, the ``__init__`` imports them) leaves no circle."""
    write_tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/rules/__init__.py": "def register(x): ...\nfrom pkg.rules import classic\n",
        "pkg/rules/classic.py": "from pkg.rules import register\n",
        "pkg/engine.py": "from pkg import rules\n",
        "tests/__init__.py": "from pkg.rules import classic\nfrom pkg import engine\n",
    })
    assert packages(tmp_path) == ["pkg"]
    graph = import_graph(tmp_path)
    assert cycles(graph) == [["pkg.rules", "pkg.rules.classic"]]
    assert "pkg.rules.classic -> pkg.rules (line 1)" in described(cycles(graph), graph)
    write_tree(tmp_path, {
        "pkg/rules/registry.py": "def register(x): ...\n",
        "pkg/rules/__init__.py": "from pkg.rules import classic\nfrom .registry import register\n",
        "pkg/rules/classic.py": "from pkg.rules.registry import register\n",
    })
    assert cycles(import_graph(tmp_path)) == []


def test_a_type_checking_circle_between_packages_is_found(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "low/__init__.py": "",
        "low/model.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                        "    from high.driver import Driver\n",
        "high/__init__.py": "from .driver import Driver\n",
        "high/driver.py": "from low.model import *\nclass Driver: ...\n",
    })
    assert packages(tmp_path) == ["high", "low"]
    assert cycles(import_graph(tmp_path)) == [["high.driver", "low.model"]]


# ---- the project's layers ------------------------------------------------------------

def test_every_shipped_package_is_walked() -> None:
    assert set(SHIPPED) <= set(packages())
    assert {name.split(".")[0] for name in modules()} == set(packages())


def test_no_import_cycle_in_any_package() -> None:
    """Across all of them (a cycle bot -> cogs -> bot would also put bot/ above cogs/)."""
    graph = import_graph()
    found = cycles(graph)
    assert found == [], "modules that import each other in a circle:\n" + described(
        found, graph)


def test_only_the_composition_root_imports_cogs() -> None:
    graph = import_graph()
    wrong = [f"{name} imports {target} (line {line})"
             for name, edges in sorted(graph.items()) if within(name, "bot")
             and name != COMPOSITION_ROOT
             for target, line in edges.items() if within(target, "cogs")]
    assert wrong == []
    assert any(within(t, "cogs") for t in graph[COMPOSITION_ROOT]), "the root wires the cogs"


def test_game_imports_neither_bot_nor_cogs_nor_discord() -> None:
    graph = import_graph()
    wrong = [f"{name} imports {target} (line {line})"
             for name, edges in sorted(graph.items()) if within(name, "game")
             for target, line in edges.items()
             if any(within(target, banned) for banned in FORBIDDEN_IN_GAME)]
    assert wrong == []


def test_importing_the_bot_layer_loads_no_cog_and_a_start_no_chart_library() -> None:
    """Package ``__init__`` files run on import too: bot/ must not pull the cogs in. What a
    ``python -m bot`` imports to start (bot/app.py and every cog) leaves matplotlib, half a
    second of CPU, to the first chart, and asyncpg to a PostgreSQL database."""
    code = ("import sys, bot, bot.process.client, bot.sessions.sessions, "
            "bot.policies.timers, bot.policies.takeover, bot.policies.ai_runner, "
            "bot.sessions.restore\n"
            "print(sorted(m for m in sys.modules if m == 'cogs' or m.startswith('cogs.')))\n"
            "import importlib, bot.app, bot.__main__\n"
            "from cogs import EXTENSIONS\n"
            "for name in EXTENSIONS: importlib.import_module(name)\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'matplotlib', 'asyncpg'}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    assert out.split() == ["[]", "[]"], out
