"""No call site puts a translated text into another sentence (read from the source).

The whole games of ``test_i18n_games.py`` watch the translator at run time, but only on
the paths the games take. This reads every ``tr(...)`` / ``tr.plural(...)`` call in
``bot/`` and ``cogs/`` and lists the placeholder values that are translations: a direct
``tr(...)`` call, a local variable assigned one, or a call to a function that returns
one (found by following returns to a fixed point). A game's title (``tr(x.title)``) is
a name, and exempt.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("bot", "cogs")
TRANSLATING = {"plural", "pattern", "context"}  # tr.figures/decimal/isolate/join: no msgid


@cache
def _walked(node: ast.AST) -> tuple[ast.AST, ...]:
    """``ast.walk(node)``, walked once: the fixed points below read each function many times."""
    return tuple(ast.walk(node))


def _is_tr_call(node: ast.AST) -> bool:
    """``tr("…")`` or ``tr.plural(…)`` on a translator named ``tr``; titles excepted."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    direct = isinstance(func, ast.Name) and func.id == "tr"
    method = (isinstance(func, ast.Attribute) and func.attr in TRANSLATING
              and isinstance(func.value, ast.Name) and func.value.id == "tr")
    if not (direct or method):
        return False
    first = node.args[0] if node.args else None
    return not (isinstance(first, ast.Attribute) and first.attr == "title")


def _functions() -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    found = {}
    for source in SOURCES:
        for path in sorted((ROOT / source).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    found[f"{path.relative_to(ROOT)}:{node.name}:{node.lineno}"] = node
    return found


class _Scope:
    """What, inside one function, holds a translated text."""

    def __init__(self, function: ast.AST, translating: set[str]) -> None:
        self.translating = translating
        self.names: set[str] = set()
        assignments: list[tuple[list[ast.expr], ast.expr]] = []
        for node in _walked(function):
            if isinstance(node, ast.Assign):
                assignments.append((node.targets, node.value))
            elif (isinstance(node, ast.AnnAssign | ast.AugAssign | ast.NamedExpr)
                  and node.value is not None):
                assignments.append(([node.target], node.value))
        changed = True
        while changed:  # a name assigned from a translation, perhaps through another name
            changed = False
            for targets, value in assignments:
                if not self.translated(value):
                    continue
                for target in targets:
                    for name in _walked(target):
                        if isinstance(name, ast.Name) and name.id not in self.names:
                            self.names.add(name.id)
                            changed = True

    def translated(self, expression: ast.AST) -> bool:
        for node in _walked(expression):
            if _is_tr_call(node) or (isinstance(node, ast.Name) and node.id in self.names):
                return True
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in self.translating):
                return True
        return False


def _translating_functions(functions: dict[str, ast.AST]) -> set[str]:
    """Names of functions that return a translated text (to a fixed point)."""
    names: set[str] = set()
    returns = {key: [n.value for n in _walked(function)
                     if isinstance(n, ast.Return) and n.value is not None]
               for key, function in functions.items()}
    while True:
        found = set()
        for key, function in functions.items():
            if returns[key]:  # (one scope per function and round, not one per return)
                scope = _Scope(function, names)
                if any(scope.translated(value) for value in returns[key]):
                    found.add(key.split(":")[1])
        if found <= names:
            return names
        names |= found


def fragments() -> Iterator[str]:
    functions = _functions()
    translating = _translating_functions(functions)
    for key, function in functions.items():
        scope = _Scope(function, translating)
        for node in ast.walk(function):
            if not _is_tr_call(node):
                continue
            assert isinstance(node, ast.Call)
            for keyword in node.keywords:
                if keyword.arg is not None and scope.translated(keyword.value):
                    yield f"{key}: {keyword.arg}={ast.unparse(keyword.value)}"


def test_the_reader_finds_the_shapes_it_looks_for(tmp_path: Path) -> None:
    code = '''
def what(tr):
    return tr("nothing")

def direct(tr):
    return tr("{a} b", a=tr("c"))

def through_a_name(tr):
    part = tr.plural("{n} x", "{n} xs", 2)
    return tr("{a} b", a=part)

def through_a_function(tr):
    return tr("{a} b", a=what(tr))

def a_title(tr, view):
    return tr("{title}: x", title=tr(view.title), n=tr.figures(3))
'''
    tree = ast.parse(code)
    functions = {f"t:{n.name}:{n.lineno}": n for n in tree.body if isinstance(n, ast.FunctionDef)}
    translating = _translating_functions(functions)
    flagged = set()
    for key, function in functions.items():
        scope = _Scope(function, translating)
        for node in ast.walk(function):
            if _is_tr_call(node):
                assert isinstance(node, ast.Call)
                if any(k.arg and scope.translated(k.value) for k in node.keywords):
                    flagged.add(key.split(":")[1])
    assert flagged == {"direct", "through_a_name", "through_a_function"}


def test_no_call_site_passes_a_translation_as_a_placeholder_value() -> None:
    found = list(fragments())
    _walked.cache_clear()  # (the source's trees, no longer needed)
    assert not found, "give each case a whole sentence in the catalog:\n" + "\n".join(found)
