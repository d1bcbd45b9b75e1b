"""What users read never points outside the project: no spec file names, no issue numbers.

The project stands alone: its rules are docs/rules.md, its record format docs/record.md.
Checked here: every ``python -m game`` help text, what the terminal game prints for
``help`` and ``rules``, every msgid and msgstr of every catalog (all the bot says), the
README and every page under docs/.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.catalog import Message

from bot.catalog import read
from bot.words.i18n import LANGUAGES, translator
from cogs.rules_text import rules_paragraphs
from game import variant_names
from game.__main__ import main
from tests.game_ai.test_cli import run_game

ROOT = Path(__file__).resolve().parents[1]
INTERNAL = re.compile(
    r"\b(?:RULES|RECORD|ARCHITECTURE|DISCORD-WIRE)\.md\b"  # the outside specs (docs/ is lowercase)
    r"|shared/|\bspecs?/"
    r"|(?i:\bissues?\s*#?\s*\d+|\bissue\d)"
)


def internal(text: str) -> list[str]:
    return [m.group(0) for m in INTERNAL.finditer(text)]


def test_the_pattern_finds_what_it_must() -> None:
    assert internal("see RULES.md §2") == ["RULES.md"]
    assert internal("in shared/spec/") == ["shared/", "spec/"]
    assert internal("(RECORD.md, issue 2)") == ["RECORD.md", "issue 2"]
    assert internal("--seed issue2; Issue #9") == ["issue2", "Issue #9"]
    assert internal("the full rules: docs/rules.md and docs/record.md") == []


@pytest.mark.parametrize("command", [[], ["replay"], ["simulate"], ["play"]])
def test_help_texts(command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main([*command, "--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert "usage: python -m game" in text
    assert internal(text) == []


def test_the_terminal_games_help_and_rules() -> None:
    for variant in ("classic", "kadabra", "dice", "tutorial"):
        done = run_game("play", "--variant", variant, "--seed", "1", stdin="help\nrules\n")
        assert "The full rules" in done.stdout
        assert internal(done.stdout) == [], variant


def strings(message: Message) -> list[str]:
    ids = message.id if isinstance(message.id, tuple) else (message.id,)
    texts = message.string if isinstance(message.string, tuple) else (message.string,)
    return [t for t in (*ids, *texts) if t]


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_catalog_text(language: str) -> None:
    catalog = read(language)
    found = {text: hits for m in catalog if m.id for text in strings(m) if (hits := internal(text))}
    assert found == {}


@pytest.mark.parametrize("language", LANGUAGES)
def test_lama_rules_says_where_the_full_rules_are(language: str) -> None:
    tr = translator(language)
    for variant in variant_names():
        last = rules_paragraphs(tr, variant)[-1]
        assert "docs/rules.md" in last and "{" not in last
        assert (ROOT / "docs" / "rules.md").is_file()


DOCS = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").rglob("*.md"))]


def test_the_docs_pages_are_all_checked() -> None:
    assert {"README.md", "docs/rules.md", "docs/record.md", "docs/performance.md",
            "docs/operations.md", "docs/testing.md"} <= set(DOCS)


@pytest.mark.parametrize("path", DOCS)
def test_readme_and_docs(path: str) -> None:
    text = (ROOT / path).read_text(encoding="utf-8")
    assert internal(text) == [], path
