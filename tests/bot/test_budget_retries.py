"""discord.py's own retries (after a 429, inside ``HTTPClient.request``) take a slot of the
budget like any other request (bot/process/budget.py), through the real client against the
fake: a retry does not jump the requests that took their slots while it waited."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest
from yarl import URL

from bot import create_bot
from bot.process.budget import Budget
from cogs import timely
from fakediscord import FakeDiscord
from tests.bot.conftest import make_settings
from tests.bot.test_budget import Route

SLOW = 5.0  # requests a second: slots far enough apart that their order is the budget's


def posts(fake: FakeDiscord, channels: dict[int, str]) -> list[str]:
    """The channels' posts as the fake received them, in order (429s and retries too)."""
    return [channels[int(e["path"].split("/")[2])] for e in fake.entries
            if e["kind"] == "rest" and e["method"] == "POST"
            and e["path"].startswith("/channels/") and e["path"].endswith("/messages")
            and int(e["path"].split("/")[2]) in channels]


@pytest.mark.parametrize("is_global", [False, True])
async def test_a_retry_after_a_429_takes_a_slot_after_those_taken_meanwhile(
        tmp_path: Path, is_global: bool) -> None:
    """Three posts take the budget's next three slots; the first is answered 429 (its
    channel's, or the global one). Its retry takes the next slot, after the other two: without
    it the retry would leave as soon as discord.py's sleep ends, ahead of them (and, after a
    real 429, with every other retry)."""
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Lama Club")
        a, b, c = (guild.add_text_channel(name) for name in "abc")
        bot = create_bot(make_settings(tmp_path))
        async with fake.run(bot):
            budget = bot.budget
            budget.interval, budget.burst = 1.0 / SLOW, 1
            limited = fake.rate_limit("POST", f"/channels/{a.id}/messages", retry_after=0.01,
                                     is_global=is_global)
            retries = budget.retries
            await asyncio.gather(*(bot.get_partial_messageable(ch.id).send(ch.name)
                                   for ch in (a, b, c)))
            assert limited.hits == 1
            assert [m.content for m in a.messages] == ["a"], "posted once, on the retry"
            assert posts(fake, {a.id: "a", b.id: "b", c.id: "c"}) == ["a", "b", "c", "a"]
            assert budget.retries == retries + 1


async def test_interaction_answers_and_first_attempts_take_no_retry_slot(
        tmp_path: Path) -> None:
    """Only a counted request's second attempt is a retry: a post answered at once, and the
    requests that are not counted (the gateway, interaction answers), take none."""
    async with FakeDiscord() as fake:
        channel = fake.add_guild("Lama Club").add_text_channel("lama")
        bot = create_bot(make_settings(tmp_path))
        async with fake.run(bot):
            retries = bot.budget.retries
            await bot.get_partial_messageable(channel.id).send("hello")
            await fake.drop_gateway()  # (its reconnection goes through the same session)
            assert [m.content for m in channel.messages] == ["hello"]
            assert bot.budget.retries == retries


def start(method: str, url: str) -> tuple[str, URL]:
    """What the connector tells the budget of a request aiohttp is about to send."""
    return method, URL(url)


async def test_only_the_requests_own_sends_count_even_from_a_context_it_left() -> None:
    """cogs/timely.py runs an action's first steps in the clicking task and the rest in a
    task of its own: the clicking task's context keeps the request's attempts. Its own
    requests meanwhile (the click's deferral) are not retries of it, and once the request is
    over nothing sent from that context is."""
    budget = Budget(per_second=1000, burst=1000)
    caller = contextvars.copy_context()
    route = Route("/channels/1/messages/2", "PATCH")
    own = start("PATCH", route.url + "?x=1")  # (a query does not make it another request)
    first, again = asyncio.Event(), asyncio.Event()

    async def request(route: Route, **_: object) -> None:
        await asyncio.sleep(0)  # its first wait: the rest goes on in a task of its own
        await budget.sending(*own)  # the first attempt
        first.set()
        await again.wait()
        await budget.sending(*own)  # discord.py's retry

    def in_caller(work: Coroutine[Any, Any, None]) -> asyncio.Future[None]:
        return caller.run(asyncio.ensure_future, work)

    done, rest = caller.run(timely._started, budget.wrap(request)(route))
    assert not done
    task = in_caller(rest)
    await first.wait()
    await in_caller(budget.sending(*start(
        "POST", "https://discord.com/api/v10/interactions/3/t/callback")))  # the deferral
    assert budget.retries == 0, "the deferral is no retry of the request"
    again.set()
    await task
    assert budget.retries == 1, "the request's second send is"
    await in_caller(budget.sending(*own))
    assert budget.retries == 1, "the request is over: nothing counts for it any more"
