"""Channel, message and thread routes (bot token), with Discord's permission and thread rules.

- Embed Links missing: Discord silently drops a bot's embeds (no error); the fake drops them
  too and counts them in ``fake.dropped_embeds``.
- Attach Files missing: uploads are refused 50013. Posting in a thread needs Send Messages in
  Threads (not Send Messages).
- ``nonce`` + ``enforce_nonce``: a repeated nonce from the bot in the same channel within
  ``NONCE_WINDOW`` seconds returns the first message instead of posting again (Discord's
  create-message documentation says "within the past few minutes"; the fake's window is its
  choice). A nonce repeated after the window posts again and is noted in ``fake.late_nonces``.
  Its first message deleted meanwhile, the repeat is answered 404 Unknown Message and posts
  nothing (Discord's, intended: discord-api-docs pull request 6647, the author's answer).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aiohttp import web

from .base import (
    ATTACH_FILES,
    CREATE_PRIVATE_THREADS,
    CREATE_PUBLIC_THREADS,
    DISCORD_EPOCH_MS,
    EMBED_LINKS,
    MANAGE_CHANNELS,
    MANAGE_MESSAGES,
    MANAGE_THREADS,
    READ_MESSAGE_HISTORY,
    SEND_MESSAGES,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
)
from .lint import message_lint, unshown_lint
from .messages import Message
from .threads import (
    ARCHIVE_DURATIONS,
    ARCHIVED_THREAD,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    THREAD_ALREADY_CREATED,
    THREAD_LOCKED,
    Thread,
    new_thread,
)
from .validate import (
    CANNOT_EDIT_OTHERS,
    MISSING_ACCESS,
    MISSING_PERMISSIONS,
    UNKNOWN_CHANNEL,
    UNKNOWN_MESSAGE,
    ApiError,
    FormErrors,
    check_message,
    unknown,
)
from .wire import json_response, no_content, read_body

if TYPE_CHECKING:
    from .model import TextChannel
    from .state import State

NONCE_WINDOW = 120.0
OLD_MESSAGE_AGE = 3600.0  # seconds: edits to a message this old are counted...
OLD_EDITS_PER_HOUR = 5  # ...and refused past this many in an hour (the fake's choice)
TOO_OLD_TO_EDIT = 30046


def snowflake(value: str, field: str = "id") -> int:
    try:
        return int(value)
    except ValueError as exc:
        err = FormErrors("")
        err.add(field, "NUMBER_TYPE_COERCE", f'Value "{value}" is not snowflake.')
        raise ApiError(400, 50035, "Invalid Form Body", err.tree) from exc


def _query_int(request: web.Request, name: str, default: int, lo: int, hi: int) -> int:
    """A numeric query parameter in [lo, hi], refused 50035 like Discord otherwise."""
    raw = request.query.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = lo - 1
    if not lo <= value <= hi:
        err = FormErrors("")
        err.add(name, "NUMBER_TYPE_MAX", f"int value should be <= {hi} and >= {lo}.")
        raise ApiError(400, 50035, "Invalid Form Body", err.tree)
    return value


def _check_duration(err: FormErrors, body: Any) -> None:
    """``auto_archive_duration`` (minutes) is one of 60, 1440, 4320, 10080 (channel
    documentation: thread creation and Modify Channel)."""
    duration = body.get("auto_archive_duration") if isinstance(body, dict) else None
    if duration is not None and (isinstance(duration, bool) or duration not in ARCHIVE_DURATIONS):
        err.add(
            "auto_archive_duration",
            "BASE_TYPE_CHOICES",
            "Value must be one of (60, 1440, 4320, 10080).",
        )


class ChannelRoutes:
    """/channels/... routes."""

    def __init__(self, fake: State) -> None:
        self.fake = fake

    def add_to(self, app: web.Application, prefix: str) -> None:
        c = f"{prefix}/channels/{{channel_id}}"
        app.router.add_get(c, self.get_channel)
        app.router.add_patch(c, self.patch_channel)
        app.router.add_delete(c, self.delete_channel)
        app.router.add_post(f"{c}/typing", self.typing)
        app.router.add_post(f"{c}/threads", self.create_thread)
        app.router.add_get(f"{c}/messages", self.history)
        app.router.add_post(f"{c}/messages", self.create_message)
        m = f"{c}/messages/{{message_id}}"
        app.router.add_get(m, self.get_message)
        app.router.add_patch(m, self.edit_message)
        app.router.add_delete(m, self.delete_message)
        app.router.add_post(f"{m}/threads", self.thread_from_message)

    # --- lookups ---------------------------------------------------------------------------
    def _channel(self, request: web.Request) -> TextChannel:
        channel = self.fake.get_channel(snowflake(request.match_info["channel_id"]))
        if channel is None:
            raise unknown("Channel", UNKNOWN_CHANNEL)
        if not channel.guild.bot_in:
            raise ApiError(403, MISSING_ACCESS, "Missing Access")
        return channel

    def _message(self, request: web.Request, channel: TextChannel) -> Message:
        msg = self.fake.messages.get(snowflake(request.match_info["message_id"]))
        if msg is None or msg.deleted or msg.channel is not channel or msg.ephemeral_to is not None:
            raise unknown("Message", UNKNOWN_MESSAGE)
        return msg

    def _perms(self, channel: TextChannel) -> int:
        return channel.guild.me.permissions_in(channel)

    def _require(self, channel: TextChannel, *perms: int) -> None:
        have = self._perms(channel)
        if not have & VIEW_CHANNEL:
            raise ApiError(403, MISSING_ACCESS, "Missing Access")
        for perm in perms:
            if not have & perm:
                raise ApiError(403, MISSING_PERMISSIONS, "Missing Permissions")

    def _drop_embeds(self, channel: TextChannel, body: dict[str, Any]) -> dict[str, Any]:
        """Without Embed Links Discord keeps the message and silently drops its embeds."""
        if self._perms(channel) & EMBED_LINKS or not body.get("embeds"):
            return body
        self.fake.dropped_embeds += len(body["embeds"])
        self.fake.log("embeds-dropped", {"channel": channel.name, "count": len(body["embeds"])})
        return {**body, "embeds": []}

    # --- channels ----------------------------------------------------------------------------
    async def get_channel(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        self._require(channel)
        return json_response(channel.payload())

    async def patch_channel(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        body = await read_body(request, self.fake)
        if not isinstance(channel, Thread):
            self._require(channel, MANAGE_CHANNELS)
            raise ApiError(400, 50035, "Invalid Form Body")  # the fake edits threads only
        own = channel.owner_id == self.fake.bot_user.id
        if not own or "locked" in body:
            self._require(channel, MANAGE_THREADS)
        err = FormErrors("")
        _check_duration(err, body)
        err.raise_if_any()
        channel.update(body)
        return json_response(channel.payload())

    async def delete_channel(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        self._require(channel, MANAGE_CHANNELS)
        await channel.delete()
        return json_response(channel.payload())

    async def typing(self, request: web.Request) -> web.Response:
        self._require(self._channel(request), SEND_MESSAGES)
        return no_content()

    # --- threads -----------------------------------------------------------------------------
    def _thread_body(self, body: Any, *, with_type: bool) -> tuple[str, int]:
        err = FormErrors("")
        if not isinstance(body, dict):
            body = {}
        name = body.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            err.add("name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
        kind = body.get("type", PRIVATE_THREAD) if with_type else PUBLIC_THREAD
        if kind not in (PUBLIC_THREAD, PRIVATE_THREAD):
            err.add("type", "BASE_TYPE_CHOICES", "Value must be one of (11, 12).")
        _check_duration(err, body)
        err.raise_if_any()
        return str(name), int(kind)

    async def create_thread(self, request: web.Request) -> web.Response:
        parent = self._channel(request)
        body = await read_body(request, self.fake)
        name, kind = self._thread_body(body, with_type=True)
        if isinstance(parent, Thread):
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        need = CREATE_PUBLIC_THREADS if kind == PUBLIC_THREAD else CREATE_PRIVATE_THREADS
        self._require(parent, need)
        thread = new_thread(parent, name, type=kind, owner_id=self.fake.bot_user.id)
        return json_response(thread.payload(), 201)

    async def thread_from_message(self, request: web.Request) -> web.Response:
        parent = self._channel(request)
        msg = self._message(request, parent)
        body = await read_body(request, self.fake)
        name, _ = self._thread_body(body, with_type=False)
        if isinstance(parent, Thread):
            raise ApiError(400, 50024, "Cannot execute action on this channel type")
        self._require(parent, CREATE_PUBLIC_THREADS, READ_MESSAGE_HISTORY)
        if any(t.id == msg.id for t in parent.guild.threads):
            raise ApiError(
                400, THREAD_ALREADY_CREATED, "A thread has already been created for this message"
            )
        thread = new_thread(
            parent, name, type=PUBLIC_THREAD, owner_id=self.fake.bot_user.id, id=msg.id
        )
        return json_response(thread.payload(), 201)

    # --- messages ----------------------------------------------------------------------------
    async def history(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        self._require(channel, READ_MESSAGE_HISTORY)
        limit = _query_int(request, "limit", 50, 1, 100)
        msgs = channel.messages
        if "before" in request.query:
            before = snowflake(request.query["before"], "before")
            msgs = [m for m in msgs if m.id < before]
        if "after" in request.query:
            after = snowflake(request.query["after"], "after")
            msgs = [m for m in msgs if m.id > after][:limit]
        msgs = sorted(msgs, key=lambda m: m.id, reverse=True)[:limit]
        return json_response([m.payload() for m in msgs])

    def _check_post(self, channel: TextChannel, body: dict[str, Any]) -> None:
        if isinstance(channel, Thread):
            self._require(channel, SEND_MESSAGES_IN_THREADS)
            if channel.archived and channel.locked:
                raise ApiError(400, THREAD_LOCKED, "Thread is locked")
        else:
            self._require(channel, SEND_MESSAGES)
        if any("url" in a for a in body.get("attachments") or [] if isinstance(a, dict)):
            self._require(channel, ATTACH_FILES)

    async def create_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        body = await read_body(request, self.fake)
        self._check_post(channel, body if isinstance(body, dict) else {})
        check_message(body, create=True, upload_limit=self.fake.attachment_size_limit)
        self.fake.record_lint(request, message_lint(body, "channel-create"))
        nonce = body.get("nonce")
        key = (channel.id, str(nonce))
        if nonce is not None and body.get("enforce_nonce"):
            earlier = self.fake.nonces.get(key)
            if earlier is not None and self.fake.clock.monotonic() - earlier[1] < NONCE_WINDOW:
                if earlier[0].deleted:  # not posted again: its first post's answer stands
                    raise unknown("Message", UNKNOWN_MESSAGE)
                return json_response(earlier[0].payload())
            if earlier is not None:  # the window is over: Discord would post it again
                self.fake.late_nonces.append(key)
        if isinstance(channel, Thread) and channel.archived:
            channel.update({"archived": False})  # a post unarchives an unlocked thread
        body = self._drop_embeds(channel, body)
        msg = self.fake.new_message(
            channel,
            body,
            author=self.fake.bot_user,
            type=19 if body.get("message_reference") else 0,
        )
        self.fake.record_lint(request, unshown_lint(msg, body))
        if nonce is not None:
            self.fake.nonces[key] = (msg, self.fake.clock.monotonic())
        self.fake.publish_create(msg)
        return json_response(msg.payload())

    async def get_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        self._require(channel, READ_MESSAGE_HISTORY)
        return json_response(self._message(request, channel).payload())

    async def edit_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        self._require(channel)
        msg = self._message(request, channel)
        if msg.author.id != self.fake.bot_user.id:
            raise ApiError(
                403, CANNOT_EDIT_OTHERS, "Cannot edit a message authored by another user"
            )
        if isinstance(channel, Thread) and channel.archived:
            raise ApiError(400, ARCHIVED_THREAD, "Thread is archived")
        body = await read_body(request, self.fake)
        check_message(
            body, create=False, current=msg, upload_limit=self.fake.attachment_size_limit
        )
        self._count_old_edit(msg)
        self.fake.record_lint(request, message_lint(body, "channel-edit"))
        msg.apply(self._drop_embeds(channel, body))
        self.fake.record_lint(request, unshown_lint(msg, body))
        self.fake.publish_update(msg)
        return json_response(msg.payload())

    def _count_old_edit(self, msg: Message) -> None:
        """Discord limits edits to messages older than an hour: past the limit, 429 30046
        (without ``Via``: discord.py raises it instead of waiting). Ages are read on the
        fake's clock (``fake.clock.advance`` ages every message)."""
        now_ms = self.fake.clock.now_ms()
        if now_ms - DISCORD_EPOCH_MS - (msg.id >> 22) < OLD_MESSAGE_AGE * 1000:
            return
        recent = [t for t in self.fake.old_edits.get(msg.id, []) if now_ms - t < 3600_000]
        if len(recent) >= self.fake.old_edit_limit:
            raise ApiError(429, TOO_OLD_TO_EDIT, "Maximum number of edits to messages older "
                           "than 1 hour reached. Try again later")
        self.fake.old_edits[msg.id] = [*recent, now_ms]

    async def delete_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        msg = self._message(request, channel)
        if msg.author.id != self.fake.bot_user.id:
            self._require(channel, MANAGE_MESSAGES)
        self.fake.publish_delete(msg)
        return no_content()
