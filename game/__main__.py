"""Replay a game record, simulate games between AIs, or play one in the terminal.

The rules are in docs/rules.md; the record format and the replay exit codes in
docs/record.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from game.errors import MalformedRecord
from game.record import error_document, loads, replay


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m game", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    replay_cmd = commands.add_parser("replay", help="replay a game record, print its summary")
    replay_cmd.add_argument("record", help="a record file, or - for standard input")

    from game.cli import play, simulate

    simulate.add_arguments(
        commands.add_parser("simulate", help="play AI-only games and print statistics")
    )
    play.add_arguments(commands.add_parser(
        "play", help="play a game in the terminal vs AIs",
        description="Play one game against AIs, at seat 1. During the game type help for the "
        "commands and rules for the rules; Ctrl-C or Ctrl-D leaves.",
    ))

    args = parser.parse_args(argv)
    if args.command == "replay":
        return run_replay(args.record)
    if args.command == "simulate":
        return simulate.run(args)
    return play.run(args)


def run_replay(path: str) -> int:
    """The replay contract of docs/record.md: print one summary, exit 0, 2 or 3."""
    try:
        if path == "-":
            text = sys.stdin.buffer.read().decode("utf-8")
        else:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        print(json.dumps(error_document(MalformedRecord(f"cannot read {path}: {exc}"))))
        return 2
    try:
        record = loads(text)
    except MalformedRecord as exc:
        print(json.dumps(error_document(exc), ensure_ascii=False))
        return 2
    result = replay(record)
    print(json.dumps(result.summary(), ensure_ascii=False))
    return result.exit_code


if __name__ == "__main__":
    sys.exit(main())
