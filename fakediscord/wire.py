"""Wire helpers: JSON answers with the exact content type, request bodies (JSON or multipart)."""

from __future__ import annotations

import json
import re
from typing import Any, Protocol

from aiohttp import hdrs, web
from aiohttp.helpers import parse_mimetype
from aiohttp.multipart import content_disposition_filename, parse_content_disposition

from .base import Snowflakes
from .validate import INVALID_FORM_BODY, ApiError

PAYLOAD_JSON = web.RequestKey("payload_json", dict[str, Any])
"""An upload's JSON part, kept on its request for the traffic log (server._middleware)."""


class Uploads(Protocol):
    """Where uploads go (``fakediscord.state.State``, above the wire helpers)."""

    @property
    def snowflakes(self) -> Snowflakes: ...

    @property
    def keep_files(self) -> bool: ...

    @property
    def files(self) -> dict[int, bytes]: ...


def json_response(
    data: Any, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    """discord.py parses JSON only when Content-Type is exactly application/json."""
    return web.Response(
        body=json.dumps(data).encode(),
        status=status,
        content_type="application/json",
        headers=headers,
    )


def no_content() -> web.Response:
    return web.Response(status=204)


def media_type(request: web.Request) -> str:
    """The request's media type (lower case, no parameters), read from the raw header:
    aiohttp's ``request.content_type`` parses it with the email package, ~1 ms a call that its
    cache misses for every multipart upload (each has its own boundary)."""
    return request.headers.get(hdrs.CONTENT_TYPE, "").partition(";")[0].strip().lower()


PLAIN_DISPOSITION = re.compile(r'form-data(?:; (?:name|filename)="[^"\\/][^"\\]*")+')
PARAM = re.compile(r'; (name|filename)="([^"]*)"')


def disposition(header: str | None) -> tuple[str | None, str | None]:
    """A multipart part's ``(name, filename)``, as aiohttp's ``BodyPartReader.name`` and
    ``.filename`` read them. The plain form discord.py sends (quoted values without escapes)
    is read here; anything else by aiohttp's parser, which costs ~0.2 ms a call."""
    if header is not None and PLAIN_DISPOSITION.fullmatch(header):
        params = dict(PARAM.findall(header))
    else:
        params = parse_content_disposition(header)[1]
    return (content_disposition_filename(params, "name"),
            content_disposition_filename(params, "filename"))


def split_form(content_type: str, body: bytes) -> list[tuple[str | None, str | None, bytes]]:
    """Each part of a multipart/form-data body: ``(name, filename, bytes)``.

    Split at its boundary here (RFC 2046) rather than by aiohttp's ``MultipartReader``,
    which parses every part's Content-Disposition with that slow parser: the fake reads
    thousands of uploads in a whole-game test (each hand's picture is one)."""
    boundary = parse_mimetype(content_type).parameters.get("boundary")
    if not boundary:
        raise ApiError(400, INVALID_FORM_BODY, "Invalid Form Body")
    segments = (b"\r\n" + body).split(b"\r\n--" + boundary.encode())
    if len(segments) < 2 or not segments[-1].startswith(b"--"):
        raise ApiError(400, INVALID_FORM_BODY, "Invalid Form Body")
    parts = []
    for segment in segments[1:-1]:
        head, found, data = segment.partition(b"\r\n\r\n")  # the delimiter's line, headers
        if not found:
            raise ApiError(400, INVALID_FORM_BODY, "Invalid Form Body")
        lines = [line.partition(":") for line in head.decode().split("\r\n")[1:]]
        header = next((value.strip() for key, _, value in lines
                       if key.strip().lower() == "content-disposition"), None)
        parts.append((*disposition(header), data))
    return parts


async def read_body(request: web.Request, fake: Uploads) -> Any:
    """The JSON body; for multipart uploads, payload_json plus attachment objects."""
    if media_type(request).startswith("multipart/"):
        payload: dict[str, Any] = {}
        files: list[dict[str, Any]] = []
        content_type = request.headers.get(hdrs.CONTENT_TYPE, "")
        for name, filename, data in split_form(content_type, await request.read()):
            if name == "payload_json":
                payload = json.loads(data)
            else:
                files.append({"filename": filename or "file", "size": len(data), "data": data})
        attachments = []
        for i, f in enumerate(files):
            aid = fake.snowflakes.next()
            if fake.keep_files:
                fake.files[aid] = f["data"]
            url = f"https://cdn.fake.invalid/attachments/{aid}/{f['filename']}"
            attachments.append(
                {
                    "id": str(aid),
                    "filename": f["filename"],
                    "size": f["size"],
                    "url": url,
                    "proxy_url": url,
                    "content_type": "application/octet-stream",
                    "index": i,
                }
            )
        request[PAYLOAD_JSON] = dict(payload)  # for the traffic log (server._middleware)
        inner = payload.get("data") if isinstance(payload.get("data"), dict) else payload
        described = {str(a.get("id")): a for a in inner.get("attachments") or []
                     if isinstance(a, dict)}  # (an interaction response: under "data")
        for a in attachments:  # the alt text the client sent for file N (attachments[].id N)
            text = described.get(str(a["index"]), {}).get("description")
            if isinstance(text, str):
                a["description"] = text
        if attachments:
            payload["attachments"] = attachments
        return payload
    raw = await request.read()
    if not raw:
        return {}
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise ApiError(400, INVALID_FORM_BODY, "Invalid Form Body") from exc
