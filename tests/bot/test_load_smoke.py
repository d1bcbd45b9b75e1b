"""The load benchmark still runs: two small games against a real ``python -m bot`` subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KEYS = (
    "settings", "games_finished", "interactions", "actions", "actions_per_s",
    "latency_p50_ms", "latency_p99_ms", "latency_max_ms", "answers_over_3s",
    "failed_interactions", "errors", "rss_idle_mb", "memory_per_game_kb",
)


@pytest.mark.slow  # a benchmark run in a subprocess
def test_benchmark_prints_its_figures() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bot_load.py"), "--games", "2",
         "--seconds", "20", "--actions-per-game", "12"],
        capture_output=True, text=True, cwd=ROOT, timeout=60, check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    figures = dict(line.split(None, 1) for line in done.stdout.splitlines() if line.strip())
    missing = [key for key in KEYS if key not in figures]
    assert not missing, done.stdout
    assert "games=2" in figures["settings"]
    assert int(figures["actions"]) >= 2, "both games got past the lobby and played"
    assert int(figures["interactions"]) > int(figures["actions"]), "hands were opened too"
    assert figures["errors"].strip() == "0" and figures["failed_interactions"].strip() == "0"
    assert float(figures["rss_idle_mb"]) > 0
