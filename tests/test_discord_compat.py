"""cogs/discord_compat.py uses discord.py internals (no upper pin holds them): this fails,
naming the version and the pin, as soon as a discord.py release changes one of them."""

from __future__ import annotations

import contextvars
import inspect
from collections.abc import Callable
from typing import Any

import discord
import discord.http
import discord.webhook.async_ as webhook
from discord.enums import InteractionResponseType

PIN = "pyproject.toml: discord.py>=2.7"


def changed(what: str) -> str:
    return (f"discord.py {discord.__version__} changed {what}, which cogs/discord_compat.py "
            f"relies on: adapt that module (written against 2.7), or pin discord.py below "
            f"{discord.__version__} ({PIN})")


def takes(function: Callable[..., Any], *names: str) -> bool:
    parameters = inspect.signature(function).parameters
    return all(n in parameters for n in names)


def test_the_interaction_internals_are_there() -> None:
    assert {"_state", "_session"} <= set(discord.Interaction.__slots__), changed(
        "Interaction's _state/_session")
    assert "_response_type" in discord.InteractionResponse.__slots__, changed(
        "InteractionResponse._response_type")
    assert "_cs_response" in discord.Interaction.__slots__, changed(
        "Interaction._cs_response (the slot caching its response)")
    assert "_parent" in discord.InteractionResponse.__slots__, changed(
        "InteractionResponse._parent")
    assert InteractionResponseType.message_update.value == 7, changed(
        "InteractionResponseType.message_update")


def test_the_webhook_adapter_takes_what_we_send() -> None:
    assert isinstance(webhook.async_context, contextvars.ContextVar), changed(
        "discord.webhook.async_.async_context")
    adapter = webhook.async_context.get()
    assert takes(adapter.create_interaction_response, "interaction_id", "token", "session",
                 "proxy", "proxy_auth", "params"), changed("create_interaction_response")
    assert takes(webhook.interaction_message_response_params, "type",
                 "previous_allowed_mentions", "content", "embed", "view", "allowed_mentions",
                 "attachments", "files"), changed("interaction_message_response_params")


def test_the_message_parameters_take_what_we_send() -> None:
    assert takes(discord.http.handle_message_parameters, "previous_allowed_mentions",
                 "content", "embed", "view", "allowed_mentions", "attachments", "files"), (
        changed("discord.http.handle_message_parameters"))
    request = inspect.signature(discord.http.HTTPClient.request).parameters
    assert "route" in request and any(p.kind is p.VAR_KEYWORD for p in request.values()), (
        changed("HTTPClient.request (its keywords passed on to aiohttp: json=, data=)"))


def test_a_change_is_reported_with_the_pin() -> None:
    """The failure names the version, the module to adapt and the pin."""
    assert not takes(webhook.interaction_message_response_params, "no_such_parameter")
    text = changed("something")
    assert discord.__version__ in text and "cogs/discord_compat.py" in text and PIN in text


class _Http:
    """What ``_request`` needs of discord.py's client: ``http.request``, recorded."""

    def __init__(self) -> None:
        self.sent: list[tuple[discord.http.Route, dict[str, Any]]] = []

    async def request(self, route: discord.http.Route, **kwargs: Any) -> None:
        self.sent.append((route, kwargs))


async def test_an_edit_with_a_picture_goes_out_as_one_multipart_payload() -> None:
    """The body discord.py would send part by part, encoded once: the same fields (the
    message's JSON, the picture's bytes and name), read back by the standard library's parser,
    with the Content-Type naming its boundary; an edit without files stays JSON."""
    import email
    import io
    import json

    import aiohttp

    from cogs.discord_compat import edit_by_token, edit_message

    client = type("Client", (), {"allowed_mentions": None, "http": _Http()})()
    picture = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 3
    await edit_by_token(client, 1, "tok", content="your hand",
                        attachments=[discord.File(io.BytesIO(picture), filename="hand-a.png")])
    await edit_message(client, 5, 6, content="the table")
    (route, kwargs), (table_route, table_kwargs) = client.http.sent
    assert (route.method, route.path) == (
        "PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/@original")
    assert (table_route.method, table_route.path) == (
        "PATCH", "/channels/{channel_id}/messages/{message_id}")
    assert set(table_kwargs) == {"json"} and table_kwargs["json"]["content"] == "the table"
    body = kwargs["data"]
    assert set(kwargs) == {"data"} and isinstance(body, aiohttp.BytesPayload)
    raw = await body.as_bytes()
    assert body.size == len(raw)
    form = email.message_from_bytes(  # (the standard library's reading, not aiohttp's)
        f"Content-Type: {body.content_type}\r\n\r\n".encode() + raw)
    assert form.is_multipart() and form.get_content_type() == "multipart/form-data"
    parts = {part.get_param("name", header="content-disposition"):
             (part.get_filename(), part.get_payload(decode=True))
             for part in form.get_payload()}
    assert set(parts) == {"payload_json", "files[0]"}
    message = json.loads(parts["payload_json"][1])
    assert message["content"] == "your hand"
    assert message["attachments"][0]["filename"] == "hand-a.png"
    assert parts["files[0]"] == ("hand-a.png", picture)

