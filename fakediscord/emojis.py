"""Application emojis: /applications/{id}/emojis (list, create, get, edit, delete).

Rules from Discord's emoji documentation: an application owns up to 2000 emojis, names are
2-32 characters of letters, digits and underscores and unique within the application, images
are data URIs of at most 256 KiB.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .validate import ApiError, FormErrors, unknown
from .wire import json_response, no_content, read_body

if TYPE_CHECKING:
    from .state import State

MAX_APPLICATION_EMOJIS = 2000
MAX_EMOJI_BYTES = 256 * 1024
EMOJI_NAME = re.compile(r"^[A-Za-z0-9_]{2,32}$")
DATA_URI = re.compile(r"^data:image/(png|jpeg|gif|webp|avif);base64,(.+)$", re.S)
UNKNOWN_EMOJI = 10014
MAX_EMOJIS = 30008  # "Maximum number of emojis reached" (30018 is animated emojis)


class EmojiRoutes:
    """Emojis stored in ``fake.emojis`` (id -> emoji object)."""

    def __init__(self, fake: State) -> None:
        self.fake = fake

    def add_to(self, app: web.Application, prefix: str) -> None:
        base = f"{prefix}/applications/{{app_id}}/emojis"
        app.router.add_get(base, self.list)
        app.router.add_post(base, self.create)
        app.router.add_get(f"{base}/{{emoji_id}}", self.get)
        app.router.add_patch(f"{base}/{{emoji_id}}", self.edit)
        app.router.add_delete(f"{base}/{{emoji_id}}", self.delete)

    def _app(self, request: web.Request) -> None:
        if request.match_info["app_id"] != str(self.fake.application_id):
            raise ApiError(403, 50001, "Missing Access")

    def _emoji(self, request: web.Request) -> dict[str, Any]:
        self._app(request)
        try:
            emoji = self.fake.emojis.get(int(request.match_info["emoji_id"]))
        except ValueError:
            emoji = None
        if emoji is None:
            raise unknown("Emoji", UNKNOWN_EMOJI)
        return emoji

    def _check_name(self, err: FormErrors, name: Any, own_id: int | None = None) -> None:
        if not isinstance(name, str) or not EMOJI_NAME.match(name):
            err.add("name", "STRING_TYPE_REGEX", "String value did not match validation regex.")
        elif any(e["name"] == name and int(e["id"]) != own_id for e in self.fake.emojis.values()):
            err.add("name", "APPLICATION_EMOJI_NAME_ALREADY_TAKEN", "Emoji name already taken.")

    async def list(self, request: web.Request) -> web.Response:
        self._app(request)
        return json_response({"items": list(self.fake.emojis.values())})

    async def get(self, request: web.Request) -> web.Response:
        return json_response(self._emoji(request))

    async def create(self, request: web.Request) -> web.Response:
        self._app(request)
        body = await read_body(request, self.fake)
        body = body if isinstance(body, dict) else {}
        err = FormErrors("")
        self._check_name(err, body.get("name"))
        match = DATA_URI.match(str(body.get("image") or ""))
        size = 0
        if match is None:
            err.add("image", "IMAGE_INVALID", "Invalid image data")
        else:
            try:
                size = len(base64.b64decode(match[2], validate=True))
            except (binascii.Error, ValueError):
                err.add("image", "IMAGE_INVALID", "Invalid image data")
            if size > MAX_EMOJI_BYTES:
                err.add("image", "BINARY_TYPE_MAX_SIZE", "File cannot be larger than 256.0 kb.")
        err.raise_if_any()
        if len(self.fake.emojis) >= MAX_APPLICATION_EMOJIS:
            raise ApiError(400, MAX_EMOJIS, "Maximum number of emojis reached (2000)")
        emoji_id = self.fake.snowflakes.next()
        emoji = {
            "id": str(emoji_id),
            "name": body["name"],
            "roles": [],
            "user": self.fake.bot_user.payload(),
            "require_colons": True,
            "managed": False,
            "animated": bool(match and match[1] == "gif"),
            "available": True,
        }
        self.fake.emojis[emoji_id] = emoji
        self.fake.log("emoji-created", {"name": emoji["name"], "bytes": size})
        return json_response(emoji, 201)

    async def edit(self, request: web.Request) -> web.Response:
        emoji = self._emoji(request)
        body = await read_body(request, self.fake)
        err = FormErrors("")
        self._check_name(err, (body or {}).get("name"), int(emoji["id"]))
        err.raise_if_any()
        emoji["name"] = body["name"]
        return json_response(emoji)

    async def delete(self, request: web.Request) -> web.Response:
        emoji = self._emoji(request)
        del self.fake.emojis[int(emoji["id"])]
        return no_content()
