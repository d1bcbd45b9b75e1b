"""Shard ranges: each process serves only its shards' guilds; the fake routes by shard."""

from __future__ import annotations

from pathlib import Path

import aiohttp
import discord
import pytest

from bot import Settings, create_bot
from bot.common.shards import IdentifyGate, ShardPlan, parse_shard_ids, shard_of, split_shards
from bot.process.client import LamaBot
from fakediscord import FakeDiscord
from tests.bot.conftest import make_settings
from tests.bot.helpers import answered


def test_shard_ids_parse_ranges_and_lists() -> None:
    assert parse_shard_ids("0-3") == (0, 1, 2, 3)
    assert parse_shard_ids("6, 0-1,1") == (0, 1, 6)
    for bad in ("", "a", "3-1", "1-", "-2", "1,,2"):
        with pytest.raises(ValueError):
            parse_shard_ids(bad)


def test_split_shards_covers_every_shard_once() -> None:
    assert split_shards(8, 2) == [(0, 1, 2, 3), (4, 5, 6, 7)]
    assert split_shards(5, 3) == [(0, 1), (2, 3), (4,)]
    with pytest.raises(ValueError):
        split_shards(2, 3)


def test_settings_take_shard_ranges_and_refuse_ones_that_do_not_fit() -> None:
    plan = Settings(_env_file=None, lama_shard_count=8, lama_shard_ids="4-7").shard_plan
    assert plan == ShardPlan(8, (4, 5, 6, 7))
    assert plan.owns(5 << 22) and not plan.owns(3 << 22)
    assert ShardPlan().owns(3 << 22)
    for bad in ({"lama_shard_count": 2, "lama_shard_ids": "0-3"}, {"lama_shard_ids": "0"}):
        with pytest.raises(ValueError):
            Settings(_env_file=None, **bad)  # type: ignore[arg-type]


async def test_gateway_bot_answers_the_shard_count_and_the_identify_budget() -> None:
    async with FakeDiscord(shards=8, max_concurrency=4) as fake, aiohttp.ClientSession() as http:
        url = f"http://127.0.0.1:{fake.port}/api/v10/gateway/bot"
        async with http.get(url, headers={"Authorization": f"Bot {fake.token}"}) as answer:
            data = await answer.json()
    assert data["shards"] == 8
    limit = data["session_start_limit"]
    assert limit["max_concurrency"] == 4 and limit["total"] == 1000
    assert limit["remaining"] == 1000  # nobody identified yet


def shard_bot(tmp_path: Path, ids: str, sync: bool) -> LamaBot:
    settings = make_settings(tmp_path, lama_shard_count=4, lama_shard_ids=ids,
                             lama_sync_commands=sync, lama_identify_window=0)
    return create_bot(settings)


async def test_a_guilds_clicks_reach_only_the_process_that_owns_it(tmp_path: Path) -> None:
    async with FakeDiscord(shards=4) as fake:
        near = fake.add_guild("Near", shard=(1, 4))
        far = fake.add_guild("Far", shard=(3, 4))
        assert (shard_of(near.id, 4), shard_of(far.id, 4)) == (1, 4 - 1)
        channels = {g.id: g.add_text_channel("lama") for g in (near, far)}
        hosts = {g.id: g.add_member("ana") for g in (near, far)}
        first, second = shard_bot(tmp_path, "0-1", True), shard_bot(tmp_path, "2-3", False)
        seen: dict[str, list[int]] = {"first": [], "second": []}

        def counter(name: str):  # type: ignore[no-untyped-def]
            async def on_interaction(interaction: discord.Interaction) -> None:
                seen[name].append(interaction.guild_id or 0)
            return on_interaction

        first.add_listener(counter("first"), "on_interaction")
        second.add_listener(counter("second"), "on_interaction")
        syncs = fake.command_syncs
        async with fake.run(first), fake.run(second, sync=False):
            assert fake.command_syncs == syncs + 1  # only the first process synced
            assert fake.gateway.shards() == {(i, 4): 1 for i in range(4)}
            assert [g.id for g in first.guilds] == [near.id]
            assert [g.id for g in second.guilds] == [far.id]
            for guild in (near, far):
                lobby = await answered(await hosts[guild.id].slash(
                    channels[guild.id], "lama start", variant="classic"))
                assert lobby.buttons
            await hosts[far.id].click(channels[far.id].messages[-1], "Join")
        assert seen == {"first": [near.id], "second": [far.id, far.id]}
        assert first.sessions.get(channels[near.id].id) is not None
        assert first.sessions.get(channels[far.id].id) is None
        assert second.sessions.get(channels[far.id].id) is not None
        assert second.sessions.get(channels[near.id].id) is None


async def test_a_process_restores_only_its_own_shards_sessions(tmp_path: Path) -> None:
    async with FakeDiscord(shards=4) as fake:
        near = fake.add_guild("Near", shard=(0, 4))
        far = fake.add_guild("Far", shard=(2, 4))
        channels = {g.id: g.add_text_channel("lama") for g in (near, far)}
        async with fake.run(create_bot(make_settings(tmp_path))):  # one process, every shard
            for guild in (near, far):
                host = guild.add_member("ana")
                await host.slash(channels[guild.id], "lama start", variant="classic")
        first, second = shard_bot(tmp_path, "0-1", True), shard_bot(tmp_path, "2-3", False)
        async with fake.run(first, sync=False), fake.run(second, sync=False):  # synced before
            assert first.sessions.get(channels[near.id].id) is not None
            assert first.sessions.get(channels[far.id].id) is None
            assert second.sessions.get(channels[far.id].id) is not None
            assert second.sessions.get(channels[near.id].id) is None


async def test_identifies_are_paced_per_bucket_of_max_concurrency(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two shards of one bucket wait a window apart; other buckets go at once."""
    now = [100.0]
    waited: list[float] = []

    async def sleep(seconds: float) -> None:  # the clock moves exactly as long as asked
        waited.append(seconds)
        now[0] += seconds

    monkeypatch.setattr("bot.common.shards.asyncio.sleep", sleep)
    gate = IdentifyGate(max_concurrency=2, window=5.0, clock=lambda: now[0])
    for shard in (4, 5, 6, 7):  # buckets 0, 1, 0, 1
        await gate.wait(shard)
    assert waited == [5.0]  # shard 6 waited for shard 4's window; 7 then found 5's expired
    gate = IdentifyGate(max_concurrency=1, window=5.0, clock=lambda: now[0])
    waited.clear()
    for shard in range(3):
        await gate.wait(shard)
    assert waited == [5.0, 5.0]
