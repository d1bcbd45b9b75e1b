"""The fake honours ``nonce`` + ``enforce_nonce``: a retried post returns the first message."""

from __future__ import annotations

from typing import Any

import aiohttp

from fakediscord import FakeDiscord
from fakediscord.channels import NONCE_WINDOW


async def post(fake: FakeDiscord, channel_id: int, body: dict[str, Any]) -> dict[str, Any]:
    url = f"http://127.0.0.1:{fake.port}/api/v10/channels/{channel_id}/messages"
    async with aiohttp.ClientSession() as http, http.post(
        url, json=body, headers={"Authorization": f"Bot {fake.token}"}
    ) as response:
        assert response.status == 200, await response.text()
        return await response.json()


async def test_a_post_retried_with_its_nonce_shows_once() -> None:
    async with FakeDiscord() as fake:
        channel = fake.add_guild("g").add_text_channel("lama")
        first = await post(fake, channel.id, {"content": "one", "nonce": "n1",
                                              "enforce_nonce": True})
        again = await post(fake, channel.id, {"content": "one, retried", "nonce": "n1",
                                              "enforce_nonce": True})
        assert again["id"] == first["id"] and again["content"] == "one"
        assert [m.content for m in channel.messages] == ["one"]
        other = await post(fake, channel.id, {"content": "two", "nonce": "n2",
                                              "enforce_nonce": True})
        assert other["id"] != first["id"]
        loose = await post(fake, channel.id, {"content": "three", "nonce": "n1"})
        assert loose["id"] != first["id"], "without enforce_nonce the nonce is not checked"
        fake.clock.advance(NONCE_WINDOW + 1)
        late = await post(fake, channel.id, {"content": "four", "nonce": "n1",
                                             "enforce_nonce": True})
        assert late["id"] != first["id"], "only within the last few minutes"
        assert fake.late_nonces == [(channel.id, "n1")], "a late repeat is noted"
        assert [m.content for m in channel.messages] == ["one", "two", "three", "four"]


async def test_a_nonce_whose_message_was_deleted_is_refused_not_posted_again() -> None:
    """Discord answers a repeated nonce whose first message was deleted with Unknown
    Message (a safe retry, not a second post): so does the fake, within the window."""
    async with FakeDiscord() as fake:
        channel = fake.add_guild("g").add_text_channel("lama")
        first = await post(fake, channel.id, {"content": "one", "nonce": "n1",
                                              "enforce_nonce": True})
        fake.publish_delete(fake.messages[int(first["id"])])
        url = f"http://127.0.0.1:{fake.port}/api/v10/channels/{channel.id}/messages"
        async with aiohttp.ClientSession() as http, http.post(
            url, json={"content": "one again", "nonce": "n1", "enforce_nonce": True},
            headers={"Authorization": f"Bot {fake.token}"},
        ) as response:
            assert response.status == 404
            assert (await response.json())["code"] == 10008
        assert [m.content for m in channel.messages if not m.deleted] == []
        fake.clock.advance(NONCE_WINDOW + 1)
        late = await post(fake, channel.id, {"content": "later", "nonce": "n1",
                                             "enforce_nonce": True})
        assert late["id"] != first["id"], "after the window it posts again"
