"""Direct messages in the fake (fakediscord/dms.py): the DM channel, posting in it, a retried
nonce, and Discord's 50007 for a member who does not accept DMs; and the unmodified
discord.py client opening one and sending through it."""

from __future__ import annotations

from typing import Any

import aiohttp
import discord

from fakediscord import FakeDiscord


async def call(fake: FakeDiscord, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    url = f"http://127.0.0.1:{fake.port}/api/v10{path}"
    async with aiohttp.ClientSession() as http, http.post(
        url, json=body, headers={"Authorization": f"Bot {fake.token}"}
    ) as response:
        return response.status, await response.json()


async def test_a_dm_channel_is_opened_once_and_takes_posts() -> None:
    async with FakeDiscord() as fake:
        ana = fake.add_guild("g").add_member("ana")
        status, channel = await call(fake, "/users/@me/channels", {"recipient_id": str(ana.id)})
        assert status == 200 and channel["type"] == 1
        assert channel["recipients"][0]["id"] == str(ana.id)
        again = (await call(fake, "/users/@me/channels", {"recipient_id": ana.id}))[1]
        assert again["id"] == channel["id"], "one DM channel per user"
        path = f"/channels/{channel['id']}/messages"
        status, first = await call(fake, path, {"content": "your turn", "nonce": "n1",
                                                "enforce_nonce": True})
        assert status == 200 and first["channel_id"] == channel["id"]
        retried = (await call(fake, path, {"content": "your turn", "nonce": "n1",
                                           "enforce_nonce": True}))[1]
        assert retried["id"] == first["id"], "a retried nonce returns the first message"
        assert [m.content for m in fake.dms.to(ana)] == ["your turn"]
        status, body = await call(fake, "/users/@me/channels", {"recipient_id": "12"})
        assert status == 404 and body["code"] == 10013


async def test_a_member_who_refuses_dms_gets_50007_and_nothing_is_kept() -> None:
    async with FakeDiscord() as fake:
        ana = fake.add_guild("g").add_member("ana")
        fake.dms.refuse(ana)
        channel = (await call(fake, "/users/@me/channels", {"recipient_id": ana.id}))[1]
        path = f"/channels/{channel['id']}/messages"
        status, body = await call(fake, path, {"content": "your turn"})
        assert status == 403 and body["code"] == 50007
        assert body["message"] == "Cannot send messages to this user"
        assert fake.dms.to(ana) == [] and fake.dms.refused == 1
        assert not fake.refusals, "a member's choice, not a bad request of the bot"
        fake.dms.accept(ana)
        assert (await call(fake, path, {"content": "now"}))[0] == 200
        assert [m.content for m in fake.dms.to(ana)] == ["now"]


async def test_discord_py_sends_a_dm_and_reads_the_refusal() -> None:
    async with FakeDiscord() as fake:
        ana = fake.add_guild("g").add_member("ana")
        client = discord.Client(intents=discord.Intents.default())
        async with fake.run(client, sync=False):
            dm = await client.create_dm(discord.Object(ana.id))
            message = await dm.send("hello", nonce="x1")
            assert message.content == "hello" and [m.id for m in fake.dms.to(ana)] == [
                message.id]
            fake.dms.refuse(ana)
            try:
                await dm.send("again")
            except discord.Forbidden as refused:
                assert refused.code == 50007
            else:
                raise AssertionError("the refusal reaches the client")
