"""``/healthz`` and ``/metrics`` (bot/process/metrics.py) scraped while a game is played through the
fake Discord: the values move, labels carry no ids."""

from __future__ import annotations

import asyncio
import contextvars
from pathlib import Path
from types import SimpleNamespace

import aiohttp
import discord
import prometheus_client
from prometheus_client.parser import text_string_to_metric_families
from yarl import URL

from bot import create_bot
from bot.process.metrics import METRIC_NAMES, Metrics, route_template, serving_metrics
from cogs import timely
from fakediscord import FakeDiscord
from tests.bot.conftest import make_settings
from tests.bot.test_restart import Table, take_turn

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


async def scrape(port: int) -> tuple[Samples, str]:
    async with aiohttp.ClientSession() as http, \
            http.get(f"http://127.0.0.1:{port}/metrics") as answer:
        assert answer.status == 200
        text = await answer.text()
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples, text


async def health(port: int) -> tuple[int, str]:
    async with aiohttp.ClientSession() as http, \
            http.get(f"http://127.0.0.1:{port}/healthz") as answer:
        return answer.status, await answer.text()


def total(samples: Samples, name: str, **labels: str) -> float:
    return sum(v for (n, ls), v in samples.items()
               if n == name and all((k, v2) in ls for k, v2 in labels.items()))


async def test_health_and_metrics_move_with_a_game(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, lama_metrics_addr="127.0.0.1:0")
    async with FakeDiscord() as fake:
        club = Table(fake, settings)
        bot = create_bot(settings)
        async with serving_metrics(bot, "127.0.0.1:0") as metrics:
            assert metrics.port
            status, reasons = await health(metrics.port)
            assert status == 503 and "gateway: not ready" in reasons  # not started yet
            async with fake.run(bot):
                status, reasons = await health(metrics.port)
                assert (status, reasons) == (200, "ok\n")
                before, _ = await scrape(metrics.port)
                await club.start_game(ai=True)
                for _ in range(3):
                    assert await take_turn(fake, club.channel, club.members) is not None
                during, text = await scrape(metrics.port)
                assert (await health(metrics.port))[0] == 200
                await club.ana.slash(club.channel, "lama stop")
                await fake.notifier.wait_for(
                    lambda: True if bot.sessions.get(club.channel.id) is None else None, 30,
                    "the game to end")
                after, _ = await scrape(metrics.port)
    for name in METRIC_NAMES:
        assert f"# HELP {name} " in text, name
    assert total(during, "lama_games_running", variant="classic") == 1
    assert total(after, "lama_games_running") == 0
    assert total(after, "lama_games_finished_total", variant="classic", status="abandoned") == 1
    clicks = "lama_interaction_seconds_count"
    assert total(during, clicks, kind="component") >= total(before, clicks, kind="component") + 6
    assert total(during, clicks, kind="command") >= 1  # /lama start
    assert total(during, "lama_store_transaction_seconds_count") > total(
        before, "lama_store_transaction_seconds_count")
    assert total(during, "lama_ai_think_seconds_count") >= 1
    assert total(during, "lama_rest_requests_total") > total(before, "lama_rest_requests_total")
    # round 1's table is edited through the Start click's token (a template of its own), the
    # stopped game's table through the channel
    assert total(during, "lama_rest_requests_total",
                 route="/webhooks/{webhook_id}/{webhook_token}/messages/@original") >= 1
    assert total(after, "lama_rest_requests_total",
                 route="/channels/{channel_id}/messages/{message_id}") >= 1
    # the answers go through discord.py's webhook adapter: counted by their path's template
    assert total(during, "lama_rest_requests_total",
                 route="/interactions/{id}/{token}/callback") >= 6
    ids = {str(club.channel.id), str(club.guild.id), str(club.ana.id)}
    labels = {value for (_, pairs) in during for _, value in pairs}
    assert not labels & ids, "no id is a label"
    assert not [f.name for f in prometheus_client.REGISTRY.collect()
                if f.name.startswith("lama_")], "the global registry stays empty"


async def test_a_429_from_discord_moves_the_counter_of_its_route(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    async with FakeDiscord() as fake:
        table = fake.add_guild("Lama Club").add_text_channel("lama")
        bot = create_bot(settings)
        async with serving_metrics(bot, "127.0.0.1:0") as metrics, fake.run(bot):
            before, _ = await scrape(metrics.port)
            limited = fake.rate_limit("POST", "/channels/*/messages", retry_after=0.05)
            await bot.get_partial_messageable(table.id).send("hello")  # posted on the retry
            assert limited.hits == 1 and [m.content for m in table.messages] == ["hello"]
            after, _ = await scrape(metrics.port)
    refused, route = "lama_rest_429_total", "/channels/{channel_id}/messages"
    assert total(before, refused) == 0
    assert total(after, refused, route=route) == 1 and total(after, refused) == 1
    assert total(after, "lama_rest_requests_total", route=route) == 1  # a call, retry inside
    assert total(before, "lama_budget_retries_total") == 0
    assert total(after, "lama_budget_retries_total") == 1, "the retry took a slot of its own"


def test_a_path_outside_discord_py_s_client_is_labelled_without_ids_or_tokens() -> None:
    token = "aW50ZXJhY3Rpb246MTIzNDU2Nzg5MDpzZWNyZXQ"
    assert route_template(f"/api/v10/interactions/1577497652537327623/{token}/callback") == (
        "/interactions/{id}/{token}/callback")
    assert route_template(f"/api/v10/webhooks/1577497652537/{token}/messages/1577497652537327"
                          ) == "/webhooks/{id}/{token}/messages/{id}"
    assert route_template(f"/api/v10/webhooks/1577497652537/{token}/messages/@original") == (
        "/webhooks/{id}/{token}/messages/@original")


async def test_a_request_that_went_on_in_another_task_labels_only_itself() -> None:
    """cogs/timely.py runs an action's first steps in the clicking task and the rest in a
    task of its own: the request's route stays in the clicking task's context, and neither
    breaks the request nor labels that task's interaction answer afterwards."""
    metrics = Metrics(SimpleNamespace())  # type: ignore[arg-type]
    caller = contextvars.copy_context()
    route = discord.http.Route("POST", "/channels/{channel_id}/messages", channel_id=1)

    async def request(route: discord.http.Route, **_: object) -> str:
        await asyncio.sleep(0)  # its first wait: the rest goes on in a task of its own
        return "sent"

    done, rest = caller.run(timely._started, metrics._rest(request)(route))
    assert not done and await caller.run(asyncio.ensure_future, rest) == "sent"
    answer = SimpleNamespace(method="POST", response=SimpleNamespace(status=429),
                             url=URL("https://discord.com/api/v10/interactions/"
                                          "1577497652537327623/token/callback"))
    await caller.run(asyncio.ensure_future, metrics._response(None, None, answer))
    assert metrics.refused.labels("/interactions/{id}/{token}/callback")._value.get() == 1
