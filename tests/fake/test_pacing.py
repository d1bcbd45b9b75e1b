"""Pacing: Discord's rate-limit headers, 429s, the global limit and the invalid-request ban.

The buckets' clock is scaled; tests that must not depend on the machine's speed use a tiny
scale (Discord's seconds last long in real time) and move the buckets' clock by hand.
"""

from __future__ import annotations

import asyncio

import discord
import pytest
from aiohttp import web

from fakediscord import FakeDiscord
from fakediscord.ratelimit import Pacing
from tests.fake.rawclient import Env, env
from tests.fake.test_fake import DemoBot

__all__ = ["env"]

SLOW = 0.001  # one real second = 1/1000 Discord second: nothing resets by itself in a test
MSGS = "/channels/{channel}/messages"
HEADERS = ("Limit", "Remaining", "Reset", "Reset-After", "Bucket")


@pytest.mark.parametrize("env", [10.0], indirect=True)
async def test_every_answer_has_bucket_headers_on_the_scaled_clock(env: Env) -> None:
    for path in ("/users/@me", MSGS, "/guilds/{guild}/roles"):
        answer = await env.call("GET", path)
        assert answer.status == 200
        assert all(f"X-RateLimit-{h}" in answer.headers for h in HEADERS), answer.headers
    posted = await env.call("POST", MSGS, {"content": "x"})
    assert posted.headers["X-RateLimit-Limit"] == "5"
    assert posted.headers["X-RateLimit-Remaining"] == "4"
    reset_after = float(posted.headers["X-RateLimit-Reset-After"])
    assert 0 < reset_after <= 5.0 / 10.0, "five Discord seconds are half a real second"


@pytest.mark.parametrize("env", [Pacing(SLOW)], indirect=True)
async def test_sixth_message_in_five_seconds_gets_429(env: Env) -> None:
    pacing = env.fake.pacing
    assert pacing is not None
    for i in range(5):
        assert (await env.call("POST", MSGS, {"content": str(i)})).status == 200
    limited = await env.call("POST", MSGS, {"content": "6"})
    assert limited.status == 429
    assert set(limited.body) == {"message", "retry_after", "global"}
    assert limited.body["global"] is False
    assert 0 < limited.body["retry_after"] * SLOW <= 5.0, "retry_after is in real seconds"
    assert limited.headers["Via"] and int(limited.headers["Retry-After"]) >= 1
    assert limited.headers["X-RateLimit-Scope"] == "user"
    assert limited.headers["X-RateLimit-Remaining"] == "0"
    other = env.guild.add_text_channel("other")
    elsewhere = await env.call("POST", f"/channels/{other.id}/messages", {"content": "x"})
    assert elsewhere.status == 200, "each channel has its own bucket"
    assert (await env.call("PATCH", MSGS + "/{message}", {"content": "e"})).status == 200
    pacing.clock.advance(5.0)
    assert (await env.call("POST", MSGS, {"content": "6"})).status == 200
    assert pacing.stats.limited == 1 and [m.content for m in env.table.messages][-1] == "6"


@pytest.mark.parametrize("env", [Pacing(SLOW)], indirect=True)
async def test_global_limit_spares_interaction_tokens(env: Env) -> None:
    for i in range(50):
        path = "/users/@me" if i % 2 else "/guilds/{guild}/roles"
        assert (await env.call("GET", path)).status == 200
    limited = await env.call("GET", "/guilds/{guild}")
    assert limited.status == 429 and limited.body["global"] is True
    assert limited.headers["X-RateLimit-Global"] == "true"
    assert limited.headers["X-RateLimit-Scope"] == "global"
    inter = env.interaction()
    answer = await env.call(
        "POST", f"/interactions/{inter.id}/{inter.token}/callback", {"type": 4, "data":
                                                                     {"content": "hi"}}
    )
    assert answer.status == 204, "interaction callbacks are not bound by the global limit"
    followup = await env.call("POST", f"/webhooks/{{app}}/{inter.token}", {"content": "more"})
    assert followup.status in (200, 204)


@pytest.mark.parametrize("env", [Pacing(SLOW, invalid_limit=5)], indirect=True)
async def test_invalid_requests_end_in_a_ban(env: Env) -> None:
    for _ in range(4):
        assert (await env.call("GET", "/users/@me", token="wrong")).status == 401
    assert (await env.call("GET", "/users/@me")).status == 200, "not yet"
    assert (await env.call("GET", "/users/@me", token="wrong")).status == 401
    banned = await env.call("GET", "/users/@me")
    assert banned.status == 429 and "Via" not in banned.headers
    assert isinstance(banned.body, str), "Cloudflare's ban is not Discord's JSON"
    pacing = env.fake.pacing
    assert pacing is not None
    pacing.clock.advance(pacing.ban_seconds)
    assert (await env.call("GET", "/users/@me")).status == 200, "the ban is temporary"


def test_shared_scope_429s_are_not_invalid_requests() -> None:
    pacing = Pacing(SLOW, invalid_limit=1)
    _, ticket = pacing.admit("GET", "/users/@me")
    pacing.finish(ticket, web.Response(status=429, headers={"X-RateLimit-Scope": "shared"}))
    assert not pacing.invalid and pacing.admit("GET", "/users/@me")[0] is None
    pacing.finish(ticket, web.Response(status=403))
    assert pacing.admit("GET", "/users/@me")[0] is not None, "one invalid request: banned"


async def test_discord_py_is_paced_not_broken() -> None:
    async with FakeDiscord(pacing=10.0) as fake:
        guild = fake.add_guild("Lama Club")
        table = guild.add_text_channel("lama")
        bot = DemoBot()
        async with fake.run(bot):
            channel = bot.get_channel(table.id)
            assert isinstance(channel, discord.TextChannel)
            await asyncio.gather(*(channel.send(f"m{i}") for i in range(12)))
        assert fake.pacing is not None
        stats = fake.pacing.stats
        assert sorted(m.content for m in table.messages) == sorted(f"m{i}" for i in range(12))
        assert stats.limited + stats.waited > 0, "the bucket made discord.py wait"
        assert not fake.refusals and not fake.lint
