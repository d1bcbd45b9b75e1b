"""The measured bot processes: start, pin, stop, and read their CPU and memory from /proc."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import os
import signal
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "fake.bot-load-benchmark"
PR_SET_PDEATHSIG = 1
CORES = sorted(os.sched_getaffinity(0))  # before pinning ourselves: each run pins anew


SPEEDUPS = ("orjson", "uvloop")


def leave_out(workdir: Path, modules: tuple[str, ...]) -> str:
    """A directory that, first on PYTHONPATH, makes importing each of ``modules`` fail."""
    if not modules:
        return ""
    hidden = workdir / "left-out"
    hidden.mkdir(exist_ok=True)
    for name in modules:
        (hidden / f"{name}.py").write_text(
            f'raise ModuleNotFoundError("{name} left out by bot_load")\n')
    return str(hidden)


def rss_kb(pid: int | list[int]) -> int:
    if isinstance(pid, list):
        return sum(rss_kb(p) for p in pid)
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


def cpu_seconds(pid: int | list[int]) -> float:
    """CPU time of the whole tree under ``pid`` (or each of a list): every live process under
    it (the AI pool's workers too), plus what its children that ended had used."""
    roots = pid if isinstance(pid, list) else [pid]
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    reaped: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            child = int(stat.parent.name)
            parents[child] = int(fields[1])
            ticks[child] = int(fields[11]) + int(fields[12])  # utime, stime
            reaped[child] = int(fields[13]) + int(fields[14])  # cutime, cstime
    family, grew = set(roots), True
    while grew:
        more = {p for p, parent in parents.items() if parent in family} - family
        family |= more
        grew = bool(more)
    total = sum(ticks.get(p, 0) + reaped.get(p, 0) for p in family)
    return total / os.sysconf("SC_CLK_TCK")


def main_thread_seconds(pid: int | list[int]) -> float:
    """CPU time of the main thread of ``pid`` (or each of a list): the event loop's share of
    :func:`cpu_seconds`, the rest being worker threads (pictures, SQLite) and processes."""
    total = 0
    for root in pid if isinstance(pid, list) else [pid]:
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = Path(f"/proc/{root}/task/{root}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def runqueue_seconds(pid: int | list[int], children: bool = True) -> float:
    """Time the threads of ``pid`` (and its children) spent runnable but waiting for a CPU
    (``/proc/*/task/*/schedstat``): on a shared machine, what the others cost the bot."""
    roots = pid if isinstance(pid, list) else [pid]
    family = set(roots)
    for stat in Path("/proc").glob("[0-9]*/stat") if children else ():
        with contextlib.suppress(OSError, ValueError, IndexError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) in family:
                family.add(int(stat.parent.name))
    waited = 0
    for p in family:
        for sched in Path(f"/proc/{p}/task").glob("*/schedstat"):
            with contextlib.suppress(OSError, ValueError, IndexError):
                waited += int(sched.read_text().split()[1])
    return waited / 1e9


def die_with_parent() -> None:
    """In the child: get SIGTERM if the benchmark dies without cleaning up."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def bot_command(args: argparse.Namespace, shard: int = 0) -> list[str]:
    """The measured process: ``python -m bot`` (through ``benchmarks.load.answer_trace`` only
    with ``--trace``), or the minimal bot."""
    if getattr(args, "bot", "lama") == "baseline":
        return [sys.executable, str(ROOT / "benchmarks" / "load" / "baseline.py")]
    shards = ["--shard-count", str(args.processes), "--shard-ids", str(shard),
              "--processes", str(args.processes)] + (  # (as bot.cluster: each its share)
        ["--no-sync"] if shard else []) if args.processes > 1 else []
    profile = os.environ.get("BOT_LOAD_PROFILE")  # a cProfile of the bot, written at exit
    traced = getattr(args, "trace", False) and args.processes == 1
    module = getattr(args, "bot_module", None) or (  # (benchmarks/memory.py's probe)
        "benchmarks.load.answer_trace" if traced else "bot")
    return [sys.executable, *(["-m", "cProfile", "-o", profile] if profile else []),
            "-m", module, *shards]


async def start_bot(
    port: int, workdir: Path, args: argparse.Namespace, shard: int = 0, db: str | None = None
) -> asyncio.subprocess.Process:
    """``python -m bot`` (or, with ``args.bot == "baseline"``, the minimal bot) on the fake."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAMA_")}
    url = f"http://127.0.0.1:{port}"
    baseline = getattr(args, "bot", "lama") == "baseline"
    # left out: discord.py as `pip install discord.py` gives it for the baseline (no orjson,
    # no uvloop); for lama, what --without names (to measure what a speed-up saves)
    hidden = leave_out(workdir, (() if getattr(args, "baseline_speedups", False) else SPEEDUPS)
                       if baseline else tuple(args.without or ()))
    env.update({
        "PYTHONPATH": os.pathsep.join(filter(None, [hidden, str(ROOT),
                                                    os.environ.get("PYTHONPATH")])),
        "DISCORD_TOKEN": TOKEN, "LAMA_DB": str(Path(args.db_dir or workdir) / "lama.db"),
        "LAMA_SEED": args.seed, "LAMA_AI_DELAY": "0", "LAMA_GUILD_READY_TIMEOUT": "0.1",
        "LAMA_DISCORD_URL": url, "LAMA_LOG_LEVEL": "WARNING",
        "LAMA_IDENTIFY_WINDOW": "0", "BASELINE_URL": url,
        "BASELINE_PER_SECOND": str(getattr(args, "baseline_per_second", 40.0)),
        "BASELINE_IMAGES": getattr(args, "images", "on"),
    })
    if db:
        env["LAMA_DB"] = db
    if getattr(args, "metrics", None) and not baseline:
        env["LAMA_METRICS_ADDR"] = args.metrics
    command = bot_command(args, shard)
    if "benchmarks.load.answer_trace" in command:
        env["LAMA_TRACE_FILE"] = str(workdir / f"trace-{shard}.json")
    log = (workdir / "bot.log").open("ab")
    return await asyncio.create_subprocess_exec(
        *command, cwd=workdir, env=env,
        stdin=asyncio.subprocess.DEVNULL, stdout=log, stderr=log, preexec_fn=die_with_parent,
    )


async def stop_bot(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        process.send_signal(signal.SIGINT)
        try:
            await asyncio.wait_for(process.wait(), 15)
        except TimeoutError:
            process.kill()
            await process.wait()


def pin(bot_pid: int) -> str:
    cores = CORES
    if len(cores) < 2:
        return f"not pinned (only core {cores} available)"
    os.sched_setaffinity(bot_pid, {cores[0]})
    return f"bot on core {cores[0]}, fake + players on any core"
