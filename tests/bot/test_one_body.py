"""An upload leaves as one body (cogs/discord_compat.py ``one_body``) that reads, part for
part, as the form discord.py would have sent: aiohttp's own multipart reader is the judge."""

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

NAMES = ["hand-0a1b.png", "é et ü.png", 'a "quoted" ; name.txt', "back\\slash.png", ""]
PICTURE = b"\x89PNG\r\n--\r\n\x00" * 50


async def read_parts(request: web.Request) -> web.Response:
    parts = []
    async for part in await request.multipart():
        assert isinstance(part, aiohttp.BodyPartReader)
        parts.append([part.name, part.filename, part.headers.get("Content-Type"),
                      (await part.read()).hex()])
    return web.json_response(parts)


@pytest.fixture
async def client() -> AsyncIterator[TestClient]:
    app = web.Application()
    app.router.add_post("/", read_parts)
    async with TestClient(TestServer(app)) as running:
        yield running


def files(name: str) -> list[discord.File]:
    return [discord.File(io.BytesIO(PICTURE), filename=name, description="a hand"),
            discord.File(io.BytesIO(b"second"), filename="two.png")]


@pytest.mark.filterwarnings("ignore::aiohttp.multipart.BadContentDispositionHeader")
@pytest.mark.parametrize("name", NAMES)  # (aiohttp's reader gives up on the quoted name,
# whoever wrote it: it warns, and reads no name from ours or from its own form)
async def test_one_body_reads_as_discord_py_form(client: TestClient, name: str) -> None:
    with handle_message_parameters(content="é", files=files(name)) as params:
        body = one_body(params)
        ours = await (await client.post("/", data=body)).json()
        again = await (await client.post("/", data=one_body(params))).json()  # (a retry)
        form = aiohttp.FormData(quote_fields=False)  # (last: it reads the files to their end)
        for part in params.multipart or ():
            form.add_field(**part)
        theirs = await (await client.post("/", data=form)).json()
    assert [p[:2] + p[3:] for p in ours] == [p[:2] + p[3:] for p in theirs]
    assert ours == again and ours[1][3] == PICTURE.hex() and ours[2][3] == b"second".hex()
    assert ours[0][2] == "application/json"  # payload_json, as Discord's documentation sends it
    assert body.content_type.startswith("multipart/form-data")


def test_a_line_break_in_a_name_is_refused() -> None:
    with handle_message_parameters(content="x", files=files("bad\r\nname.png")) as params, \
            pytest.raises(ValueError, match="line break"):
        one_body(params)
