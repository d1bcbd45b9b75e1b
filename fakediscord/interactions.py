"""Interactions: the callback endpoint, followups and @original, with Discord's rules."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aiohttp import web

from .lint import message_lint, unshown_lint
from .messages import EPHEMERAL, LOADING, Message, walk_components
from .validate import (
    ALREADY_ACKNOWLEDGED,
    INVALID_FORM_BODY,
    INVALID_WEBHOOK_TOKEN,
    UNKNOWN_CHANNEL,
    UNKNOWN_INTERACTION,
    UNKNOWN_MESSAGE,
    UNKNOWN_WEBHOOK,
    ApiError,
    check_message,
    unknown,
)
from .wire import json_response, no_content, read_body

if TYPE_CHECKING:
    from .model import Member, TextChannel
    from .state import State

TOKEN_LIFETIME = 15 * 60
APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 2, 3, 4, 5


class Interaction:
    """One interaction the driver created, and what the bot did with it."""

    def __init__(
        self,
        fake: State,
        type: int,
        member: Member,
        channel: TextChannel,
        data: dict[str, Any],
        clicked: Message | None,
        token: str,
    ) -> None:
        self.fake = fake
        self.id = fake.snowflakes.next()
        self.type = type
        self.member = member
        self.channel = channel
        self.data = data
        self.clicked = clicked
        self.token = token
        self.created = fake.clock.monotonic()
        # the answer time as the bot sees it, free of the fake's own work: the gateway frame
        # written to the bot's socket, and the bot's callback request reaching its route
        self.sent: float | None = None
        self.answered: float | None = None
        self.response_type: int | None = None
        self.original: Message | None = None
        self.followups: list[Message] = []
        self.owned: set[int] = {clicked.id} if clicked is not None else set()
        self.modal: dict[str, Any] | None = None
        self.choices: list[dict[str, Any]] | None = None
        self.failed = False
        self.refusals: list[ApiError] = []
        self.original_edits = 0
        # bytes per uploaded file in this interaction's answers (sent in INTERACTION_CREATE)
        self.attachment_size_limit: int = fake.attachment_size_limit

    def fail(self, reason: str) -> None:
        if not self.failed:
            self.failed = True
            self.fake.record_failure(self, reason)

    def too_late(self) -> bool:
        return self.fake.clock.monotonic() - self.created > self.fake.interaction_timeout

    def token_expired(self) -> bool:
        return self.fake.clock.monotonic() - self.created > TOKEN_LIFETIME

    def metadata(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "type": self.type,
            "user": self.member.user.payload(),
            "authorizing_integration_owners": {"0": str(self.channel.guild.id)},
        }


class InteractionRoutes:
    """POST /interactions/{id}/{token}/callback and the /webhooks/{app}/{token} routes."""

    def __init__(self, fake: State) -> None:
        self.fake = fake

    # --- the initial response -----------------------------------------------------------------
    async def callback(self, request: web.Request) -> web.Response:
        fake = self.fake
        try:
            iid = int(request.match_info["interaction_id"])
        except ValueError:
            iid = 0
        inter = fake.interactions.get(iid)
        if inter is None or inter.token != request.match_info["token"]:
            raise unknown("interaction", UNKNOWN_INTERACTION)
        if inter.answered is None:
            inter.answered = fake.clock.monotonic()
        body = await read_body(request, fake)
        if isinstance(body, dict) and "attachments" in body and isinstance(body.get("data"), dict):
            body["data"]["attachments"] = body.pop("attachments")  # uploads: the message's files
        try:
            if inter.channel.deleted:
                raise unknown("Channel", UNKNOWN_CHANNEL)
            if inter.failed or inter.too_late():
                inter.fail(
                    "This interaction failed (answered after "
                    f"{fake.clock.monotonic() - inter.created:.2f}s)"
                )
                raise unknown("interaction", UNKNOWN_INTERACTION)
            if inter.response_type is not None:
                raise ApiError(
                    400, ALREADY_ACKNOWLEDGED, "Interaction has already been acknowledged."
                )
            # linted before the answer is stored: storing a V2 message adds Discord's fields
            lint = callback_lint(body) if isinstance(body, dict) and isinstance(
                body.get("type"), int) else []
            resource = self._respond(inter, body)
            fake.record_lint(request, lint)
            if body.get("type") in (4, 7) and inter.original is not None:
                fake.record_lint(request, unshown_lint(inter.original, body.get("data")))
        except ApiError as err:
            inter.refusals.append(err)
            raise
        kind = int(body["type"])
        inter.response_type = kind
        fake.notifier.notify()
        if "with_response" not in request.query:
            return no_content()
        msg = resource.get("message")
        return json_response(
            {
                "interaction": {
                    "id": str(inter.id),
                    "type": inter.type,
                    "activity_instance_id": None,
                    "response_message_id": msg["id"] if msg else None,
                    "response_message_loading": kind == 5,
                    "response_message_ephemeral": bool(msg and msg["flags"] & EPHEMERAL),
                },
                "resource": resource,
            }
        )

    def _respond(self, inter: Interaction, body: Any) -> dict[str, Any]:
        fake = self.fake
        if not isinstance(body, dict) or not isinstance(body.get("type"), int):
            raise ApiError(400, INVALID_FORM_BODY, "Invalid Form Body", _err("type", "required"))
        kind, data = body["type"], body.get("data") or {}
        allowed = {
            APPLICATION_COMMAND: {4, 5, 9},
            MESSAGE_COMPONENT: {4, 5, 6, 7, 9},
            MODAL_SUBMIT: {4, 5, 6, 7} if inter.clicked is not None else {4, 5},
            AUTOCOMPLETE: {8},
        }[inter.type]
        if kind not in allowed:
            raise ApiError(
                400,
                INVALID_FORM_BODY,
                "Invalid Form Body",
                _err("type", f"Interaction response type {kind} is not valid here"),
            )
        bot = fake.bot_user
        if kind in (4, 5):
            if kind == 4:
                check_message(
                    data, create=True, prefix="data.", upload_limit=inter.attachment_size_limit
                )
            else:
                check_message({"flags": data.get("flags")}, create=False, prefix="data.")
                _check_defer_flags(data.get("flags"))
            ephemeral = bool(int(data.get("flags") or 0) & EPHEMERAL)
            msg = fake.new_message(
                inter.channel,
                data if kind == 4 else {"flags": data.get("flags", 0)},
                author=bot,
                ephemeral_to=inter.member if ephemeral else None,
                type=20 if inter.type == APPLICATION_COMMAND else 0,
                webhook=True,
                flags=LOADING if kind == 5 else 0,
            )
            msg.interaction_metadata = inter.metadata()
            inter.original = msg
            inter.owned.add(msg.id)
            fake.publish_create(msg)
            return {"type": kind, "message": msg.payload()}
        if kind in (6, 7):
            clicked = inter.clicked
            assert clicked is not None
            if clicked.deleted:
                raise unknown("Message", UNKNOWN_MESSAGE)
            inter.original = clicked
            if kind == 6:
                return {"type": kind}
            check_message(data, create=False, prefix="data.", current=clicked,
                          upload_limit=inter.attachment_size_limit)
            clicked.apply(data)
            fake.publish_update(clicked)
            return {"type": kind, "message": clicked.payload()}
        if kind == 9:
            _check_modal(data)
            inter.modal = data
            return {"type": kind}
        _check_choices(data.get("choices") or [])
        inter.choices = list(data.get("choices") or [])
        return {"type": kind}

    # --- webhook side: followups and @original ------------------------------------------------
    def _by_token(self, request: web.Request) -> Interaction:
        fake = self.fake
        if request.match_info["app_id"] != str(fake.application_id):
            raise unknown("Webhook", UNKNOWN_WEBHOOK)
        inter = fake.tokens.get(request.match_info["token"])
        if inter is None or inter.token_expired():
            raise ApiError(401, INVALID_WEBHOOK_TOKEN, "Invalid Webhook Token")
        if inter.channel.deleted:
            raise unknown("Channel", UNKNOWN_CHANNEL)
        return inter

    def _target(self, request: web.Request, inter: Interaction) -> Message:
        ref = request.match_info["message_id"]
        if ref == "@original":
            msg = inter.original
        else:
            try:
                msg = self.fake.messages.get(int(ref))
            except ValueError:
                msg = None
            if (
                msg is not None
                and msg.id not in inter.owned
                and (msg.ephemeral_to is not None or msg.webhook_id != self.fake.application_id)
            ):
                msg = None
        if msg is None or msg.deleted:
            raise unknown("Message", UNKNOWN_MESSAGE)
        return msg

    async def followup(self, request: web.Request) -> web.Response:
        fake = self.fake
        inter = self._by_token(request)
        body = await read_body(request, fake)
        _check_bool_query(request, "wait", "with_components")
        if inter.response_type is None or inter.response_type in (8, 9):
            raise unknown("Webhook", UNKNOWN_WEBHOOK)
        check_message(body, create=True, upload_limit=inter.attachment_size_limit)
        fake.record_lint(request, message_lint(body, "followup"))
        original = inter.original
        if original is not None and original.loading and not original.deleted:
            # The first followup after a "thinking" defer replaces the placeholder (once it
            # is deleted, a followup is a message of its own, with its own flags).
            original.apply(body)
            original.flags &= ~LOADING
            msg = original
            inter.original_edits += 1
            fake.publish_update(msg, edited=False)
        else:
            ephemeral = bool(int(body.get("flags") or 0) & EPHEMERAL)
            msg = fake.new_message(
                inter.channel,
                body,
                author=fake.bot_user,
                ephemeral_to=inter.member if ephemeral else None,
                webhook=True,
            )
            msg.interaction_metadata = inter.metadata()
            inter.owned.add(msg.id)
            fake.publish_create(msg)
        fake.record_lint(request, unshown_lint(msg, body))
        inter.followups.append(msg)
        fake.notifier.notify()
        if request.query.get("wait") in ("1", "true", "True"):
            return json_response(msg.payload())
        return no_content()

    async def get_message(self, request: web.Request) -> web.Response:
        inter = self._by_token(request)
        return json_response(self._target(request, inter).payload())

    async def edit_message(self, request: web.Request) -> web.Response:
        fake = self.fake
        inter = self._by_token(request)
        msg = self._target(request, inter)
        body = await read_body(request, fake)
        check_message(body, create=False, current=msg, upload_limit=inter.attachment_size_limit)
        fake.record_lint(request, message_lint(body, "webhook-edit"))
        was_loading = msg.loading
        msg.apply(body)
        fake.record_lint(request, unshown_lint(msg, body))
        msg.flags &= ~LOADING
        if msg is inter.original:
            inter.original_edits += 1
        fake.publish_update(msg, edited=not was_loading)
        return json_response(msg.payload())

    async def delete_message(self, request: web.Request) -> web.Response:
        inter = self._by_token(request)
        msg = self._target(request, inter)
        self.fake.publish_delete(msg)
        return no_content()


def _err(path: str, message: str) -> dict[str, Any]:
    node: dict[str, Any] = {"_errors": [{"code": "INVALID", "message": message}]}
    for part in reversed(path.split(".")):
        node = {part: node}
    return node


BOOLEANS = ("true", "false", "True", "False", "1", "0")


def _check_bool_query(request: web.Request, *names: str) -> None:
    """Boolean query parameters: anything else is refused 50035 (Discord's query checks)."""
    for name in names:
        value = request.query.get(name)
        if value is not None and value not in BOOLEANS:
            raise ApiError(
                400, INVALID_FORM_BODY, "Invalid Form Body", _err(name, "Must be a boolean.")
            )


def _check_defer_flags(flags: Any) -> None:
    """A deferred answer (type 5) takes only EPHEMERAL: the V2 flag, like any other, goes on
    the edit of @original (Discord refuses it 400 50035)."""
    if isinstance(flags, int) and flags & ~EPHEMERAL:
        raise ApiError(400, INVALID_FORM_BODY, "Invalid Form Body",
                       _err("data.flags", "Only the EPHEMERAL flag may be set on a deferred "
                            "response"))


def _check_modal(data: dict[str, Any]) -> None:
    problems = []
    cid = data.get("custom_id")
    if not isinstance(cid, str) or not 1 <= len(cid) <= 100:
        problems.append(("data.custom_id", "Must be between 1 and 100 in length."))
    title = data.get("title")
    if not isinstance(title, str) or not 1 <= len(title) <= 45:
        problems.append(("data.title", "Must be between 1 and 45 in length."))
    comps = data.get("components") or []
    if not 1 <= len(comps) <= 5:
        problems.append(("data.components", "Must be between 1 and 5 in length."))
    for c in walk_components(comps):
        if c.get("type") == 4:
            problems += _text_input_problems(c)
    if problems:
        path, message = problems[0]
        raise ApiError(400, INVALID_FORM_BODY, "Invalid Form Body", _err(path, message))


def _text_input_problems(c: dict[str, Any]) -> list[tuple[str, str]]:
    """A modal's text input (Discord's text-input structure: label 45, lengths 0-4000)."""
    problems = []
    label = c.get("label")
    if label is not None and (not isinstance(label, str) or not 1 <= len(label) <= 45):
        problems.append(("data.components.label", "Must be between 1 and 45 in length."))
    if c.get("style") not in (1, 2):
        problems.append(("data.components.style", "Value must be one of (1, 2)."))
    lo, hi = c.get("min_length"), c.get("max_length")
    if lo is not None and not (isinstance(lo, int) and 0 <= lo <= 4000):
        problems.append(("data.components.min_length", "int value should be <= 4000 and >= 0."))
    if hi is not None and not (isinstance(hi, int) and 1 <= hi <= 4000):
        problems.append(("data.components.max_length", "int value should be <= 4000 and >= 1."))
    value = c.get("value")
    if isinstance(value, str) and len(value) > 4000:
        problems.append(("data.components.value", "Must be 4000 or fewer in length."))
    return problems


def _check_choices(choices: Any) -> None:
    """Autocomplete choices: at most 25, names 1-100, string values at most 100."""
    problems = []
    if not isinstance(choices, list) or len(choices) > 25:
        problems.append(("data.choices", "Must be 25 or fewer in length."))
        choices = []
    for i, c in enumerate(choices):
        name = c.get("name") if isinstance(c, dict) else None
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            problems.append((f"data.choices.{i}.name", "Must be between 1 and 100 in length."))
        value = c.get("value") if isinstance(c, dict) else None
        if isinstance(value, str) and len(value) > 100:
            problems.append((f"data.choices.{i}.value", "Must be 100 or fewer in length."))
    if problems:
        path, message = problems[0]
        raise ApiError(400, INVALID_FORM_BODY, "Invalid Form Body", _err(path, message))


CALLBACK_ENDPOINTS = {4: "callback-message", 5: "callback-defer", 7: "callback-update"}
MODAL_FIELDS = {"custom_id", "title", "components"}


def callback_lint(body: dict[str, Any]) -> list[str]:
    """Lint of an interaction callback: its envelope and its data."""
    out = [
        f"body.{k}: unknown field (ignored by Discord)"
        for k in sorted(set(body) - {"type", "data"})
    ]
    kind, data = body["type"], body.get("data") or {}
    if kind in CALLBACK_ENDPOINTS:
        out += message_lint(data, CALLBACK_ENDPOINTS[kind], "data.")
    elif kind == 9:
        out += [
            f"data.{k}: unknown field (ignored by Discord)"
            for k in sorted(set(data) - MODAL_FIELDS)
        ]
    elif kind == 8:
        out += [
            f"data.{k}: unknown field (ignored by Discord)" for k in sorted(set(data) - {"choices"})
        ]
    return out
