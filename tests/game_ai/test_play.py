"""``python -m game play`` as a person uses it: typed through standard input, read on screen."""

from __future__ import annotations

import os
import re
import selectors
import signal
import subprocess
import time
from itertools import pairwise
from pathlib import Path

import pytest

from game import Game, IllegalAction, player_view
from game.actions import play
from game.cards import ONE, Card, sort_cards
from game.rules.text import full_rules_line, rules_paragraphs
from tests import forkserver
from tests.game_ai.test_cli import ROOT, run_game

AIS = ["you", "heuristic-2", "heuristic-3"]
OPTION = re.compile(r"^  (\d+)\. (.+)$")


def option_blocks(stdout: str) -> list[list[str]]:
    """The numbered choices of every turn, in the order printed."""
    blocks: list[list[str]] = []
    current: list[str] | None = None
    for line in stdout.splitlines():
        found = OPTION.match(line)
        if line.startswith(("Your hand:", "You drew")):
            current = []
        elif found is not None and current is not None:
            current.append(found.group(2))
        elif current:
            blocks.append(current)
            current = None
    return blocks


def whole_game(variant: str, option: str, *extra: str) -> str:
    done = run_game("play", "--variant", variant, "--seed", "11", "--players", "3",
                    "--option", option, *extra, stdin="1\n" * 3000)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    return done.stdout


def waiting_in_read(pid: int) -> None:
    """Until the process sleeps (blocked reading its answer), as when a person presses Ctrl-C;
    Python runs a signal's handler only when a blocked read returns, so Ctrl-C between
    printing the prompt and reading would wait for input that never comes."""
    deadline = time.monotonic() + 60
    while Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "S":
        assert time.monotonic() < deadline, "the game never waited for input"
        os.sched_yield()


def test_ctrl_c_leaves_quietly() -> None:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    proc = forkserver.Popen(  # a real process, forked from tests/forkserver.py
        "-m", "game", "play", "--variant", "classic", "--seed", "7",
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, env=env,
    )
    assert proc.stdout is not None
    seen = b""
    with selectors.DefaultSelector() as waiting:
        waiting.register(proc.stdout, selectors.EVENT_READ)
        while b"Your choice" not in seen:  # the game waits for the player: now press Ctrl-C
            assert waiting.select(timeout=60), "no prompt within a minute"
            chunk = os.read(proc.stdout.fileno(), 65536)
            assert chunk, seen.decode()
            seen += chunk
    waiting_in_read(proc.pid)  # a signal between the prompt and the read waits for the read
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)  # stdin stays open until it exits: an end of input (communicate
    out, err = proc.communicate(timeout=60)  # closes it) must not race the signal
    assert proc.returncode == 130
    assert "Traceback" not in err.decode() and "KeyboardInterrupt" not in err.decode()
    assert "the game is abandoned" in (seen + out).decode()


def test_an_illegal_move_is_refused_with_the_rules_reason() -> None:
    for seed in range(50):
        game = Game("classic", AIS, seed=str(seed))
        view = player_view(game, 0)
        blocked = [c for c in view.hand if play(c) not in view.legal]
        if blocked:
            break
    with pytest.raises(IllegalAction) as refused:
        game.check(0, play(blocked[0]))
    reason = str(refused.value).removeprefix("you: ")
    assert "may go on" in reason  # the rule, not a generic "not allowed"
    done = run_game("play", "--variant", "classic", "--seed", str(seed), "--players", "3",
                    stdin=f"play {blocked[0]}\nplay 2/3\n")
    assert f"Refused: {reason}." in done.stdout
    assert "Refused: play 2/3 is not allowed: 2/3 is not in the hand." in done.stdout
    assert "Traceback" not in done.stderr


