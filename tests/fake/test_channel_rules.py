"""Discord's answers that need state: atomic sync, permissions, threads, nonce, emojis."""

from __future__ import annotations

import base64
from typing import Any

import aiohttp
import discord
import pytest

from fakediscord import ATTACH_FILES, EMBED_LINKS, SEND_MESSAGES
from fakediscord.base import SEND_MESSAGES_IN_THREADS
from fakediscord.emojis import MAX_APPLICATION_EMOJIS
from tests.fake.rawclient import Env, env
from tests.fake.test_fake import DemoBot

__all__ = ["env"]

CMDS = "/applications/{app}/commands"
EMOJIS = "/applications/{app}/emojis"


def command(name: str, **over: Any) -> dict[str, Any]:
    return {"name": name, "description": "d", **over}


async def test_refused_sync_keeps_the_previous_commands(env: Env) -> None:
    ok = await env.call("PUT", CMDS, [command("lama"), command("stats")])
    assert ok.status == 200
    before = [c["name"] for c in env.fake.global_commands]
    refused = await env.call("PUT", CMDS, [command("solo"), command("Bad Name")])
    assert (refused.status, refused.code) == (400, 50035)
    assert refused.body["errors"]["1"]["name"]["_errors"][0]["code"]
    assert [c["name"] for c in env.fake.global_commands] == before == ["lama", "stats"]
    listed = await env.call("GET", CMDS)
    assert [c["name"] for c in listed.body] == before


@pytest.mark.parametrize("allowed", [True, False])
async def test_embeds_dropped_without_embed_links(env: Env, allowed: bool) -> None:
    if not allowed:
        await env.table.set_permissions(env.guild.me, deny=EMBED_LINKS)
    answer = await env.call(
        "POST", "/channels/{channel}/messages", {"content": "x", "embeds": [{"title": "t"}]}
    )
    assert answer.status == 200 and not env.fake.refusals, "no error: a silent drop"
    assert len(answer.body["embeds"]) == (1 if allowed else 0)
    assert env.fake.dropped_embeds == (0 if allowed else 1)


@pytest.mark.parametrize("allowed", [True, False])
async def test_uploads_need_attach_files(env: Env, allowed: bool) -> None:
    if not allowed:
        await env.table.set_permissions(env.guild.me, deny=ATTACH_FILES)
    form = aiohttp.FormData()
    form.add_field("payload_json", '{"content": "card", "attachments": [{"id": 0}]}')
    form.add_field("files[0]", b"png", filename="card.png")
    answer = await env.call("POST", "/channels/{channel}/messages", data=form)
    assert (answer.status, answer.code) == ((200, None) if allowed else (403, 50013))


@pytest.mark.parametrize(
    ("deny", "status"), [(SEND_MESSAGES_IN_THREADS, 403), (SEND_MESSAGES, 200)]
)
async def test_threads_need_send_messages_in_threads(env: Env, deny: int, status: int) -> None:
    await env.table.set_permissions(env.guild.me, deny=deny)
    answer = await env.call("POST", "/channels/{thread}/messages", {"content": "x"})
    assert answer.status == status, answer.body


async def test_a_post_unarchives_an_unlocked_thread(env: Env) -> None:
    answer = await env.call("POST", "/channels/{archived}/messages", {"content": "back"})
    assert answer.status == 200 and not env.archived.archived
    assert env.archived.messages[-1].content == "back"
    locked = await env.call("POST", "/channels/{locked}/messages", {"content": "no"})
    assert locked.code == 160005 and env.locked.archived and env.locked.messages == []


async def test_thread_types_and_a_thread_from_a_message(env: Env) -> None:
    for kind in (11, 12):
        made = await env.call("POST", "/channels/{channel}/threads", {"name": "t", "type": kind})
        assert made.status == 201 and made.body["type"] == kind
        assert made.body["parent_id"] == str(env.table.id)
    first = await env.call(
        "POST", "/channels/{channel}/messages/{message}/threads", {"name": "round 1"}
    )
    assert first.status == 201 and first.body["id"] == str(env.message.id)
    assert first.body["type"] == 11
    again = await env.call(
        "POST", "/channels/{channel}/messages/{message}/threads", {"name": "round 1"}
    )
    assert again.code == 160004
    nested = await env.call("POST", "/channels/{thread}/threads", {"name": "t", "type": 11})
    assert nested.code == 50024


async def test_edits_in_an_archived_thread_are_refused(env: Env) -> None:
    msg = env.bot_message(env.thread, "live")
    env.message = msg
    ok = await env.call("PATCH", "/channels/{thread}/messages/{message}", {"content": "edit"})
    assert ok.status == 200
    archive = await env.call("PATCH", "/channels/{thread}", {"archived": True})
    assert archive.code == 50013, "only its owner or Manage Threads may archive a thread"
    env.thread.owner_id = env.fake.bot_user.id
    archive = await env.call("PATCH", "/channels/{thread}", {"archived": True})
    assert archive.status == 200 and env.thread.archived
    refused = await env.call("PATCH", "/channels/{thread}/messages/{message}", {"content": "x"})
    assert (refused.status, refused.code) == (400, 50083) and msg.content == "edit"


