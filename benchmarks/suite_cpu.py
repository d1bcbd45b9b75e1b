"""The CPU a command really costs, children and grandchildren included: the test suite's.

``/usr/bin/time`` counts only the processes waited for; the suite's Chromium, its playwright
driver, the PostgreSQL server (run as another user) and the bots that a forked launcher starts
are not all waited for by pytest, and were missed. Here the command runs in a cgroup of its
own (cgroup v1's ``cpuacct`` or v2's ``cpu.stat``; needs root), so every process it starts is
counted, whoever reaps it. Prints the wall time, the cgroup's CPU (user + system) and the load
average at start and end; ``--by-process`` also samples each process's CPU every 0.25 s and
prints it by kind (what a process used in its last quarter second before it ended is missed)::

    python benchmarks/suite_cpu.py -- bash scripts/test
    python benchmarks/suite_cpu.py --by-process -- .venv/bin/python -m pytest -n 4 --dist worksteal
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import os
import re
import subprocess
import sys
import time
from pathlib import Path

V1 = Path("/sys/fs/cgroup/cpuacct")
V2 = Path("/sys/fs/cgroup/unified")
KINDS = (  # (pattern in the command line, kind), first match wins
    (r"chromium.*--type=([a-z-]+)", "chromium {}"),
    (r"chromium", "chromium (browser)"),
    (r"playwright/driver", "playwright's node driver"),
    (r"tests\.forkserver", "fork servers and the bots forked from them"),
    (r"postgres|pg_ctl|initdb", "postgresql"),
    (r"import sys;exec\(eval", "pytest workers"),
    (r"pytest", "pytest (main)"),
    (r"-m bot( |$)|-m bot --", "python -m bot, started in full"),
)


def new_group() -> tuple[Path, str]:
    """A fresh cgroup and the file its CPU is read from."""
    name = f"lama-suite-cpu-{os.getpid()}"
    for root, usage in ((V1, "cpuacct.usage"), (V2, "cpu.stat")):
        if (root / "cgroup.procs").exists():
            group = root / name
            try:
                group.mkdir()
            except OSError:
                continue
            return group, usage
    sys.exit("no writable cgroup (cpuacct or cgroup v2): run as root on Linux")


def cpu_seconds(group: Path, usage: str) -> float:
    text = (group / usage).read_text()
    if usage == "cpuacct.usage":
        return int(text) / 1e9
    return int(re.search(r"usage_usec (\d+)", text)[1]) / 1e6  # type: ignore[index]


def kind(command: str) -> str:
    for pattern, label in KINDS:
        found = re.search(pattern, command)
        if found:
            return label.format(*found.groups())
    return command[:60]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--by-process", action="store_true", help="CPU by kind of process")
    parser.add_argument("command", nargs="+", help="the command (after --)")
    args = parser.parse_args(argv)
    group, usage = new_group()
    procs = group / "cgroup.procs"
    load0, start = os.getloadavg()[0], time.monotonic()
    child = subprocess.Popen(args.command, preexec_fn=lambda: procs.write_text(str(os.getpid())))
    ticks: dict[str, int] = {}
    names: dict[str, str] = {}
    while child.poll() is None:
        if args.by_process:
            for pid in procs.read_text().split():
                with contextlib.suppress(OSError, IndexError, ValueError):
                    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                    ticks[pid] = max(ticks.get(pid, 0), int(fields[11]) + int(fields[12]))
                    names[pid] = Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
        time.sleep(0.25)
    wall = time.monotonic() - start
    load1 = os.getloadavg()[0]
    for _ in range(50):  # what the command left behind (a server stopping) still counts
        if not procs.read_text().split():
            break
        time.sleep(0.1)
    cpu = cpu_seconds(group, usage)
    print(f"exit {child.returncode}, wall {wall:.1f} s, CPU {cpu:.1f} s (user + system, every "
          f"process), load average {load0:.2f} -> {load1:.2f}")
    if args.by_process:
        by_kind: collections.Counter[str] = collections.Counter()
        for pid, used in ticks.items():
            by_kind[kind(names.get(pid, "?"))] += used / os.sysconf("SC_CLK_TCK")
        for label, seconds in by_kind.most_common(15):
            print(f"  {seconds:7.1f} s  {label}")
    with contextlib.suppress(OSError):
        group.rmdir()
    return child.returncode


if __name__ == "__main__":
    sys.exit(main())
