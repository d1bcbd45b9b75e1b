"""What people read holds together: every relative link in README.md and docs/ leads somewhere.

A link's file must exist; a ``#anchor`` must name a heading of its target as GitHub slugs it
(or an explicit ``<a id=...>``). Links to other sites are not followed (no network in tests).
The README stays a README: under 400 lines; figures and details live in docs/. Every picture
in docs/screenshots/ is one a test writes (a stale one would show what the bot no longer does).
"""

from __future__ import annotations

import ast
import os
import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README_LIMIT = 400
SCREENSHOTS = ROOT / "docs" / "screenshots"

FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.DOTALL)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.MULTILINE)
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$", re.MULTILINE)
HTML_ANCHOR = re.compile(r"<a\s+(?:[^>]*\s)?(?:id|name)=[\"']([^\"']+)[\"']", re.IGNORECASE)
EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.IGNORECASE)


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def without_code(text: str) -> str:
    """The text with fenced blocks and inline code blanked (links there are examples)."""
    text = FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return CODE_SPAN.sub("", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text lower-cased, markup and punctuation dropped
    (letters, digits, ``-`` and ``_`` kept), each space a ``-``."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text).lower()
    kept = []
    for char in text:
        if char in " -_" or unicodedata.category(char)[0] in "LNM":
            kept.append("-" if char == " " else char)
    return "".join(kept)


def anchors(path: Path) -> set[str]:
    """Every anchor a page offers: its headings' slugs (repeats numbered ``-1``, ``-2`` as
    GitHub does) and its explicit ``<a id=...>``."""
    text = path.read_text(encoding="utf-8")
    found: set[str] = set(HTML_ANCHOR.findall(text))
    seen: dict[str, int] = {}
    for match in HEADING.finditer(FENCE.sub("", text)):
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(text: str) -> list[str]:
    bare = without_code(text)
    return [*LINK.findall(bare), *REFERENCE.findall(bare)]


def broken(path: Path) -> list[str]:
    """Each relative link of ``path`` that leads nowhere, with the reason."""
    problems = []
    for target in links(path.read_text(encoding="utf-8")):
        if EXTERNAL.match(target):
            continue
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists():
            problems.append(f"{target}: no such file")
        elif anchor and linked.is_file() and linked.suffix == ".md" \
                and anchor not in anchors(linked):
            where = os.path.relpath(linked, path.parent)
            problems.append(f"{target}: no heading #{anchor} in {where}")
        elif anchor and linked.is_dir():
            problems.append(f"{target}: an anchor on a folder")
    return problems


def test_slugs_are_githubs() -> None:
    assert slug("Try it without Discord") == "try-it-without-discord"
    assert slug("1. classic: L.L.A.M.A.") == "1-classic-llama"
    assert slug("Game records and `python -m game replay`") == \
        "game-records-and-python--m-game-replay"
    assert slug("The AIs' strength") == "the-ais-strength"
    assert slug("Running as a service (systemd)") == "running-as-a-service-systemd"
    assert slug("ISMCTS against flat sampling") == "ismcts-against-flat-sampling"


def test_the_checker_finds_a_broken_link(tmp_path: Path) -> None:
    """A missing file, a missing heading and a heading counted twice are all found; a good
    link, a repeated heading's ``-1``, an explicit anchor, a web address and a link shown as
    code pass."""
    (tmp_path / "other.md").write_text("# Other\n\n## Part\n\n## Part\n\n<a id=\"here\"></a>\n",
                                       encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n## Its part\n\n"
        "[ok](other.md) [ok](other.md#part) [ok](other.md#part-1) [ok](other.md#here)\n"
        "[ok](#its-part) [ok](https://example.com/x.md) `[ok](missing.md)`\n"
        "```\n[ok](missing-in-a-block.md)\n```\n"
        "[bad](missing.md) [bad](other.md#part-2) [bad](#nowhere)\n"
        "![bad](pictures/none.png)\n",
        encoding="utf-8")
    assert broken(page) == [
        "missing.md: no such file",
        "other.md#part-2: no heading #part-2 in other.md",
        "#nowhere: no heading #nowhere in page.md",
        "pictures/none.png: no such file",
    ]


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_somewhere(path: Path) -> None:
    assert broken(path) == []


def test_the_readme_links_to_the_docs_it_sends_readers_to() -> None:
    targets = {t.partition("#")[0] for t in links((ROOT / "README.md").read_text("utf-8"))}
    for page in ("rules.md", "record.md", "play.md", "operations.md", "engine.md",
                 "testing.md", "performance.md", "development.md"):
        assert f"docs/{page}" in targets, page


def test_the_readme_stays_short() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines < README_LIMIT, f"README.md has {lines} lines; move details to docs/"


def written_names(source: str) -> list[re.Pattern[str]]:
    """The ``.png`` file names a test's source spells out: its string literals, and its
    f-strings with each placeholder as any name (``f"sandbox-{kind}-{lang}.png"``)."""
    found = []
    nodes = list(ast.walk(ast.parse(source)))
    parts = {id(part) for node in nodes if isinstance(node, ast.JoinedStr)
             for part in node.values}  # (an f-string's text parts: read with it)
    for node in nodes:
        if id(node) in parts:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            pattern = re.escape(node.value)
        elif isinstance(node, ast.JoinedStr):
            pattern = "".join(re.escape(part.value) if isinstance(part, ast.Constant)
                              else r"[\w-]+" for part in node.values)
        else:
            continue
        if pattern.endswith(r"\.png"):
            found.append(re.compile(pattern))
    return found


def test_the_names_a_test_writes_are_read_from_its_source() -> None:
    names = written_names('shot("end.png"); shoot(f"sandbox-{kind}-{lang}.png"); "x.png.txt"')
    assert [p.pattern for p in names] == [r"end\.png", r"sandbox\-[\w-]+\-[\w-]+\.png"]
    written = [name for name in ("end.png", "sandbox-hand-dice-en.png", "hand-dice.png",
                                 "x.png.txt", "sandbox-hand.png")
               if any(p.fullmatch(name) for p in names)]
    assert written == ["end.png", "sandbox-hand-dice-en.png"]


def test_every_screenshot_in_the_docs_is_written_by_a_test() -> None:
    """docs/screenshots/ holds only pictures some test writes (with
    ``LAMA_SCREENSHOTS=docs/screenshots``, docs/testing.md), so each can be made again."""
    sources = [path.read_text(encoding="utf-8") for path in sorted((ROOT / "tests").rglob("*.py"))
               if path != Path(__file__).resolve()]  # (this file's names are examples)
    patterns = [pattern for source in sources if ".png" in source  # (parsed: only these)
                for pattern in written_names(source)]
    stale = [path.name for path in sorted(SCREENSHOTS.glob("*.png"))
             if not any(p.fullmatch(path.name) for p in patterns)]
    assert not stale, f"no test writes these (make them in a test, or drop them): {stale}"
