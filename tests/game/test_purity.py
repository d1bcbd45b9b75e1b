"""The engine stays pure: stdlib, pydantic and itself only; no asyncio; no global random.

CONTEXT/ARCHITECTURE: game/ is a deterministic library that bot/ and cogs/ import, never
the reverse, and every chance outcome goes through game/rng.py.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

GAME = Path(__file__).resolve().parents[2] / "game"
ALLOWED_THIRD_PARTY = {"pydantic"}
RNG_MODULE = GAME / "rng.py"
RANDOM_CONSTRUCTORS = {"Random", "SystemRandom"}
"""What game/rng.py may use from ``random``: building generators, never the global one."""


def _modules() -> list[Path]:
    return sorted(GAME.rglob("*.py"))


def _imported_roots(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, top-level package) of every absolute import in ``tree``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name.split(".")[0]) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module.split(".")[0]))
    return found


def _parse(path: Path) -> ast.AST:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def test_there_are_modules_to_check() -> None:
    names = {p.name for p in _modules()}
    assert {"game.py", "rng.py", "record.py", "views.py"} <= names


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(GAME.parent)))
def test_imports_only_stdlib_pydantic_and_game(path: Path) -> None:
    allowed = set(sys.stdlib_module_names) | ALLOWED_THIRD_PARTY | {"game", "__future__"}
    imports = _imported_roots(_parse(path))
    bad = [f"line {line}: {root}" for line, root in imports if root not in allowed]
    assert bad == [], f"{path.name} imports outside the standard library: {bad}"


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(GAME.parent)))
def test_no_asyncio_and_random_only_in_rng(path: Path) -> None:
    roots = {root for _, root in _imported_roots(_parse(path))}
    assert "asyncio" not in roots, f"{path.name} imports asyncio"
    if path != RNG_MODULE:
        assert "random" not in roots, f"{path.name} imports random; only game/rng.py may"


def test_rng_never_uses_the_global_generator() -> None:
    tree = _parse(RNG_MODULE)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "random":
            names = {alias.name for alias in node.names}
            assert names <= RANDOM_CONSTRUCTORS, f"rng.py imports {names} from random"
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "random"
        ):
            assert node.attr in RANDOM_CONSTRUCTORS, (
                f"rng.py line {node.lineno} uses the global random.{node.attr}"
            )


def test_the_checker_catches_a_forbidden_import() -> None:
    """The walker itself must see imports, or the tests above prove nothing."""
    tree = ast.parse("import discord\nfrom aiosqlite import connect\nfrom . import x\n")
    assert [root for _, root in _imported_roots(tree)] == ["discord", "aiosqlite"]
