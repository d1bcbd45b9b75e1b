"""``python -m bot``: one clear line and a non-zero exit when the token is missing or refused."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from bot.cluster import EXIT_SETTINGS, EXIT_TOKEN
from bot.process.settings import Settings
from fakediscord import FakeDiscord
from tests import forkserver

ROOT = Path(__file__).resolve().parents[2]


def bot_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("LAMA_") and k != "DISCORD_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    env["LAMA_DB"] = str(tmp_path / "lama.db")
    env.update(extra)
    return env


async def run_bot(
    tmp_path: Path, env: dict[str, str], drop: tuple[int, ...] = ()
) -> tuple[int, str, str]:
    """``python -m bot`` forked from the suite's fork server (tests/forkserver.py), without
    the capabilities in ``drop``: its exit code, standard output and error."""
    process = await forkserver.start("-m", "bot", cwd=tmp_path, env=env, drop=drop,
                                     stdout=forkserver.PIPE, stderr=forkserver.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


def test_env_example_lists_every_setting() -> None:
    text = (ROOT / ".env.example").read_text(encoding="utf-8")
    keys = {line.split("=", 1)[0] for line in text.splitlines() if line and line[0] != "#"}
    assert keys == {name.upper() for name in Settings.model_fields}


@pytest.mark.slow  # runs python -m bot
async def test_without_token(tmp_path: Path) -> None:
    shutil.copy(ROOT / ".env.example", tmp_path / ".env")  # the example as is: no token yet
    code, out, err = await run_bot(tmp_path, bot_env(tmp_path))
    assert code == EXIT_SETTINGS  # bot.cluster stops rather than restart it (test_launcher)
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "DISCORD_TOKEN" in lines[0] and ".env" in lines[0]
    assert "Traceback" not in err


@pytest.mark.slow  # runs python -m bot
async def test_bad_setting_is_one_line(tmp_path: Path) -> None:
    env = bot_env(tmp_path, DISCORD_TOKEN="x", LAMA_LOG_LEVEL="loud")
    code, _, err = await run_bot(tmp_path, env)
    assert code == EXIT_SETTINGS
    assert len(err.strip().splitlines()) == 1 and "LAMA_LOG_LEVEL" in err


@pytest.mark.slow  # runs python -m bot
async def test_token_from_dotenv_file_is_read(tmp_path: Path) -> None:
    async with FakeDiscord() as fake:
        (tmp_path / ".env").write_text("DISCORD_TOKEN=not-the-right-one\n", encoding="utf-8")
        env = bot_env(tmp_path, LAMA_DISCORD_URL=f"http://127.0.0.1:{fake.port}")
        code, _, err = await run_bot(tmp_path, env)
    assert code != 0
    assert err.strip().splitlines()[-1].startswith("Discord refused DISCORD_TOKEN"), err
    assert "Traceback" not in err


@pytest.mark.slow  # runs python -m bot
async def test_refused_token(tmp_path: Path) -> None:
    async with FakeDiscord() as fake:
        env = bot_env(tmp_path, DISCORD_TOKEN="wrong", LAMA_LOG_LEVEL="WARNING",
                      LAMA_DISCORD_URL=f"http://127.0.0.1:{fake.port}")
        code, out, err = await run_bot(tmp_path, env)
        assert fake.logins == 0
    assert code == EXIT_TOKEN and out == ""  # bot.cluster stops rather than restart it
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "refused DISCORD_TOKEN" in lines[0], err


def test_the_start_up_heap_leaves_the_collectors_walks() -> None:
    """``python -m bot`` freezes what start-up built once ready (bot/process/loop.py): later full
    collections walk only what the games add, and come no rarer than CPython's own (every
    10 second-generation ones): rarer, the garbage they would free piles up for hundreds of
    games (benchmarks/memory.py). Young collections come rarer than CPython's (every 700
    allocations): they walked the moves' live objects again and again."""
    import gc

    from bot.process.loop import (
        FULL_COLLECTION_EVERY,
        YOUNG_COLLECTION_EVERY,
        freeze_startup_heap,
    )

    built = [[n] for n in range(100)]  # containers: what the collector walks
    thresholds = gc.get_threshold()
    try:
        frozen = freeze_startup_heap()
        # (not ==: another thread of this worker may free a frozen object meanwhile)
        assert frozen >= len(built) and gc.get_freeze_count() >= len(built)
        walked = {id(o) for o in gc.get_objects(generation=2)}
        assert not any(id(o) in walked for o in built), "frozen, not in the oldest generation"
        assert gc.get_threshold() == (YOUNG_COLLECTION_EVERY, thresholds[1],
                                      FULL_COLLECTION_EVERY)
        assert FULL_COLLECTION_EVERY <= 10 and YOUNG_COLLECTION_EVERY > 700
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def test_the_bot_limits_its_malloc_arenas_before_its_threads_start() -> None:
    """``python -m bot`` caps glibc's malloc arenas (bot/process/loop.py): the picture
    threads' freed memory serves the whole process instead of each thread's own arena."""
    import platform

    from bot.process.loop import MALLOC_ARENAS, limit_arenas

    assert MALLOC_ARENAS <= 2
    if platform.libc_ver()[0] == "glibc":
        assert limit_arenas()


