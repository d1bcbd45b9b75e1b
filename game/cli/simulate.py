"""``python -m game simulate`` (placeholder until the AI players land)."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--variant", required=True)


def run(args: argparse.Namespace) -> int:
    raise SystemExit("simulate: not yet available")
