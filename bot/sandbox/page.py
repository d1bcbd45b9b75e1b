"""The page's server: static files, a WebSocket of changes, and the members' actions.

Bound to 127.0.0.1. Every request must name the sandbox itself as Host (a DNS-rebinding
page cannot), and a request from a page must come from the sandbox's own origin, so no
other site open in the browser can drive the sandbox.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

from aiohttp import WSMsgType, web

from fakediscord import FakeDiscordError
from fakediscord.base import WaitTimeout

from .slash import parse
from .texts import page_language, page_texts
from .world import SandboxError, World

log = logging.getLogger(__name__)

STATIC = {"app.js": "text/javascript", "slash.js": "text/javascript",
          "markdown.js": "text/javascript", "layout.js": "text/javascript",
          "turn.js": "text/javascript",
          "style.css": "text/css", "index.html": "text/html"}
WORLD = web.AppKey("world", World)
SOCKETS = web.AppKey("sockets", set)  # type: ignore[var-annotated]
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def allowed_hosts(port: int) -> set[str]:
    return {f"127.0.0.1:{port}", f"localhost:{port}"}


def build_app(world: World, port: int) -> web.Application:
    hosts = allowed_hosts(port)
    origins = {f"http://{host}" for host in hosts}

    @web.middleware
    async def same_origin_only(request: web.Request, handler: Handler) -> web.StreamResponse:
        origin = request.headers.get("Origin")
        writes = request.method != "GET" or request.path == "/live"
        if request.host not in hosts or (origin is None and writes) or (
            origin is not None and origin not in origins
        ):
            return web.Response(status=403, text="The sandbox only answers its own page.")
        if request.method == "POST" and request.content_type != "application/json":
            return web.Response(status=415, text="JSON only.")
        response = await handler(request)
        response.headers["Content-Security-Policy"] = (
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
            f"connect-src 'self' ws://127.0.0.1:{port} ws://localhost:{port}; "
            "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        )
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Cache-Control"] = "no-store"
        return response

    app = web.Application(middlewares=[same_origin_only], client_max_size=64 * 1024)
    app[WORLD] = world
    app[SOCKETS] = set()
    app.router.add_get("/", static)
    app.router.add_get("/static/{name}", static)
    app.router.add_get("/attachments/{id}", attachment)
    app.router.add_get("/live", live)
    app.router.add_post("/api/slash", action(slash))
    app.router.add_post("/api/click", action(click))
    app.router.add_post("/api/select", action(select))
    app.router.add_post("/api/members", action(add_member))
    app.router.add_post("/api/language", action(language))
    app.on_shutdown.append(close_sockets)
    return app


async def static(request: web.Request) -> web.Response:
    name = request.match_info.get("name", "index.html")
    if name not in STATIC:
        raise web.HTTPNotFound()
    body = resources.files(__package__).joinpath("static", name).read_bytes()
    return web.Response(body=body, content_type=STATIC[name], charset="utf-8")


async def attachment(request: web.Request) -> web.Response:
    """A file the bot uploaded: images shown as images, anything else only downloaded."""
    world = request.app[WORLD]
    try:
        data = world.fake.files[int(request.match_info["id"])]
    except (KeyError, ValueError):
        raise web.HTTPNotFound() from None
    kind = imghdr_type(data)
    if kind is None:
        return web.Response(body=data, content_type="application/octet-stream",
                            headers={"Content-Disposition": "attachment"})
    return web.Response(body=data, content_type=kind)


def imghdr_type(data: bytes) -> str | None:
    """The image type from the file's first bytes (never from its name: the bot chose it)."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


# --- live changes -----------------------------------------------------------------------
async def live(request: web.Request) -> web.WebSocketResponse:
    """A snapshot, then every created, edited or deleted message and member/language change."""
    world = request.app[WORLD]
    ws = web.WebSocketResponse(heartbeat=20)
    await ws.prepare(request)
    request.app[SOCKETS].add(ws)
    accept = request.headers.get("Accept-Language")
    sender = asyncio.create_task(send_changes(world, ws, accept))
    try:
        async for msg in ws:
            if msg.type == WSMsgType.ERROR:
                break
    finally:
        sender.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sender
        request.app[SOCKETS].discard(ws)
    return ws


