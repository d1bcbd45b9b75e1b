"""Golden records: hand-computed summaries of docs/record.md records, checked in and out of process.

Each ``records/<variant>/<name>.json`` holds ``record`` (a docs/record.md record, or a string for a
text that is not JSON), the expected ``exit`` code, the ``why`` (the rule it checks) and the
``expected`` summary, worked out by hand from docs/rules.md. An expected ``error.message`` is a
fragment the real message must contain (case-insensitive): the message's wording is the
engine's, but it must name the action or the place at fault.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from game import MalformedRecord, loads, replay
from tests import forkserver

RECORDS = Path(__file__).parent / "records"
ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(RECORDS.glob("*/*.json"))


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def _text(doc: dict[str, Any]) -> str:
    record = doc["record"]
    return record if isinstance(record, str) else json.dumps(record)


def _cli_sample() -> list[Path]:
    """The first record of every (variant, exit code) pair: a few subprocess runs, not all."""
    chosen: dict[tuple[str, int], Path] = {}
    for path in FILES:
        chosen.setdefault((path.parent.name, _load(path)["exit"]), path)
    return sorted(chosen.values())


def _ident(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def _matches(actual: dict[str, Any], doc: dict[str, Any]) -> None:
    expected = doc["expected"]
    error, wanted = actual.get("error"), expected.get("error")
    if wanted is not None:
        assert isinstance(error, dict), f"expected an error, got {error!r}"
        message = error.get("message")
        assert isinstance(message, str) and message.strip(), "an error must explain itself"
        assert wanted["message"].lower() in message.lower(), (
            f"message {message!r} does not mention {wanted['message']!r}"
        )
        actual = {**actual, "error": {**error, "message": wanted["message"]}}
    assert actual == expected, doc["why"]


def test_there_are_records_for_every_rule_set() -> None:
    variants = {path.parent.name for path in FILES}
    assert variants == {"classic", "kadabra", "dice", "tutorial"}
    exits = {_load(path)["exit"] for path in FILES}
    assert exits == {0, 2, 3}


@pytest.mark.parametrize("path", FILES, ids=_ident)
def test_record_in_process(path: Path) -> None:
    doc = _load(path)
    assert doc["why"].strip()
    try:
        result = replay(loads(_text(doc)))
    except MalformedRecord as error:
        assert doc["exit"] == 2, f"{_ident(path)} was refused as malformed: {error}"
        _matches({"error": {"index": None, "code": error.code, "message": str(error)}}, doc)
        return
    assert result.exit_code == doc["exit"], result.error
    _matches(result.summary(), doc)


@pytest.mark.slow  # one python process per record
@pytest.mark.parametrize("path", _cli_sample(), ids=_ident)
def test_record_through_the_cli(path: Path) -> None:
    """docs/record.md replay: stdout is exactly one JSON object; the exit code tells the outcome."""
    doc = _load(path)
    done = forkserver.run(  # a real process, forked from tests/forkserver.py
        "-m", "game", "replay", "-", input=_text(doc).encode("utf-8"), cwd=ROOT, timeout=60)
    assert done.returncode == doc["exit"], done.stderr.decode()
    out = done.stdout.decode("utf-8")
    assert out.count("\n") == 1 and out.endswith("\n"), out
    printed = json.loads(out)
    if doc["exit"] == 2:
        assert list(printed) == ["error"], "exit 2 prints only the error (fine point 1)"
    _matches(printed, doc)


def test_cli_reads_a_record_file(tmp_path: Path) -> None:
    doc = _load(RECORDS / "classic" / "play_same_and_next_value.json")
    record_file = tmp_path / "game.json"
    record_file.write_text(_text(doc), encoding="utf-8")
    done = forkserver.run("-m", "game", "replay", str(record_file), cwd=ROOT, timeout=60)
    assert done.returncode == 0
    _matches(json.loads(done.stdout), doc)
