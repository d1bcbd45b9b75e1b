"""The load benchmark still runs: a few small games against ``python -m bot`` and the baseline.

Two benchmark runs (each starts bots and a fake): one on the benchmark's defaults, lama traced
(``--trace`` changes only how lama is started, so one run shows both the JSON and where the
answers' time went), and one with everything turned off that can be.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SMALL = ["--games", "2", "--seconds", "15", "--actions-per-game", "8", "--think-mean", "0.05",
         "--no-store", "--no-pin"]
"""A few small games; ``--no-pin``: the suite's other workers keep both cores busy, and a bot
pinned to one of them waited its turn there (the JSON run took 12 s on a quiet machine, up to
34 s in a whole suite)."""
JSON_KEYS = (
    "cpu_ms_per_move", "baseline_cpu_ms_per_move", "ratio_to_baseline", "rest_calls_per_move",
    "moves_per_second", "p50_ms", "p99_ms", "max_ms", "over_3s", "table_lag_p95_ms",
    "table_lag_p95_ms_steady", "bucket_wait_ms_per_move", "pacing", "memory_kb_per_game",
)


def bench(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bot_load.py"), *SMALL, *args],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.slow  # two bot processes in a subprocess
def test_json_has_every_figure_for_both_bots_and_the_trace(
    capsys: pytest.CaptureFixture[str],
) -> None:
    figures = json.loads(bench("--json", "--trace", "--baseline-first"))
    missing = [key for key in JSON_KEYS if key not in figures]
    assert not missing, figures
    assert figures["pacing"] is True, "the fake paces like Discord by default"
    lama, baseline = figures["runs"]
    assert (lama["bot"], baseline["bot"]) == ("lama", "baseline"), \
        "measured baseline first (--baseline-first), printed in the usual order"
    assert (baseline["measured"], lama["measured"]) == (1, 2)
    assert (figures["games_played"], figures["baseline_games_played"]) == (2, 2), \
        "both bots played every game, so their CPU per move is on the same load"
    assert (figures["games_failed"], figures["baseline_games_failed"]) == (0, 0)
    assert figures["baseline_per_second"] == 40, "the baseline keeps the global limit"
    for run in (lama, baseline):
        assert run["games_failed"] == 0 and run["errors"] == 0, run
        assert sum(run["games_by_outcome"].values()) == 2, run
        assert run["answers_timed_by_harness_clock"] == 0, "the fake stamped every answer"
        assert run["fake_gc_collections_by_generation"][2] == 0, \
            "the harness made no full collection while it measured"
        assert run["failed_interactions"] == 0, run
        assert run["human_moves"] >= 2, f"both games got past the lobby and played: {run}"
        assert run["cpu_ms_per_move"] > 0 and run["rest_calls_per_move"] > 0, run
        assert 0 < run["turn_wait_p50_ms"] <= run["turn_wait_p90_ms"], \
            f"every move after the first waited for the next to be playable: {run}"
    assert lama["uploads_per_move"] > 0 and baseline["uploads_per_move"] > 0, \
        "pictures on by default, as on a server: both bots upload hand pictures"
    for run in (lama, baseline):
        assert run["p99_ms_my_hand_to_picture"] > 0, f"each My hand's picture was timed: {run}"
        assert 0 < run["p99_ms_moves"] <= run["max_ms_moves"] <= run["max_ms"], \
            f"the moves are timed apart, among every answer timed: {run}"
        assert run["lobbies_opened_over_s"] < 1.0, f"no --stagger: both lobbies at once: {run}"
        assert run["max_ms_steady"] <= run["max_ms"], run
    assert figures["ratio_to_baseline"] == round(
        lama["cpu_ms_per_move"] / baseline["cpu_ms_per_move"], 2)
    # --trace: lama (only) ran under benchmarks/load/answer_trace.py, and the run says where
    # the answers' time went, as the table prints it
    assert "answer_trace" in lama and "answer_trace" not in baseline
    from benchmarks.bot_load import print_trace

    print_trace(lama["answer_trace"])
    out = capsys.readouterr().out
    assert "answer trace (play answers after the burst; ms):" in out, out
    for segment in ("bot: store: statements + commit", "wire + fake loop: answer reaches the fake",
                    "bot_loop: lag_over_1ms", "bot_heap_at_end: {'rss_kb'",
                    "unreachable_found"):
        assert segment in out, out


@pytest.mark.slow
def test_the_table_prints_a_run_without_pacing_or_a_speed_up() -> None:
    out = bench("--pacing", "0", "--without", "uvloop", "--no-baseline", "--images", "off",
                "--stagger", "2")
    rows = dict(line.split(None, 1) for line in out.splitlines()[1:] if line.strip())
    assert "stagger=2s" in out.splitlines()[0], out
    assert float(rows["lobbies_opened_over_s"]) >= 1.0, \
        f"--stagger 2: the second of two games opened its lobby a second after the first: {out}"
    assert rows["bot"].split(" | ") == ["lama"]
    assert "pacing=off" in out.splitlines()[0] and "lama_without=uvloop" in out.splitlines()[0]
    assert int(rows["human_moves"]) >= 2 and rows["errors"].strip() == "0", out
    assert float(rows["uploads_per_move"]) == 0, "--images off: text only"
    for key in ("cpu_ms_per_move", "p99_ms", "table_lag_p95_ms", "load_average",
                "games_played", "games_failed", "p99_ms_click_to_player_resumed"):
        assert key in rows, out


def test_the_bot_is_traced_only_when_asked() -> None:
    """``--trace`` wraps the bot in benchmarks/load/answer_trace.py; by default the benchmark
    measures ``python -m bot`` itself."""
    sys.path.insert(0, str(ROOT))
    from benchmarks.bot_load import parse
    from benchmarks.load.procs import bot_command

    plain = parse([])
    assert plain.trace is False
    assert plain.images == "on", "the benchmark runs on the bot's defaults: pictures on"
    assert bot_command(argparse.Namespace(**vars(plain), bot="lama"))[-2:] == ["-m", "bot"]
    traced = bot_command(argparse.Namespace(**vars(parse(["--trace"])), bot="lama"))
    assert traced[-2:] == ["-m", "benchmarks.load.answer_trace"]
    baseline = bot_command(argparse.Namespace(**vars(parse(["--trace"])), bot="baseline"))
    assert baseline[-1].endswith("baseline.py"), "the baseline is never traced"
