"""The one module that reaches into discord.py's internals: the requests made with every move,
without parsing the answers nobody reads, and answered interactions let go of at once.

discord.py turns each answer Discord sends back into a ``Message`` (author, embeds,
components, mentions...). For the messages lama edits with every move (the clicked hand,
the hands that follow the game, the table) nothing reads that answer; building it was a
large share of a move's cost. These send exactly what discord.py's own methods send (same
parameters, same routes, same rate-limit handling) and return nothing.

An interaction and its ``response`` refer to each other, so reference counting never frees
them: each waited for a full garbage collection, with the clicked message it carries (embeds,
components, users). Tens of thousands of such objects were garbage at any time in a long run,
and the process's RSS grew in steps with the largest pile (benchmarks/memory.py).
:func:`let_go` breaks that cycle once the interaction is answered.

An upload (a hand's picture) leaves as one body built here (:func:`one_body`): aiohttp's form
would write it to the socket in nine pieces, each a system call, and build a multipart writer
and a payload per part first; the same bytes in one piece cost about 110 us less CPU a
request (benchmarks/upload_body.py; docs/performance.md, "Seventh round"). discord.py still
sends it, with its retries and errors: the webhook adapter is given a session
(:class:`_WithBody`) that puts the body in its request.

What they use that discord.py does not document: ``Interaction._state``, ``._session`` and
``._cs_response`` (the slot caching ``response``), ``InteractionResponse._response_type`` and
``._parent``, ``discord.webhook.async_.async_context`` and
``interaction_message_response_params``, ``discord.http.handle_message_parameters`` (and the
form it returns), and that the webhook adapter sends a request with its session's
``request(method, url, data=..., ...)``.
tests/test_discord_compat.py fails, naming discord.py's version and the pin in
pyproject.toml, when any of them changes. Everything else (clicks included: bot/process/clicks.py)
goes through discord.py's public API.
"""

from __future__ import annotations

import os
from typing import Any

import aiohttp
import discord
from discord.enums import InteractionResponseType
from discord.http import MultipartParameters, handle_message_parameters
from discord.webhook.async_ import async_context, interaction_message_response_params


async def update_clicked(interaction: discord.Interaction, **kwargs: Any) -> None:
    """``interaction.response.edit_message(**kwargs)``: the type-7 answer to a click."""
    response = interaction.response
    if response.is_done():
        raise discord.InteractionResponded(interaction)
    state = interaction._state
    params = interaction_message_response_params(
        type=InteractionResponseType.message_update.value,
        previous_allowed_mentions=state.allowed_mentions, **kwargs)
    http = state.http
    session, params = _sent_whole(interaction._session, params)
    await async_context.get().create_interaction_response(
        interaction.id, interaction.token, session=session, proxy=http.proxy,
        proxy_auth=http.proxy_auth, params=params)
    response._response_type = InteractionResponseType.message_update


async def edit_original(interaction: discord.Interaction, **kwargs: Any) -> None:
    """``interaction.edit_original_response(**kwargs)``, through the interaction's token."""
    state = interaction._state
    http = state.http
    with handle_message_parameters(previous_allowed_mentions=state.allowed_mentions,
                                   **kwargs) as params:
        session, sent = _sent_whole(interaction._session, params)
        await async_context.get().edit_original_interaction_response(
            interaction.application_id, interaction.token, session=session,
            proxy=http.proxy, proxy_auth=http.proxy_auth, payload=sent.payload,
            multipart=sent.multipart, files=sent.files)


async def edit_message(client: discord.Client, channel_id: int, message_id: int,
                       **kwargs: Any) -> None:
    """``PartialMessage.edit(**kwargs)`` of a channel message (the table)."""
    with handle_message_parameters(previous_allowed_mentions=client.allowed_mentions,
                                   **kwargs) as params:
        await client.http.edit_message(channel_id, message_id, params=params)


