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
    assert takes(adapter.edit_original_interaction_response, "application_id", "token",
                 "session", "proxy", "proxy_auth", "payload", "multipart", "files"), changed(
        "edit_original_interaction_response")
    assert takes(webhook.interaction_message_response_params, "type",
                 "previous_allowed_mentions", "content", "embed", "view", "allowed_mentions",
                 "attachments", "files"), changed("interaction_message_response_params")


def test_the_message_parameters_take_what_we_send() -> None:
    assert takes(discord.http.handle_message_parameters, "previous_allowed_mentions",
                 "content", "embed", "view", "allowed_mentions", "attachments", "files"), (
        changed("discord.http.handle_message_parameters"))
    assert takes(discord.http.HTTPClient.edit_message, "channel_id", "message_id",
                 "params"), changed("HTTPClient.edit_message")


def test_a_change_is_reported_with_the_pin() -> None:
    """The failure names the version, the module to adapt and the pin."""
    assert not takes(webhook.interaction_message_response_params, "no_such_parameter")
    text = changed("something")
    assert discord.__version__ in text and "cogs/discord_compat.py" in text and PIN in text


def test_the_webhook_adapter_sends_with_its_session() -> None:
    """cogs/discord_compat.py gives the adapter a session that puts an upload's body in
    (``_WithBody``): the adapter must still send through ``session.request(..., data=...)``."""
    source = inspect.getsource(webhook.AsyncWebhookAdapter.request)
    assert "session.request(" in source and "data=to_send" in source, changed(
        "how AsyncWebhookAdapter.request sends (session.request with data=)")
    assert discord.http.MultipartParameters._fields == ("payload", "multipart", "files"), (
        changed("MultipartParameters"))