def meta(world: World) -> dict[str, Any]:
    return {"type": "meta", "members": [world.member_json(m) for m in world.members],
            "names": world.mention_names(), "language": world.language,
            "commands": world.commands, "channels": world.channels_json(),
            "dms": world.dms_json()}


async def send_changes(world: World, ws: web.WebSocketResponse, accept: str | None) -> None:
    events = world.fake.notifier.events
    seen = len(events)
    texts = page_texts(page_language(world.language, accept))
    await ws.send_json({**world.snapshot(), "texts": texts}, dumps=compact)
    last = meta(world)
    while not ws.closed:
        with contextlib.suppress(WaitTimeout):
            await world.fake.notifier.wait_for(news(world, seen, last), 30, "changes")
        changed = {m.id: m for _, m in events[seen:] if world.shows(m.channel)}
        seen = len(events)
        for msg in changed.values():
            await ws.send_json({"type": "message", "message": world.message_json(msg)},
                               dumps=compact)
        if meta(world) != last:
            last = meta(world)
            texts = page_texts(page_language(world.language, accept))
            await ws.send_json({**last, "texts": texts}, dumps=compact)


def news(world: World, seen: int, last: dict[str, Any]) -> Callable[[], bool | None]:
    events = world.fake.notifier.events
    return lambda: True if len(events) > seen or meta(world) != last else None


def compact(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"))


async def close_sockets(app: web.Application) -> None:
    for ws in list(app[SOCKETS]):
        await ws.close()


# --- actions ----------------------------------------------------------------------------
Action = Callable[[World, dict[str, Any]], Awaitable[dict[str, Any]]]


def action(run: Action) -> Handler:
    """Answers ``{"ok": ...}`` or ``{"error": "why"}`` (400) for a refused action."""

    async def handle(request: web.Request) -> web.Response:
        world = request.app[WORLD]
        tr = page_language(world.language, request.headers.get("Accept-Language"))
        body = read_object(await request.read())
        if body is None:
            return web.json_response({"error": tr("Send a JSON object.")}, status=400)
        try:
            result = await run(world, body)
        except SandboxError as exc:
            return web.json_response({"error": exc.text(tr)}, status=400)
        except FakeDiscordError as exc:  # the fake's own words (the bot did not answer...)
            return web.json_response({"error": str(exc)}, status=400)
        return web.json_response({"ok": True, **result})

    return handle


def read_object(raw: bytes) -> dict[str, Any] | None:
    """The body as a JSON object, or None for anything else: bytes that are not UTF-8, text
    that is not JSON, JSON nested deeper than the parser goes (a RecursionError), a list."""
    try:
        body = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):  # (UnicodeDecodeError, JSONDecodeError: ValueErrors)
        return None
    return body if isinstance(body, dict) else None


async def slash(world: World, body: dict[str, Any]) -> dict[str, Any]:
    member = world.member(body.get("member"))
    command, options = parse(str(body.get("text", "")), world.commands, world.members)
    result = await member.slash(world.channel_of(body.get("channel")), command, **options)
    return {"modal": result.modal is not None}


async def click(world: World, body: dict[str, Any]) -> dict[str, Any]:
    member = world.member(body.get("member"))
    msg = world.message(body.get("message"))
    await member.click(msg, str(body.get("custom_id", "")))
    return {}


async def select(world: World, body: dict[str, Any]) -> dict[str, Any]:
    member = world.member(body.get("member"))
    msg = world.message(body.get("message"))
    await member.select(msg, str(body.get("value", "")), custom_id=str(body.get("custom_id")))
    return {}


async def add_member(world: World, body: dict[str, Any]) -> dict[str, Any]:
    member = world.add_member(str(body.get("name", "")))
    world.fake.notifier.notify()
    return {"member": world.member_json(member)}


async def language(world: World, body: dict[str, Any]) -> dict[str, Any]:
    """The server language, set as its admin would: ``/lama config language``."""
    code = str(body.get("language", ""))
    command, options = parse(f"/lama config language language:{code}", world.commands,
                             world.members)
    result = await world.admin.slash(world.channel, command, **options)
    world.language = code
    world.fake.notifier.notify()
    reply = result.message
    return {"reply": reply.text if reply is not None else ""}