def test_the_bot_runs_on_its_speed_ups() -> None:
    """uvloop and orjson are dependencies (pyproject.toml; uvloop where it exists, not on
    Windows): ``python -m bot`` runs on uvloop's loop and discord.py writes and reads its JSON
    with orjson (about 5% of the bot's CPU a move: docs/performance.md)."""
    import sys

    import discord.utils

    from bot.process.loop import run_loop

    async def loop_module() -> str:
        return type(asyncio.get_running_loop()).__module__

    assert discord.utils.HAS_ORJSON
    if sys.platform != "win32":
        assert run_loop(loop_module()).startswith("uvloop")


class _Ready:
    """What ``freeze_when_ready`` needs of the bot: its readiness."""

    async def wait_until_ready(self) -> None:
        return None


@pytest.mark.parametrize("fails", [False, True])
async def test_the_bot_warms_up_before_it_freezes_its_start_up_heap(fails: bool) -> None:
    """``python -m bot`` loads what its first chart would (``Wiring.warm``) beside its
    login, and freezes start-up's heap once ready and warm, so what that loaded is frozen
    too; a warm-up that fails leaves the chart to load at its first use, and the heap is
    frozen all the same."""
    import gc

    from bot.__main__ import freeze_when_ready

    frozen_at_warm: list[int] = []

    async def warm() -> None:
        frozen_at_warm.append(gc.get_freeze_count())
        if fails:
            raise RuntimeError("no matplotlib")

    thresholds = gc.get_threshold()
    gc.unfreeze()
    try:
        warming = asyncio.create_task(warm())
        await freeze_when_ready(_Ready(), warming)  # type: ignore[arg-type]
        assert frozen_at_warm == [0], "warmed once, before the freeze"
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


@pytest.mark.parametrize("warm", [True, False])
async def test_the_bot_freezes_its_start_up_heap_before_connecting(warm: bool) -> None:
    """``python -m bot`` freezes what start-up built (the warm-up's too) before the gateway
    connects, so the first clicks wait for no full collection of it; a warm-up that outlives
    the wait connects unfrozen (frozen once ready, as before). Once ready, what connecting
    added is frozen too, the thresholds kept."""
    import gc

    from bot.__main__ import freeze_when_ready, settle_before_connecting
    from bot.process.loop import FULL_COLLECTION_EVERY, YOUNG_COLLECTION_EVERY

    thresholds = gc.get_threshold()
    gc.unfreeze()
    release = asyncio.Event()
    frozen_at_warm: list[int] = []

    async def warming_up() -> None:
        if not warm:
            await release.wait()  # (outlives the wait: never released before it)
        frozen_at_warm.append(gc.get_freeze_count())

    try:
        warming = asyncio.create_task(warming_up())
        settled = await settle_before_connecting(warming, wait=0 if not warm else 60)
        assert settled is warm
        before = gc.get_freeze_count()
        assert (before > 0) is warm
        if warm:
            assert frozen_at_warm == [0], "warmed before the freeze"
        release.set()
        added = [[n] for n in range(100)]  # what connecting builds: the guilds' cache
        await freeze_when_ready(_Ready(), warming, settled)  # type: ignore[arg-type]
        assert gc.get_freeze_count() >= before + len(added)
        walked = {id(o) for o in gc.get_objects(generation=2)}
        assert not any(id(o) in walked for o in added), "frozen once ready too"
        assert gc.get_threshold() == (YOUNG_COLLECTION_EVERY, thresholds[1],
                                      FULL_COLLECTION_EVERY)
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def test_python_m_bot_warms_the_charts() -> None:
    """The composition root gives ``python -m bot`` the charts' warm-up."""
    from bot.app import WIRING
    from cogs.charts import warm_charts

    assert WIRING.warm is warm_charts
