"""The fake reads a multipart upload as aiohttp's own reader does (it splits it itself: faster)."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator

import aiohttp
import discord
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from discord.http import handle_message_parameters

from cogs.discord_compat import one_body
from fakediscord.validate import ApiError
from fakediscord.wire import split_form

FILENAMES = ["hand.png", "lama-0a1b.json", "é et ü.png", 'a "quoted" ; name.txt',
             "/leading-slash.png", "back\\slash.png", ""]


async def form(*files: tuple[str, bytes]) -> tuple[str, bytes]:
    """A body as discord.py sends it: payload_json, then files[n] (aiohttp's FormData)."""
    data = aiohttp.FormData()
    data.add_field("payload_json", '{"content": "é"}', content_type="application/json")
    for n, (filename, content) in enumerate(files):
        data.add_field(f"files[{n}]", content, filename=filename,
                       content_type="application/octet-stream")
    payload = data()
    return payload.content_type, await payload.as_bytes()


async def aiohttp_reader(request: web.Request) -> web.Response:
    parts = []
    async for part in await request.multipart():
        parts.append([part.name, part.filename, (await part.read()).hex()])  # type: ignore[union-attr]
    return web.json_response(parts)


@pytest.fixture
async def client() -> AsyncIterator[TestClient]:
    """A server on 127.0.0.1 that reads an upload with aiohttp's MultipartReader."""
    app = web.Application()
    app.router.add_post("/", aiohttp_reader)
    async with TestClient(TestServer(app)) as running:
        yield running


async def aiohttp_reads(client: TestClient, content_type: str, body: bytes
                        ) -> list[tuple[object, ...]]:
    answer = await client.post("/", data=body, headers={"Content-Type": content_type})
    return [(name, filename, bytes.fromhex(data)) for name, filename, data in await answer.json()]


@pytest.mark.parametrize("filename", FILENAMES)
async def test_parts_are_read_as_aiohttp_reads_them(client: TestClient, filename: str) -> None:
    content_type, body = await form((filename, b"\x89PNG\r\n--\r\n\x00"), ("two.png", b""))
    ours = split_form(content_type, body)
    assert ours == await aiohttp_reads(client, content_type, body)
    assert ours[0][:2] == ("payload_json", None) and ours[1][2] == b"\x89PNG\r\n--\r\n\x00"


async def test_a_body_cut_short_or_without_boundary_is_refused() -> None:
    content_type, body = await form(("hand.png", b"png"))
    for bad_type, bad_body in ((content_type, body[: len(body) // 2]),
                               ("multipart/form-data", body)):
        with pytest.raises(ApiError) as refused:
            split_form(bad_type, bad_body)
        assert refused.value.status == 400


PICTURE = b"\x89PNG\r\n--\r\n\x00" * 50


def hand_files(name: str) -> list[discord.File]:
    return [discord.File(io.BytesIO(PICTURE), filename=name, description="a hand"),
            discord.File(io.BytesIO(b"second"), filename="two.png")]


@pytest.mark.filterwarnings("ignore::aiohttp.multipart.BadContentDispositionHeader")
@pytest.mark.parametrize("filename", FILENAMES)  # (aiohttp's reader gives up on the quoted
# name, whoever wrote it: it warns, and reads no name from either body)
async def test_the_bots_one_body_reads_as_discord_pys_form(client: TestClient, filename: str
                                                           ) -> None:
    """An upload leaves the bot as one body (cogs/discord_compat.py ``one_body``): aiohttp's
    reader and the fake read it, part for part, as the form discord.py would have sent."""
    with handle_message_parameters(content="é", files=hand_files(filename)) as params:
        body = one_body(params)
        retried = one_body(params)  # (built again for a retry: the files are left as found)
        form = aiohttp.FormData(quote_fields=False)  # (last: it reads the files to their end)
        for part in params.multipart or ():
            form.add_field(**part)
        theirs = form()
        theirs_bytes = await theirs.as_bytes()
    sent = await body.as_bytes()
    ours = await aiohttp_reads(client, body.content_type, sent)
    assert ours == await aiohttp_reads(client, theirs.content_type, theirs_bytes)
    assert ours == await aiohttp_reads(client, retried.content_type, await retried.as_bytes())
    assert ours == split_form(body.content_type, sent)
    assert ours[1][2] == PICTURE and ours[2][2] == b"second"
    json_part = (b"Content-Type: application/json\r\n"
                 b'Content-Disposition: form-data; name="payload_json"')
    assert json_part in sent  # (as Discord's documentation sends it)


def test_a_line_break_in_an_uploaded_name_is_refused() -> None:
    with handle_message_parameters(content="x", files=hand_files("bad\r\nname.png")) as params, \
            pytest.raises(ValueError, match="line break"):
        one_body(params)