async def edit_by_token(client: discord.Client, application_id: int, token: str,
                        **kwargs: Any) -> None:
    """``edit_original_response(**kwargs)`` of an interaction known only by its token (kept
    from an earlier answer): PATCH /webhooks/{app}/{token}/messages/@original."""
    route = discord.http.Route("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/"
                               "@original", webhook_id=application_id, webhook_token=token)
    with handle_message_parameters(previous_allowed_mentions=client.allowed_mentions,
                                   **kwargs) as params:
        if params.files:
            await client.http.request(route, data=one_body(params))
        else:
            await client.http.request(route, json=params.payload)


def one_body(params: MultipartParameters) -> aiohttp.payload.BytesPayload:
    """The upload ``params`` describe (``payload_json``, then each file) as one multipart
    body: the parts aiohttp's form writes, with the same headers, in one piece."""
    boundary = os.urandom(16).hex()
    dash = b"--" + boundary.encode()
    pieces: list[bytes] = []
    for part in params.multipart or ():
        value = part["value"]
        if isinstance(value, str):
            data, content_type = value.encode(), "application/json"
        else:  # a file: read from where discord.File stands, which is left as it was
            start = value.tell()
            data = value.read()
            value.seek(start)
            content_type = part.get("content_type") or "application/octet-stream"
        disposition = f'form-data; name="{_quoted(part["name"])}"'
        if part.get("filename") is not None:
            disposition += f'; filename="{_quoted(part["filename"])}"'
        head = f"Content-Type: {content_type}\r\nContent-Disposition: {disposition}\r\n\r\n"
        pieces += (dash, b"\r\n", head.encode(), data, b"\r\n")
    pieces += (dash, b"--\r\n")
    return aiohttp.payload.BytesPayload(
        b"".join(pieces), content_type=f"multipart/form-data; boundary={boundary}")


def _quoted(value: str) -> str:
    """A name in a part's header, quoted as aiohttp's form quotes it (no quoting of 8-bit
    names, as discord.py asks); a line break could end the header, so it is refused."""
    if "\r" in value or "\n" in value:
        raise ValueError(f"a line break in an uploaded part's name: {value!r}")
    return value.replace("\\", "\\\\").replace('"', '\\"')


class _WithBody:
    """The session the webhook adapter sends one request with: ``body`` goes in its place
    (discord.py, given no form or payload, passes ``data=None`` and no Content-Type)."""

    __slots__ = ("_body", "_session")

    def __init__(self, session: aiohttp.ClientSession, body: aiohttp.payload.BytesPayload
                 ) -> None:
        self._session, self._body = session, body

    def request(self, method: str, url: str, *, data: Any = None, **kwargs: Any) -> Any:
        if data is not None:  # discord.py would have sent something itself: not what we built
            raise RuntimeError("discord.py's webhook adapter sent a body of its own")
        return self._session.request(method, url, data=self._body, **kwargs)


def _sent_whole(session: aiohttp.ClientSession, params: MultipartParameters
                ) -> tuple[Any, MultipartParameters]:
    """The session and parameters to give the webhook adapter: an upload's in one body."""
    if not params.files:
        return session, params
    return (_WithBody(session, one_body(params)),
            params._replace(payload=None, multipart=None, files=None))


def let_go(interaction: discord.Interaction) -> None:
    """Once ``interaction`` is answered: its ``response`` no longer refers back to it, so it is
    freed (with its message) as soon as nothing holds it, not at the next full collection.

    The response is replaced by one holding only the answer's type: ``is_done()`` and
    ``type`` read the same, and answering again raises ``InteractionResponded`` as before.
    An interaction not answered yet is left as it is (its answer still needs the link).

    The clicked message discord.py parsed from the click (``interaction.message``: its
    components, embeds, attachments) is dropped too: it is read only before the answer (is
    the click on one of its components, is it a hand, which picture it shows), but an open
    hand keeps its interaction for its token's 15 minutes (cogs/hands.py), and with it
    25-40 objects (4-6 KB) a hand that the garbage collector's older generations walked
    and the memory per game carried (docs/performance.md, "The tail and the CPU at 200
    games")."""
    response = interaction.response
    if not response.is_done():
        return
    answered = discord.InteractionResponse.__new__(discord.InteractionResponse)
    answered._response_type = response._response_type
    answered._parent = None  # type: ignore[assignment]
    interaction._cs_response = answered  # type: ignore[attr-defined]
    interaction.message = None
