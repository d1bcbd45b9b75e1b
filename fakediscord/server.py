"""The REST side: middleware (auth, faults, error wrapping, logging) and the bot's routes."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .channels import ChannelRoutes, snowflake
from .commands_check import check_commands
from .emojis import EmojiRoutes
from .interactions import InteractionRoutes
from .model import Guild
from .ratelimit import injected_429
from .validate import ApiError, unknown
from .wire import PAYLOAD_JSON, json_response, media_type, read_body

if TYPE_CHECKING:
    from .state import State

log = logging.getLogger(__name__)

PREFIX = "/api/v10"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def build_app(fake: State) -> web.Application:
    app = web.Application(middlewares=[_middleware(fake)], client_max_size=64 * 1024 * 1024)
    rest = Rest(fake)
    inter = InteractionRoutes(fake)
    p = PREFIX
    app.router.add_get("/gateway", fake.gateway.handle)
    app.router.add_get(f"{p}/gateway", rest.get_gateway)
    app.router.add_get(f"{p}/gateway/bot", rest.get_gateway_bot)
    app.router.add_get(f"{p}/users/@me", rest.get_me)
    app.router.add_get(f"{p}/users/{{user_id}}", rest.get_user)
    app.router.add_get(f"{p}/oauth2/applications/@me", rest.get_application)
    app.router.add_get(f"{p}/applications/@me", rest.get_application)
    cmds = f"{p}/applications/{{app_id}}/commands"
    gcmds = f"{p}/applications/{{app_id}}/guilds/{{guild_id}}/commands"
    for path in (cmds, gcmds):
        app.router.add_put(path, rest.put_commands)
        app.router.add_get(path, rest.get_commands)
    ChannelRoutes(fake).add_to(app, p)
    fake.dms.add_to(app, p)
    EmojiRoutes(fake).add_to(app, p)
    app.router.add_get(f"{p}/guilds/{{guild_id}}", rest.get_guild)
    app.router.add_get(f"{p}/guilds/{{guild_id}}/channels", rest.get_guild_channels)
    app.router.add_get(f"{p}/guilds/{{guild_id}}/roles", rest.get_roles)
    app.router.add_get(f"{p}/guilds/{{guild_id}}/members", rest.list_members)
    app.router.add_get(f"{p}/guilds/{{guild_id}}/members/{{user_id}}", rest.get_member)
    app.router.add_post(f"{p}/interactions/{{interaction_id}}/{{token}}/callback", inter.callback)
    hook = f"{p}/webhooks/{{app_id}}/{{token}}"
    app.router.add_post(hook, inter.followup)
    app.router.add_get(f"{hook}/messages/{{message_id}}", inter.get_message)
    app.router.add_patch(f"{hook}/messages/{{message_id}}", inter.edit_message)
    app.router.add_delete(f"{hook}/messages/{{message_id}}", inter.delete_message)
    return app


def _middleware(fake: State) -> Any:
    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.path == "/gateway":
            return await handler(request)
        path = request.path.removeprefix(PREFIX)
        method = request.method
        body = await _peek(request)
        fake.log(
            "rest", {"method": method, "path": path, "query": dict(request.query), "body": body}
        )
        entry = fake.entries[-1]  # an upload's JSON is read by the route (wire.read_body)
        pacing = fake.pacing
        if pacing is None:
            response = await _answer(fake, request, handler, method, path)
        else:
            limited, ticket = pacing.admit(method, path)
            response = limited or await _answer(fake, request, handler, method, path)
            pacing.finish(ticket, response)
        if body is None and PAYLOAD_JSON in request:
            entry["body"] = request[PAYLOAD_JSON]
        fake.log(
            "rest-answer",
            {"method": method, "path": path, "status": response.status, "body": _text(response)},
        )
        return response

    return middleware


async def _answer(
    fake: State, request: web.Request, handler: Handler, method: str, path: str
) -> web.StreamResponse:
    try:
        for fault in fake.faults:
            if not fault.matches(method, path):
                continue
            fault.hits += 1
            fake.notifier.notify()  # (a test may wait for ``hits``: it is woken, not timed out)
            if fault.kind == "429":
                return injected_429(method, path, fault.retry_after, is_global=fault.is_global)
            if fault.kind == "status":
                return json_response(
                    {"message": f"{fault.status}: fake fault", "code": 0}, fault.status
                )
            if fault.kind == "delay":
                await asyncio.sleep(fault.seconds)
        if not _authorized(fake, request, path):
            return json_response({"message": "401: Unauthorized", "code": 0}, 401)
        return await handler(request)
    except ApiError as err:
        if err.refusal:
            fake.record_refusal(method, path, err)
        return json_response(err.body(), err.status)
    except web.HTTPNotFound:
        fake.record_error(f"unimplemented route {method} {path}")
        return json_response({"message": "404: Not Found", "code": 0}, 404)
    except web.HTTPMethodNotAllowed:
        fake.record_error(f"unimplemented method {method} {path}")
        return json_response({"message": "405: Method Not Allowed", "code": 0}, 405)
    except Exception as exc:
        log.exception("fake discord bug on %s %s", method, path)
        fake.record_error(f"{method} {path}: {exc!r}")
        return json_response({"message": f"fake discord internal error: {exc!r}", "code": 0}, 400)


def _authorized(fake: State, request: web.Request, path: str) -> bool:
    if path.startswith(("/interactions/", "/webhooks/")):
        return True
    return request.headers.get("Authorization") == f"Bot {fake.token}"


async def _peek(request: web.Request) -> Any:
    if media_type(request) != "application/json" or not request.can_read_body:
        return None
    try:
        return await request.json()
    except ValueError:
        return None


def _text(response: web.StreamResponse) -> Any:
    body = getattr(response, "body", None)
    if isinstance(body, bytes) and body:
        import json

        try:
            return json.loads(body)
        except ValueError:
            return body.decode(errors="replace")
    return None


class Rest:
    """Bot-authenticated REST routes."""

    def __init__(self, fake: State) -> None:
        self.fake = fake

    # --- lookups ---------------------------------------------------------------------------
    def _guild(self, request: web.Request) -> Guild:
        gid = snowflake(request.match_info["guild_id"])
        for guild in self.fake.guilds:
            if guild.id == gid:
                if not guild.bot_in:  # a server the bot left
                    raise ApiError(403, 50001, "Missing Access")
                return guild
        raise unknown("Guild", 10004)

    # --- login, gateway, application ----------------------------------------------------------
    async def get_gateway(self, request: web.Request) -> web.Response:
        return json_response({"url": self.fake.gateway.url})

    async def get_gateway_bot(self, request: web.Request) -> web.Response:
        """Discord's answer: recommended shards and the IDENTIFY budget (1,000 a day, of which
        every IDENTIFY so far took one; ``max_concurrency`` per 5 s)."""
        fake = self.fake
        limit = {
            "total": fake.session_starts,
            "remaining": max(0, fake.session_starts - fake.gateway.identifies),
            "reset_after": 86_400_000,
            "max_concurrency": fake.max_concurrency,
        }
        return json_response(
            {"url": fake.gateway.url, "shards": fake.shards, "session_start_limit": limit}
        )

    async def get_me(self, request: web.Request) -> web.Response:
        self.fake.logins += 1
        self.fake.notifier.notify()
        data = self.fake.bot_user.payload()
        data.update({"verified": True, "mfa_enabled": False, "flags": 0, "email": None})
        return json_response(data)

    async def get_user(self, request: web.Request) -> web.Response:
        user = self.fake.users.get(snowflake(request.match_info["user_id"]))
        if user is None:
            raise unknown("User", 10013)
        return json_response(user.payload())

    async def get_application(self, request: web.Request) -> web.Response:
        fake = self.fake
        return json_response(
            {
                "id": str(fake.application_id),
                "name": fake.bot_user.name,
                "description": "fake application",
                "icon": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": fake.owner_user.payload(),
                "team": None,
                "verify_key": "0" * 64,
                "flags": 0,
                "bot": fake.bot_user.payload(),
                "summary": "",
            }
        )

    # --- commands -----------------------------------------------------------------------------
    def _command_list(self, request: web.Request) -> tuple[list[dict[str, Any]], int | None]:
        if snowflake(request.match_info["app_id"]) != self.fake.application_id:
            raise ApiError(403, 50001, "Missing Access")
        if "guild_id" in request.match_info:
            gid = self._guild(request).id
            return self.fake.guild_commands.setdefault(gid, []), gid
        return self.fake.global_commands, None

    async def put_commands(self, request: web.Request) -> web.Response:
        current, gid = self._command_list(request)
        body = await read_body(request, self.fake)
        # Discord's bulk overwrite is atomic: a refused body leaves the old commands intact.
        self.fake.record_lint(request, check_commands(body))
        by_name = {c["name"]: c for c in current}
        result = []
        for cmd in body:
            old = by_name.get(cmd.get("name"))
            data = {
                **cmd,
                "id": old["id"] if old else str(self.fake.snowflakes.next()),
                "application_id": str(self.fake.application_id),
                "version": str(self.fake.snowflakes.next()),
                "type": cmd.get("type", 1),
                "default_member_permissions": cmd.get("default_member_permissions"),
                "dm_permission": cmd.get("dm_permission", True),
                "nsfw": cmd.get("nsfw", False),
            }
            if gid is not None:
                data["guild_id"] = str(gid)
            result.append(data)
        current[:] = result
        self.fake.command_syncs += 1
        self.fake.notifier.notify()
        return json_response(result)

    async def get_commands(self, request: web.Request) -> web.Response:
        current, _ = self._command_list(request)
        return json_response(current)

    # --- guilds -------------------------------------------------------------------------------
    async def get_guild(self, request: web.Request) -> web.Response:
        data = self._guild(request).payload()
        for key in ("channels", "members", "threads", "presences", "voice_states"):
            data.pop(key, None)
        data["approximate_member_count"] = data["member_count"]
        return json_response(data)

    async def get_guild_channels(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        return json_response([c.payload() for c in guild.channels if not c.deleted])

    async def get_roles(self, request: web.Request) -> web.Response:
        return json_response([r.payload() for r in self._guild(request).roles])

    async def list_members(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        limit = int(request.query.get("limit", 1))
        after = int(request.query.get("after", 0))
        members = sorted((m for m in guild.members if m.id > after), key=lambda m: m.id)
        return json_response([m.payload() for m in members[:limit]])

    async def get_member(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        member = self.fake.find_member(guild, snowflake(request.match_info["user_id"]))
        if member is None:
            raise unknown("Member", 10007)
        return json_response(member.payload())
