"""``python -m bot`` as a process with ``LAMA_METRICS_ADDR`` against the fake Discord: once
ready, ``/healthz`` answers 200 and ``/metrics`` lists every ``lama_*`` metric; SIGTERM stops
it cleanly (exit 0, the port closed)."""

from __future__ import annotations

import asyncio
import signal
import socket
from pathlib import Path

import aiohttp
import pytest

from bot.process.metrics import METRIC_NAMES
from fakediscord import FakeDiscord
from tests import forkserver
from tests.bot.test_main import bot_env

WAIT = 30.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def lines_until(stream: asyncio.StreamReader, words: str, seen: list[str]) -> None:
    """Read ``stream`` into ``seen`` until a line holds ``words``."""
    while line := (await stream.readline()).decode():
        seen.append(line)
        if words in line:
            return
    raise AssertionError(f"the bot ended before logging {words!r}:\n" + "".join(seen))


async def drain(stream: asyncio.StreamReader, seen: list[str]) -> None:
    while line := (await stream.readline()).decode():
        seen.append(line)


async def test_a_bot_process_serves_health_and_metrics(tmp_path: Path) -> None:
    port = free_port()
    async with FakeDiscord() as fake:
        fake.add_guild("Lama Club").add_text_channel("lama")
        env = bot_env(tmp_path, DISCORD_TOKEN=fake.token, LAMA_LOG_LEVEL="INFO",
                      LAMA_DISCORD_URL=f"http://127.0.0.1:{fake.port}",
                      LAMA_GUILD_READY_TIMEOUT="0.05", LAMA_METRICS_ADDR=f"127.0.0.1:{port}")
        process = await forkserver.start(  # real, forked from tests/forkserver.py
            "-m", "bot", cwd=tmp_path, env=env, stdout=forkserver.DEVNULL,
            stderr=forkserver.PIPE)
        assert process.stderr is not None
        seen: list[str] = []
        try:
            await asyncio.wait_for(lines_until(process.stderr, "ready as", seen), WAIT)
            rest = asyncio.create_task(drain(process.stderr, seen))  # (a full pipe would block)
            async with aiohttp.ClientSession() as http:
                async with http.get(f"http://127.0.0.1:{port}/healthz") as answer:
                    assert (answer.status, await answer.text()) == (200, "ok\n")
                async with http.get(f"http://127.0.0.1:{port}/metrics") as answer:
                    assert answer.status == 200
                    text = await answer.text()
            for name in METRIC_NAMES:
                assert f"# HELP {name} " in text, name
            assert 'lama_rest_requests_total{method="PUT"' in text  # the command sync counted
            process.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(process.wait(), WAIT) == 0, "".join(seen)
            await rest
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
    assert any("SIGTERM: stopping" in line for line in seen)
    assert not [line for line in seen if "Traceback" in line], "".join(seen)
    with pytest.raises(aiohttp.ClientConnectionError):  # the server went with the process
        async with aiohttp.ClientSession() as http:
            await http.get(f"http://127.0.0.1:{port}/healthz")
