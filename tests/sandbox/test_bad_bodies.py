"""The sandbox's page API given bodies no page sends: 400 with a short reason, nothing
logged as an error, and the next request served as usual."""

from __future__ import annotations

import logging
import socket

import aiohttp
import pytest
from aiohttp import web

from bot.sandbox.page import build_app
from bot.sandbox.world import World
from fakediscord import FakeDiscord

BAD_BODIES = {
    "invalid UTF-8": b'{"name": "\xff\xfe"}',
    "nested 30,000 deep": b"[" * 30_000 + b"]" * 30_000,
    "an object nested 10,000 deep": b'{"a":' * 10_000 + b"1" + b"}" * 10_000,
    "not JSON": b"{name: dan}",
    "a list": b'["dan"]',
}


async def test_bad_bodies_get_400_and_no_error_in_the_log(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    async with FakeDiscord() as fake:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        runner = web.AppRunner(build_app(World(fake), port), access_log=None)
        await runner.setup()
        try:
            await web.SockSite(runner, sock).start()
            url = f"http://127.0.0.1:{port}"
            headers = {"Content-Type": "application/json", "Origin": url}
            async with aiohttp.ClientSession() as http:
                for what, body in BAD_BODIES.items():
                    async with http.post(f"{url}/api/members", data=body,
                                         headers=headers) as response:
                        assert response.status == 400, what
                        assert (await response.json())["error"] == "Send a JSON object.", what
                async with http.post(f"{url}/api/members", json={"name": "dan"},
                                     headers=headers) as response:
                    assert response.status == 200  # still serving
                    assert (await response.json())["member"]["name"] == "dan"
        finally:
            await runner.cleanup()
    alarming = [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info]
    assert not alarming, [r.getMessage() for r in alarming]
