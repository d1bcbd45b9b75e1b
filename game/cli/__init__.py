"""The terminal commands of ``python -m game`` other than replay, and what they share."""

from __future__ import annotations

import argparse


def add_option_arguments(parser: argparse.ArgumentParser) -> None:
    """``--option KEY=VALUE`` (repeatable), and the parser kept for ``parser.error``."""
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a rule-set option, e.g. target=40 or rounds=4",
    )
    parser.set_defaults(_parser=parser)


def parse_options(pairs: list[str]) -> dict[str, int]:
    """``["target=40"]`` -> ``{"target": 40}``; ``ValueError`` naming the bad pair."""
    options: dict[str, int] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key or not value.strip().lstrip("-").isdigit():
            raise ValueError(f"option {pair!r} is not KEY=INTEGER")
        options[key.strip()] = int(value)
    return options
