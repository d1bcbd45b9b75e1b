"""Wire helpers: JSON answers with the exact content type, request bodies (JSON or multipart)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .validate import INVALID_FORM_BODY, ApiError

if TYPE_CHECKING:
    from .fake import FakeDiscord


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


async def read_body(request: web.Request, fake: FakeDiscord) -> Any:
    """The JSON body; for multipart uploads, payload_json plus attachment objects."""
    if request.content_type.startswith("multipart/"):
        payload: dict[str, Any] = {}
        files: list[dict[str, Any]] = []
        reader = await request.multipart()
        async for part in reader:
            if part.name == "payload_json":  # type: ignore[union-attr]
                payload = json.loads(await part.text())  # type: ignore[union-attr]
            else:
                data = await part.read()  # type: ignore[union-attr]
                files.append({"filename": part.filename or "file", "size": len(data),  # type: ignore[union-attr]
                              "data": bytes(data)})
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
        request["payload_json"] = dict(payload)  # for the traffic log (server._middleware)
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
