"""The load benchmark still runs: a few small games against ``python -m bot`` and the baseline."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SMALL = ["--games", "2", "--seconds", "15", "--actions-per-game", "8", "--think-mean", "0.05",
         "--no-store"]
JSON_KEYS = (
    "cpu_ms_per_move", "baseline_cpu_ms_per_move", "ratio_to_baseline", "rest_calls_per_move",
    "moves_per_second", "p50_ms", "p99_ms", "max_ms", "over_3s", "table_lag_p95_ms",
    "bucket_wait_ms_per_move", "pacing", "memory_kb_per_game",
)


def bench(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bot_load.py"), *SMALL, *args],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.slow  # two bot processes in a subprocess
def test_json_has_every_figure_for_both_bots() -> None:
    figures = json.loads(bench("--json"))
    missing = [key for key in JSON_KEYS if key not in figures]
    assert not missing, figures
    assert figures["pacing"] is True, "the fake paces like Discord by default"
    lama, baseline = figures["runs"]
    assert (lama["bot"], baseline["bot"]) == ("lama", "baseline")
    for run in (lama, baseline):
        assert run["games_failed"] == 0 and run["errors"] == 0, run
        assert run["failed_interactions"] == 0, run
        assert run["human_moves"] >= 2, f"both games got past the lobby and played: {run}"
        assert run["cpu_ms_per_move"] > 0 and run["rest_calls_per_move"] > 0, run
    assert figures["ratio_to_baseline"] == round(
        lama["cpu_ms_per_move"] / baseline["cpu_ms_per_move"], 2)


@pytest.mark.slow
def test_the_table_prints_a_run_without_pacing_or_a_speed_up() -> None:
    out = bench("--pacing", "0", "--without", "uvloop", "--no-baseline")
    rows = dict(line.split(None, 1) for line in out.splitlines()[1:] if line.strip())
    assert rows["bot"].split(" | ") == ["lama"]
    assert "pacing=off" in out.splitlines()[0] and "lama_without=uvloop" in out.splitlines()[0]
    assert int(rows["human_moves"]) >= 2 and rows["errors"].strip() == "0", out
    for key in ("cpu_ms_per_move", "p99_ms", "table_lag_p95_ms", "load_average"):
        assert key in rows, out
