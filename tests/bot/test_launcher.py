"""``python -m bot.cluster``: shard plan, restarts with backoff, fatal exits stop everything."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest

from bot import create_bot
from bot.__main__ import parse_args
from bot.cluster import EXIT_SETTINGS, Cluster, Member
from bot.process.budget import BURST, PER_SECOND
from fakediscord import FakeDiscord
from tests.bot.conftest import make_settings

ROOT = Path(__file__).resolve().parents[2]


def env_for(fake: FakeDiscord, tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAMA_")}
    env.pop("DISCORD_TOKEN", None)
    env.update(PYTHONPATH=str(ROOT), LAMA_DB=str(tmp_path / "lama.db"),
               LAMA_DISCORD_URL=f"http://127.0.0.1:{fake.port}", **extra)
    return env


def test_the_plan_gives_each_process_a_range_and_one_the_command_sync() -> None:
    cluster = Cluster(3, 8, env={})
    assert [m.shard_ids for m in cluster.members] == [(0, 1, 2), (3, 4, 5), (6, 7)]
    commands = [cluster.command(m) for m in cluster.members]
    assert [c[c.index("--shard-ids") + 1] for c in commands] == ["0-2", "3-5", "6-7"]
    assert ["--no-sync" in c for c in commands] == [False, True, True]
    assert all(c[c.index("--shard-count") + 1] == "8" for c in commands)


async def test_each_process_keeps_to_its_share_of_the_tokens_request_limit(
    tmp_path: Path,
) -> None:
    """Discord's global limit is per token: the launcher tells each process how many share it,
    and each process's budget is its share (three processes, a third each)."""
    cluster = Cluster(3, 8, env={})
    for member in cluster.members:
        command = cluster.command(member)
        assert command[command.index("--processes") + 1] == "3"
        overrides, _ = parse_args(command[command.index("bot") + 1:])
        bot = create_bot(make_settings(tmp_path, **overrides))
        assert bot.budget.interval == pytest.approx(3 / PER_SECOND)
        assert bot.budget.burst == max(1, BURST // 3)
        await bot.http.close()  # (never started: nothing else to stop)
    alone = create_bot(make_settings(tmp_path))
    assert alone.budget.interval == pytest.approx(1 / PER_SECOND)  # (one process: all of it)
    await alone.http.close()


def test_restart_delays_double_up_to_the_cap() -> None:
    cluster = Cluster(1, 1, backoff=1.0, max_backoff=10.0, env={})
    assert [cluster.restart_delay(n) for n in range(6)] == [0.0, 1.0, 2.0, 4.0, 8.0, 10.0]


class Crashing(Cluster):
    """Each process exits at once with code 1, like a bot that keeps crashing."""

    def command(self, member: Member) -> list[str]:
        return [sys.executable, "-c", "import sys; sys.exit(1)"]


@pytest.mark.slow  # processes started and restarted
async def test_a_crashing_process_is_restarted_with_growing_backoff(tmp_path: Path) -> None:
    async with FakeDiscord() as fake:
        cluster = Crashing(1, 1, backoff=0.01, max_backoff=0.05, identify_window=0,
                           env=env_for(fake, tmp_path), token=fake.token)
        member = cluster.members[0]
        running = asyncio.create_task(cluster.run())
        async with cluster.progress:
            await asyncio.wait_for(cluster.progress.wait_for(lambda: member.starts >= 4), 30)
        cluster.stopping.set()
        assert await asyncio.wait_for(running, 30) == 0
    assert member.exits[:3] == [1, 1, 1]
    assert member.failures_in_a_row >= 3  # none ran stably: each waited longer than the last


class Unconfigured(Cluster):
    """Each process exits at once with ``python -m bot``'s code for settings it cannot use
    (2, as without DISCORD_TOKEN: tests/bot/test_main.py checks that it does)."""

    def command(self, member: Member) -> list[str]:
        return [sys.executable, "-c", f"import sys; sys.exit({EXIT_SETTINGS})"]


@pytest.mark.slow  # processes started
async def test_a_process_refusing_its_settings_stops_the_cluster(tmp_path: Path) -> None:
    async with FakeDiscord() as fake:
        cluster = Unconfigured(2, 4, backoff=0.01, identify_window=0,
                               env=env_for(fake, tmp_path))
        code = await asyncio.wait_for(cluster.run(), 60)
    assert code == EXIT_SETTINGS
    assert sum(m.starts for m in cluster.members) <= 2, "no restart: it would not help"
    assert EXIT_SETTINGS in [code for m in cluster.members for code in m.exits]


async def test_a_start_the_days_budget_cannot_pay_for_waits_for_the_reset(
    tmp_path: Path,
) -> None:
    async with FakeDiscord(shards=4, session_starts=3) as fake:  # 4 shards need 4 IDENTIFYs
        cluster = Cluster(1, 4, identify_window=0, env=env_for(fake, tmp_path),
                          token=fake.token)
        running = asyncio.create_task(cluster.run())
        async with cluster.progress:
            await asyncio.wait_for(cluster.progress.wait_for(lambda: cluster.budget_waits), 30)
        cluster.stopping.set()
        assert await asyncio.wait_for(running, 30) == 0
        assert cluster.members[0].starts == 0 and fake.gateway.identifies == 0
