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


FILE_PART = re.compile(r"files\[(\d+)\]")


async def read_body(request: web.Request, fake: Uploads) -> Any:
    """The JSON body; for multipart uploads, payload_json plus attachment objects.

    The body's ``attachments`` becomes Discord's list: each entry whose ``id`` is the ``n`` of
    a ``files[n]`` part is that upload (with a url, and the entry's ``description``); other
    entries stay as sent (an edit's kept attachments, by id; validate refuses unknown ones);
    uploads no entry names follow. A part not named ``files[n]`` takes its place's number."""
    if media_type(request).startswith("multipart/"):
        payload: dict[str, Any] = {}
        files: dict[int, tuple[str, bytes]] = {}
        content_type = request.headers.get(hdrs.CONTENT_TYPE, "")
        for name, filename, data in split_form(content_type, await request.read()):
            if name == "payload_json":
                payload = json.loads(data)
            else:
                numbered = FILE_PART.fullmatch(name or "")
                n = int(numbered.group(1)) if numbered else len(files)
                files[n] = (filename or "file", data)
        request[PAYLOAD_JSON] = dict(payload)  # for the traffic log (server._middleware)
        inner = payload.get("data") if isinstance(payload.get("data"), dict) else payload
        entries = [a for a in inner.get("attachments") or [] if isinstance(a, dict)]
        uploads = {n: _upload(fake, n, filename, data) for n, (filename, data) in files.items()}
        merged: list[dict[str, Any]] = []
        for entry in entries:
            upload = uploads.pop(_index(entry.get("id")), None)
            if upload is None:
                merged.append(entry)
                continue
            if "description" in entry:
                upload["description"] = entry["description"]
            if isinstance(entry.get("filename"), str) and entry["filename"]:
                upload["filename"] = entry["filename"]
            merged.append(upload)
        merged.extend(uploads.values())
        if merged:
            payload["attachments"] = merged
        return payload
    raw = await request.read()
    if not raw:
        return {}
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise ApiError(400, INVALID_FORM_BODY, "Invalid Form Body") from exc


def _index(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _upload(fake: Uploads, n: int, filename: str, data: bytes) -> dict[str, Any]:
    """The attachment object of the ``files[n]`` part (``index``: its ``n``)."""
    aid = fake.snowflakes.next()
    if fake.keep_files:
        fake.files[aid] = data
    url = f"https://cdn.fake.invalid/attachments/{aid}/{filename}"
    return {
        "id": str(aid),
        "filename": filename,
        "size": len(data),
        "url": url,
        "proxy_url": url,
        "content_type": "application/octet-stream",
        "index": n,
    }
