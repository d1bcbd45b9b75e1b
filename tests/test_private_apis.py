"""No private attribute of aiosqlite is touched by lama's code: only its public API, so a new
release cannot break the store silently (and no upper pin is held for an internal).

The names are read from the installed aiosqlite itself (its connection's and cursor's
attributes that start with one underscore); every ``x._name`` in the project's source is
checked against them, ``self._name`` and ``cls._name`` excepted (a class's own attributes).
Should an internal ever be truly unavoidable, it goes in one small adapter module named
``*compat*.py``, pinned, with a test that names the pin when the internal changes.
"""

from __future__ import annotations

import ast
import asyncio
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import aiosqlite

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("bot", "cogs", "game", "fakediscord", "benchmarks", "scripts", "tests")


def aiosqlite_private_names() -> set[str]:
    """Single-underscore attributes of aiosqlite's connection and cursor (classes and live
    instances: some are set in ``__init__``)."""

    async def live() -> set[str]:
        db = await aiosqlite.connect(":memory:")
        try:
            cursor = await db.cursor()
            names = set(vars(db)) | set(vars(cursor))
            await cursor.close()
            return names
        finally:
            await db.close()

    names = asyncio.run(live()) | set(dir(aiosqlite.Connection)) | set(dir(aiosqlite.Cursor))
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def private_uses(source: str, private: set[str]) -> Iterator[tuple[int, str]]:
    """``(line, name)`` of every ``x._name`` with ``_name`` in ``private``, but
    ``self._name`` / ``cls._name``.

    Only a source that holds one of the names as a whole word is parsed (3 of the project's
    300 files: parsing them all took seconds). A source with a letter that Python's NFKC
    normalisation of names turns into ASCII letters or digits (``ｃ``, ``ﬁ``) is always
    parsed: its names may differ from its words.
    """
    words = rf"(?<!\w)(?:{'|'.join(map(re.escape, sorted(private)))})(?!\w)"
    if not re.search(words, source) and not any(
            ord(c) > 127 and re.search(r"\w", unicodedata.normalize("NFKC", c), re.ASCII)
            for c in set(source)):
        return
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Attribute) and node.attr in private
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))):
            yield node.lineno, node.attr


def test_no_code_touches_a_private_attribute_of_aiosqlite() -> None:
    private = aiosqlite_private_names()
    assert private, "no private names read from aiosqlite: the check would check nothing"
    found = [f"{path.relative_to(ROOT)}:{line}: {name}"
             for folder in FOLDERS for path in sorted((ROOT / folder).rglob("*.py"))
             if "compat" not in path.name
             for line, name in private_uses(path.read_text(encoding="utf-8"), private)]
    assert found == [], ("aiosqlite's private attributes used (reach them through its public "
                         "API, or one *compat*.py adapter pinned with a test): "
                         + "; ".join(found))


def test_the_check_finds_a_private_attribute() -> None:
    """The failing example: the store's old fallback and the trace's patch are caught; a
    class's own ``self._conn`` is not."""
    private = aiosqlite_private_names()
    source = ("job = db._execute(transaction)\nconn = store.db._conn\n"
              "aiosqlite.core.Connection._execute = timed\nself._conn = None\n")
    assert sorted(private_uses(source, private)) == [(1, "_execute"), (2, "_conn"),
                                                     (3, "_execute")]
    # a name spelt with letters Python normalises (a full-width c) is parsed, and caught;
    # a longer word holding a name is not a use of it
    assert list(private_uses("conn = store.db._\uff43onn\n", private)) == [(1, "_conn")]
    assert list(private_uses("db._connx = 1\n", private)) == []
