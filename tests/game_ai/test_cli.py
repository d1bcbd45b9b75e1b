"""``python -m game simulate`` and ``python -m game play``, run as real processes."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from game import Game, loads, replay, summary
from game.ai import Player
from game.cli.simulate import play_one
from tests import forkserver

ROOT = Path(__file__).resolve().parents[2]
TIMING = {"seconds", "games_per_second", "actions_per_second"}


def run_game(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    return forkserver.run(  # a real process, forked from tests/forkserver.py
        "-m", "game", *args, input=stdin, text=True, cwd=ROOT, env=env, timeout=60)


def simulate(*args: str) -> dict[str, object]:
    done = run_game("simulate", *args)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1
    return json.loads(lines[0])


def test_simulate_prints_the_statistics_and_is_deterministic() -> None:
    args = ("--variant", "kadabra", "--players", "3", "--games", "25", "--seed", "d")
    first, second = simulate(*args), simulate(*args)
    for key in (
        "games",
        "actions",
        "seconds",
        "games_per_second",
        "actions_per_second",
        "wins_by_seat",
        "win_rate_by_seat",
        "average_points_by_seat",
    ):
        assert key in first
    assert first["games"] == 25
    assert len(first["wins_by_seat"]) == 3
    assert sum(first["wins_by_seat"]) >= 25  # every game has a winner; ties count for each
    assert {k: v for k, v in first.items() if k not in TIMING} == {
        k: v for k, v in second.items() if k not in TIMING
    }
    other = simulate("--variant", "kadabra", "--players", "3", "--games", "25", "--seed", "e")
    assert other["actions"] != first["actions"]


def test_simulate_records_replay_to_the_same_result(tmp_path: Path) -> None:
    stats = simulate(
        "--variant",
        "dice",
        "--games",
        "5",
        "--seed",
        "r",
        "--records",
        str(tmp_path),
        "--ai",
        "heuristic",
        "--ai",
        "random",
        "--ai",
        "random",
        "--ai",
        "random",
    )
    files = sorted(tmp_path.glob("game-*.json"))
    assert [f.name for f in files] == [f"game-{i:05d}.json" for i in range(1, 6)]
    total_actions = 0
    for index, path in enumerate(files):
        result = replay(loads(path.read_text(encoding="utf-8")))
        assert result.exit_code == 0
        assert result.game.finished
        original, _ = play_one("dice", ["heuristic", "random", "random", "random"], {}, "r", index)
        assert result.summary() == summary(original)
        total_actions += len(result.game.history)
    assert total_actions == stats["actions"]


def test_simulate_one_ai_per_seat() -> None:
    stats = simulate(
        "--variant",
        "classic",
        "--games",
        "40",
        "--seed",
        "p",
        "--ai",
        "heuristic",
        "--ai",
        "random",
        "--ai",
        "random",
        "--players",
        "3",
    )
    wins = stats["wins_by_seat"]
    assert isinstance(wins, list)
    assert wins[0] > max(wins[1:])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--variant", "nope"), "unknown variant 'nope'"),
        (("--variant", "classic", "--ai", "nobody"), "unknown AI 'nobody'"),
        (("--variant", "classic", "--ai", "random", "--ai", "random"), "--ai given 2 times"),
        (("--variant", "classic", "--players", "9"), "--players must be 2 to 6"),
        (("--variant", "classic", "--option", "rounds=3"), "unknown option 'rounds'"),
        (("--variant", "classic", "--option", "target"), "not KEY=INTEGER"),
    ],
)
def test_simulate_refuses_bad_arguments(args: tuple[str, ...], message: str) -> None:
    done = run_game("simulate", *args, "--games", "1")
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stdout == ""


@pytest.mark.parametrize(
    ("variant", "option"),
    [
        ("classic", "target=10"),
        ("kadabra", "target=10"),
        ("dice", "target=10"),
        ("tutorial", "rounds=2"),
    ],
)
def test_play_reaches_the_end_on_piped_choices(variant: str, option: str) -> None:
    done = run_game(
        "play",
        "--variant",
        variant,
        "--seed",
        "7",
        "--players",
        "3",
        "--option",
        option,
        stdin="1\n" * 2000,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    assert "Game over. Final standings:" in done.stdout
    assert "Winners: " in done.stdout
    assert "Your hand:" in done.stdout
    assert "Round 1 over:" in done.stdout
    assert "\033[" not in done.stdout  # a pipe gets no colour


def test_play_takes_action_text_and_explains_bad_input() -> None:
    done = run_game("play", "--variant", "classic", "--seed", "7", stdin="banana\n99\nquit\n")
    assert done.stdout.count("Not a choice: 'banana'") == 1
    assert "Not a choice: '99'" in done.stdout
    assert "You quit the round" in done.stdout


def test_play_end_of_input_exits_cleanly() -> None:
    done = run_game("play", "--variant", "dice", "--seed", "7", stdin="")
    assert done.returncode == 1
    assert "End of input" in done.stdout
    assert "Traceback" not in done.stderr


def test_play_refuses_a_name_taken_by_an_ai() -> None:
    done = run_game("play", "--variant", "dice", "--players", "3", "--name", "heuristic-3")
    assert done.returncode == 2
    assert "--name must be set and differ from heuristic-2, heuristic-3" in done.stderr


def test_play_refuses_an_unknown_variant() -> None:
    done = run_game("play", "--variant", "poker")
    assert done.returncode == 2
    assert "unknown variant 'poker'" in done.stderr


def test_simulate_rotate_prints_a_tournament_table() -> None:
    done = run_game(
        "simulate",
        "--variant",
        "classic",
        "--games",
        "3",
        "--seed",
        "t",
        "--rotate",
        "--ai",
        "heuristic",
        "--ai",
        "random",
        "--ai",
        "random",
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("classic, 3 players, 3 deals x 3 line-ups (seats rotated) = 9 games")
    rows = {line.split()[0]: line.split() for line in lines[2:] if line.split()}
    # label, seats, games, wins, win rate, average points (then decision times)
    assert rows["heuristic"][1:3] == ["1", "9"]
    assert rows["random"][1:3] == ["2", "18"]
    wins = int(rows["heuristic"][3]) + int(rows["random"][3])
    assert wins >= 9  # every game has a winner (a shared win counts for each)


def test_tournament_plays_the_same_deals_for_every_line_up(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from game.cli import tournament

    openings: list[tuple[str, str]] = []
    real_play = tournament.play_timed

    def spy(game: Game, players: list[Player], times: list[list[float]]) -> None:
        assert game.round_opening is not None
        openings.append((str(game.seed), game.round_opening.token))
        real_play(game, players, times)

    monkeypatch.setattr(tournament, "play_timed", spy)
    tournament.run_tournament("kadabra", ["heuristic", "random"], {}, "s", 4, None, io.StringIO())
    assert len(openings) == 8
    assert openings[0::2] == openings[1::2]  # both rotations of a deal: same seed, same deal
    assert len({seed for seed, _ in openings}) == 4
