"""The repository itself: no merge left its conflict markers in a tracked file."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKER = re.compile(r"^(<{7} |>{7} |={7}$)", re.MULTILINE)


def test_no_tracked_file_holds_a_conflict_marker() -> None:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    marked = []
    for name in files:
        path = ROOT / name
        if not path.is_file() or path.suffix in {".png", ".db", ".ttf"}:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if MARKER.search(text):
            marked.append(name)
    assert not marked, f"conflict markers left in {marked}"