def test_gift_targets_use_the_seat_numbers_people_see() -> None:
    seed = next(s for s in range(500)
                if play(ONE, 2) in Game("kadabra", AIS, seed=str(s)).legal_actions())
    done = run_game("play", "--variant", "kadabra", "--seed", str(seed), "--players", "3",
                    stdin="play 1 @1\nplay 1 @4\nplay 1 @0\nplay 1 @3\n")
    out = done.stdout
    assert "You play at seat 1 of 3, against heuristic-2 and heuristic-3" in out
    assert "  [3] heuristic-3: " in out
    assert re.search(r"^  \d+\. play 1 @2 \(gives to heuristic-2\)$", out, re.M)
    assert re.search(r"^  \d+\. play 1 @3 \(gives to heuristic-3\)$", out, re.M)
    assert "Refused: play 1 to you is not allowed: you cannot give a chip to yourself." in out
    assert "There is no seat 4: seats are numbered 1 to 3." in out
    assert "There is no seat 0: seats are numbered 1 to 3." in out
    assert "You give a white chip to heuristic-3" in out


@pytest.mark.parametrize(("variant", "option"), [
    ("classic", "target=20"), ("kadabra", "target=20"), ("dice", "target=20"),
    ("tutorial", "rounds=2"),
])
def test_choices_keep_a_stable_order_plays_first_by_card(variant: str, option: str) -> None:
    blocks = option_blocks(whole_game(variant, option))
    assert len(blocks) >= 3
    for labels in blocks:
        plays = [label.split()[1] for label in labels if label.startswith("play ")]
        assert labels[: len(plays)] == [lb for lb in labels if lb.startswith("play ")], labels
        cards = [Card.parse(token) for token in plays]
        assert cards == sort_cards(cards), labels
        for last in ("quit", "stop"):
            if last in labels:
                assert labels[-1] == last, labels
        if "draw" in labels:
            assert labels.index("draw") >= len(plays), labels


def test_you_are_told_in_the_second_person() -> None:
    out = whole_game("classic", "target=15")
    assert "You play at seat 1 of 3" in out
    assert "You are you" not in out
    assert not re.search(r"\byou (starts|plays|draws|quits)\b", out, re.I), "third person"
    assert re.search(r"^  You (start|play|draw|quit)\b", out, re.M)
    named = whole_game("classic", "target=15", "--name", "Ana")
    assert "You are Ana, playing at seat 1 of 3" in named
    assert not re.search(r"\bAna (starts|plays|draws|quits)\b", named)


@pytest.mark.parametrize(("variant", "option"), [("dice", "target=20"), ("tutorial", "rounds=2")])
def test_the_end_ranks_everyone_and_says_where_you_placed(variant: str, option: str) -> None:
    out = whole_game(variant, option)
    block = out.split("Game over. Final standings:\n", 1)[1].splitlines()
    rows = [re.fullmatch(r"  (\d+)\. (.+): (-?\d+) points?", line) for line in block[:3]]
    assert all(rows), block
    places = [int(r.group(1)) for r in rows if r]
    scores = [int(r.group(3)) for r in rows if r]
    assert places == sorted(places) and places[0] == 1
    assert scores == sorted(scores, reverse=variant == "tutorial")  # tutorial: most points wins
    for a, b in pairwise(rows):
        assert (a and b) and ((a.group(1) == b.group(1)) == (a.group(3) == b.group(3)))
    mine = next(r for r in rows if r and r.group(2) == "You")
    place = int(mine.group(1))
    verdict = block[3]
    assert verdict.startswith("You won" if place == 1 else f"You placed {place}")
    assert block[4].startswith("Winners: ")


@pytest.mark.parametrize(("variant", "option"), [
    ("classic", "target=20"), ("kadabra", "target=20"), ("dice", "target=20"),
    ("tutorial", "rounds=2"),
])
def test_each_round_end_says_why_everyone_scored(variant: str, option: str) -> None:
    out = whole_game(variant, option)
    ends = re.findall(r"^Round \d+ over:\n((?:  .*\n){3})", out, re.M)
    assert ends
    for block in ends:
        for line in block.splitlines():
            assert re.fullmatch(r"  (You|heuristic-\d): [+-]\d+ \(.+\); total -?\d+", line), line


def test_rules_and_help_inside_the_game() -> None:
    done = run_game("play", "--variant", "dice", "--seed", "7", stdin="rules\nhelp\nRULES\n")
    out = done.stdout
    for paragraph in rules_paragraphs("dice"):
        assert out.count(paragraph) == 2
    assert full_rules_line() in out
    assert "play 1 @2" in out and "Ctrl-C" in out  # the help
    assert done.returncode == 1 and "End of input" in out
