"""Rules that need a message's past or a multipart upload: each broken request gets
Discord's answer and the same request made valid passes (Components V2 edits, uploads,
the upload limit, unshown files, Embed Links, injected 429s)."""

from __future__ import annotations

import json
from typing import Any

import aiohttp
import pytest

from fakediscord import EMBED_LINKS
from fakediscord.messages import EPHEMERAL, IS_COMPONENTS_V2
from fakediscord.ratelimit import Pacing
from tests.fake.rawclient import Answer, Env, env
from tests.fake.test_rules import container, texts, v2

__all__ = ["env"]

MSGS = "/channels/{channel}/messages"
EDIT = MSGS + "/{message}"


def form(payload: dict[str, Any], *files: tuple[str, str, bytes]) -> aiohttp.FormData:
    """A multipart body: ``payload_json`` and ``(part name, file name, bytes)`` parts."""
    data = aiohttp.FormData()
    data.add_field("payload_json", json.dumps(payload), content_type="application/json")
    for name, filename, raw in files:
        data.add_field(name, raw, filename=filename, content_type="application/octet-stream")
    return data


def gallery(*names: str) -> dict[str, Any]:
    items = [{"media": {"url": f"attachment://{n}"}} for n in names]
    return {"type": 12, "items": items}


def refused(answer: Answer, status: int, code: int) -> None:
    assert (answer.status, answer.code) == (status, code), answer.body


# --- Components V2 on edits -------------------------------------------------------------------


async def test_an_edit_setting_the_v2_flag_must_clear_content_and_embeds(env: Env) -> None:
    assert env.message.content == "hello"
    refused(await env.call("PATCH", EDIT, v2()), 400, 50035)
    assert not env.message.v2 and env.message.content == "hello", "a refused edit changes nothing"
    fixed = await env.call("PATCH", EDIT, v2(content=None))
    assert fixed.status == 200 and fixed.body["flags"] & IS_COMPONENTS_V2
    assert env.message.content == "" and env.message.text == "t"
    embedded = env.fake.new_message(
        env.table, {"embeds": [{"title": "old"}]}, author=env.fake.bot_user
    )
    path = f"{MSGS}/{embedded.id}"
    refused(await env.call("PATCH", path, v2()), 400, 50035)
    assert (await env.call("PATCH", path, v2(embeds=[]))).status == 200


async def test_the_v2_flag_cannot_be_removed(env: Env) -> None:
    assert (await env.call("PATCH", EDIT, v2(content=""))).status == 200
    refused(await env.call("PATCH", EDIT, {"flags": 0, "content": "back to text"}), 400, 50035)
    kept = await env.call("PATCH", EDIT, {"flags": 0, "components": [container(*texts(2))]})
    assert kept.status == 200 and kept.body["flags"] & IS_COMPONENTS_V2
    assert env.message.v2 and env.message.text == "t\nt"


async def test_a_deferred_answer_then_a_v2_edit_of_original(env: Env) -> None:
    """The V2 flag goes on the edit of @original, not on the deferral (type 5)."""
    inter = env.interaction()
    callback = f"/interactions/{inter.id}/{inter.token}/callback"
    refused(await env.call("POST", callback, {"type": 5, "data": {"flags": IS_COMPONENTS_V2}}),
            400, 50035)
    assert inter.original is None
    assert (await env.call("POST", callback, {"type": 5, "data": {}})).status == 204
    edit = await env.call("PATCH", f"/webhooks/{{app}}/{inter.token}/messages/@original", v2())
    assert edit.status == 200 and edit.body["flags"] & IS_COMPONENTS_V2
    assert inter.original is not None and not inter.original.loading


# --- uploads ----------------------------------------------------------------------------------


async def test_an_attachment_names_a_files_part(env: Env) -> None:
    described = {"content": "x", "attachments": [{"id": 1, "filename": "a.png"}]}
    refused(await env.call("POST", MSGS, data=form(described, ("files[0]", "a.png", b"a"))),
            400, 50035)
    assert env.table.messages == [env.message]
    fixed = {"content": "x", "attachments": [{"id": 0, "filename": "a.png",
                                              "description": "the table"}]}
    answer = await env.call("POST", MSGS, data=form(fixed, ("files[0]", "a.png", b"a")))
    assert answer.status == 200, answer.body
    [attachment] = answer.body["attachments"]
    assert (attachment["filename"], attachment["description"]) == ("a.png", "the table")


async def test_an_edit_keeps_attachments_by_id_and_refuses_unknown_ones(env: Env) -> None:
    posted = await env.call("POST", MSGS, data=form({"content": "x"}, ("files[0]", "a", b"a")))
    kept_id = posted.body["attachments"][0]["id"]
    path = f"{MSGS}/{posted.body['id']}"
    refused(await env.call("PATCH", path, {"attachments": [{"id": "1234"}]}), 400, 50035)
    new = {"attachments": [{"id": kept_id}, {"id": 0, "filename": "b"}]}
    edited = await env.call("PATCH", path, data=form(new, ("files[0]", "b", b"bb")))
    assert edited.status == 200, edited.body
    assert [a["filename"] for a in edited.body["attachments"]] == ["a", "b"]


async def test_at_most_ten_files(env: Env) -> None:
    def parts(n: int) -> list[tuple[str, str, bytes]]:
        return [(f"files[{i}]", f"f{i}.txt", b"x") for i in range(n)]

    refused(await env.call("POST", MSGS, data=form({"content": "x"}, *parts(11))), 400, 50035)
    answer = await env.call("POST", MSGS, data=form({"content": "x"}, *parts(10)))
    assert answer.status == 200 and len(answer.body["attachments"]) == 10


