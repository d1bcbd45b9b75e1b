"""How long ``python -m bot sandbox`` takes to start: from the command to the page served and
the bot ready (its commands synced, logged in), the moment it prints its address.

    .venv/bin/python benchmarks/sandbox_start.py [--runs 5]

Prints each run and the median (and the time Ctrl-C takes to stop it all); asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def one_run() -> tuple[float, float]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("LAMA_") and k != "DISCORD_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "bot", "sandbox", "--port", str(free_port())], cwd=ROOT,
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
    )
    assert process.stdout is not None
    line = process.stdout.readline().decode()
    match = re.search(r"http://127\.0\.0\.1:\d+", line)
    if not match:
        process.kill()
        raise SystemExit(f"the sandbox did not start: {line!r}")
    with urllib.request.urlopen(match[0], timeout=10) as page:
        assert page.status == 200
    ready = time.perf_counter() - start
    stopping = time.perf_counter()
    process.send_signal(signal.SIGINT)
    process.wait(timeout=30)
    return ready, time.perf_counter() - stopping


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    one_run()  # warm up: bytecode caches, the disk cache
    starts, stops = [], []
    for i in range(args.runs):
        ready, stop = one_run()
        starts.append(ready)
        stops.append(stop)
        print(f"run {i + 1}: ready in {ready:.2f} s, stopped in {stop:.2f} s")
    print(f"median start: {statistics.median(starts):.2f} s (goal < 5 s); "
          f"median stop: {statistics.median(stops):.2f} s")


if __name__ == "__main__":
    main()