@pytest.mark.parametrize("enforce", [True, False])
async def test_nonce_makes_a_post_idempotent(env: Env, enforce: bool) -> None:
    body = {"content": "table", "nonce": "game-1-turn-3", "enforce_nonce": enforce}
    first = await env.call("POST", "/channels/{channel}/messages", body)
    second = await env.call("POST", "/channels/{channel}/messages", body)
    assert first.status == second.status == 200
    same = first.body["id"] == second.body["id"]
    assert same == enforce
    posts = [m for m in env.table.messages if m.content == "table"]
    assert len(posts) == (1 if enforce else 2)


def png(size: int) -> str:
    return "data:image/png;base64," + base64.b64encode(b"\x89PNG" + b"\0" * size).decode()


async def test_application_emojis(env: Env) -> None:
    made = await env.call("POST", EMOJIS, {"name": "lama_1", "image": png(10)})
    assert made.status == 201 and made.body["name"] == "lama_1"
    emoji_id = made.body["id"]
    listed = await env.call("GET", EMOJIS)
    assert [e["id"] for e in listed.body["items"]] == [emoji_id]
    got = await env.call("GET", f"{EMOJIS}/{emoji_id}")
    assert got.body["name"] == "lama_1"
    gone = await env.call("DELETE", f"{EMOJIS}/{emoji_id}")
    assert gone.status == 204
    missing = await env.call("GET", f"{EMOJIS}/{emoji_id}")
    assert (missing.status, missing.code) == (404, 10014)


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"name": "l", "image": png(10)}, 50035),
        ({"name": "lama-1", "image": png(10)}, 50035),
        ({"name": "taken", "image": png(10)}, 50035),
        ({"name": "big", "image": png(256 * 1024)}, 50035),
        ({"name": "noimage", "image": "https://lama.invalid/x.png"}, 50035),
    ],
)
async def test_application_emoji_rules(env: Env, body: dict[str, Any], code: int) -> None:
    assert (await env.call("POST", EMOJIS, {"name": "taken", "image": png(1)})).status == 201
    refused = await env.call("POST", EMOJIS, body)
    assert (refused.status, refused.code) == (400, code), refused.body
    fixed = await env.call("POST", EMOJIS, {"name": "fine_2", "image": png(10)})
    assert fixed.status == 201


async def test_application_emojis_stop_at_2000(env: Env) -> None:
    for i in range(MAX_APPLICATION_EMOJIS - 1):
        env.fake.emojis[i] = {"id": str(i), "name": f"e{i}"}
    last = await env.call("POST", EMOJIS, {"name": "last", "image": png(1)})
    assert last.status == 201
    refused = await env.call("POST", EMOJIS, {"name": "one_more", "image": png(1)})
    assert (refused.status, refused.code) == (400, 30008)


async def test_discord_py_threads_and_application_emojis(env: Env) -> None:
    """The unmodified client reads the fake's threads and application emojis."""
    bot = DemoBot()
    async with env.fake.run(bot):
        channel = bot.get_channel(env.table.id)
        assert isinstance(channel, discord.TextChannel)
        private = await channel.create_thread(
            name="secret", type=discord.ChannelType.private_thread
        )
        assert private.type == discord.ChannelType.private_thread
        posted = await channel.send("round 1")
        thread = await posted.create_thread(name="round 1")
        assert thread.id == posted.id and thread.parent_id == env.table.id
        inside = await thread.send("in the thread")
        await thread.edit(archived=True)
        with pytest.raises(discord.HTTPException) as caught:
            await inside.edit(content="too late")
        assert caught.value.code == 50083
        await thread.send("back")  # unarchives
        assert not env.guild.threads[-1].archived
        env.fake.refusals.clear()
        emoji = await bot.create_application_emoji(
            name="lama", image=b"\x89PNG\r\n\x1a\n" + b"0" * 8
        )
        assert [e.id for e in await bot.fetch_application_emojis()] == [emoji.id]
        assert (await bot.fetch_application_emoji(emoji.id)).name == "lama"
        await emoji.delete()
        assert await bot.fetch_application_emojis() == []


async def test_edits_to_an_hour_old_message_are_limited(env: Env) -> None:
    """30046 (Discord's JSON error codes): past the limit, an hour-old message refuses edits,
    answered 429 without ``Via`` (discord.py raises it); a younger message is not counted."""
    path = "/channels/{channel}/messages/{message}"
    for n in range(env.fake.old_edit_limit + 1):
        assert (await env.call("PATCH", path, {"content": f"young {n}"})).status == 200
    assert env.fake.old_edits == {}, "an hour-young message's edits are not counted"
    env.fake.clock.advance(3600)
    for n in range(env.fake.old_edit_limit):
        assert (await env.call("PATCH", path, {"content": f"old {n}"})).status == 200
    refused = await env.call("PATCH", path, {"content": "one too many"})
    assert (refused.status, refused.code) == (429, 30046)
    assert refused.body["message"].startswith("Maximum number of edits to messages older than")
    assert "Via" not in refused.headers and env.message.content == f"old {n}"
    env.fake.refusals.clear()
    env.fake.clock.advance(3600)  # an hour later the count starts again
    assert (await env.call("PATCH", path, {"content": "later"})).status == 200
    fresh = await env.call("POST", "/channels/{channel}/messages", {"content": "new"})
    assert (await env.call("PATCH", f"/channels/{{channel}}/messages/{fresh.body['id']}",
                           {"content": "x"})).status == 200