async def test_alt_text_at_most_1024_characters(env: Env) -> None:
    def body(n: int) -> dict[str, Any]:
        return {"content": "x", "attachments": [{"id": 0, "description": "d" * n}]}

    refused(await env.call("POST", MSGS, data=form(body(1025), ("files[0]", "a", b"a"))),
            400, 50035)
    assert (await env.call("POST", MSGS, data=form(body(1024), ("files[0]", "a", b"a")))).status \
        == 200


async def test_a_file_over_the_upload_limit_is_413(env: Env) -> None:
    env.fake.attachment_size_limit = 100
    one = ("files[0]", "a.png", b"a" * 101)
    refused(await env.call("POST", MSGS, data=form({"content": "x"}, one)), 413, 40005)
    fits = ("files[0]", "a.png", b"a" * 100)
    assert (await env.call("POST", MSGS, data=form({"content": "x"}, fits))).status == 200
    inter = env.interaction()  # the limit as the interaction carries it
    assert inter.attachment_size_limit == 100
    payload = env.fake.driver.build_payload(inter)  # type: ignore[attr-defined]
    assert payload["attachment_size_limit"] == 100
    callback = f"/interactions/{inter.id}/{inter.token}/callback"
    answer = {"type": 4, "data": {"content": "x"}}
    refused(await env.call("POST", callback, data=form(answer, one)), 413, 40005)
    assert (await env.call("POST", callback, data=form(answer, fits))).status == 204


async def test_the_default_upload_limit_is_10_mib(env: Env) -> None:
    inter = env.interaction()
    payload = env.fake.driver.build_payload(inter)  # type: ignore[attr-defined]
    assert payload["attachment_size_limit"] == inter.attachment_size_limit == 10 * 1024 * 1024


async def test_a_v2_message_shows_only_the_files_its_components_name(env: Env) -> None:
    files = (("files[0]", "a.png", b"a"), ("files[1]", "b.png", b"b"))
    bad = await env.call("POST", MSGS, data=form(v2(gallery("a.png")), *files))
    assert bad.status == 200 and len(bad.body["attachments"]) == 2, "the API keeps both"
    [msg] = [m for m in env.table.messages if m.id == int(bad.body["id"])]
    assert [a["filename"] for a in msg.shown_attachments] == ["a.png"]
    assert len(env.fake.lint) == 1 and "b.png" in env.fake.lint[0].problem
    env.fake.lint.clear()
    good = await env.call("POST", MSGS, data=form(v2(gallery("a.png", "b.png")), *files))
    assert good.status == 200 and not env.fake.lint
    [msg] = [m for m in env.table.messages if m.id == int(good.body["id"])]
    assert len(msg.shown_attachments) == 2


async def test_v2_text_needs_no_embed_links(env: Env) -> None:
    """Assumed (undocumented): a bot without Embed Links still shows its V2 text; its
    embeds are dropped as before."""
    await env.table.set_permissions(env.guild.me, deny=EMBED_LINKS)
    answer = await env.call("POST", MSGS, v2(*texts(1, "the table")))
    assert answer.status == 200 and env.table.messages[-1].text == "the table"
    assert env.fake.dropped_embeds == 0
    dropped = await env.call("POST", MSGS, {"content": "x", "embeds": [{"title": "t"}]})
    assert dropped.status == 200 and dropped.body["embeds"] == []
    assert env.fake.dropped_embeds == 1


async def test_an_ephemeral_v2_answer(env: Env) -> None:
    inter = env.interaction()
    callback = f"/interactions/{inter.id}/{inter.token}/callback"
    body = {"type": 4, "data": v2(flags=IS_COMPONENTS_V2 | EPHEMERAL)}
    assert (await env.call("POST", callback, body)).status == 204
    assert inter.original is not None and inter.original.ephemeral and inter.original.v2


# --- injected 429s ----------------------------------------------------------------------------

RATE_HEADERS = ("X-RateLimit-", "Retry-After", "Via")


def rate_headers(answer: Answer) -> set[str]:
    return {k for k in answer.headers if k.startswith(RATE_HEADERS)}


@pytest.mark.parametrize("env", [Pacing(0.001)], indirect=True)
async def test_an_injected_429_has_a_paced_429s_headers(env: Env) -> None:
    for i in range(5):
        assert (await env.call("POST", MSGS, {"content": str(i)})).status == 200
    paced = await env.call("POST", MSGS, {"content": "6"})
    assert paced.status == 429
    other = env.guild.add_text_channel("other")
    env.fake.rate_limit("POST", "/channels/*/messages", retry_after=0.5)
    injected = await env.call("POST", f"/channels/{other.id}/messages", {"content": "x"})
    assert injected.status == 429 and rate_headers(injected) == rate_headers(paced)
    assert injected.headers["X-RateLimit-Remaining"] == "0"
    assert injected.headers["X-RateLimit-Bucket"] == paced.headers["X-RateLimit-Bucket"]
    assert float(injected.headers["X-RateLimit-Reset-After"]) == 0.5
    for i in range(50):  # the global limit, paced
        await env.call("GET", "/users/@me" if i % 2 else "/guilds/{guild}/roles")
    paced_global = await env.call("GET", "/guilds/{guild}")
    assert paced_global.status == 429 and paced_global.body["global"] is True
    env.fake.pacing = None
    env.fake.rate_limit("GET", "/users/@me", retry_after=0.5, is_global=True)
    injected_global = await env.call("GET", "/users/@me")
    assert injected_global.status == 429 and injected_global.body["global"] is True
    assert rate_headers(injected_global) == rate_headers(paced_global)
    assert injected_global.headers["X-RateLimit-Global"] == "true"
    assert injected_global.headers["X-RateLimit-Scope"] == "global"
