"""A rendered message as plain data and back: what the outbox keeps of a payload.

The outbox (bot/sessions/outbox.py) stores what a change owes as JSON, so a restarted
process posts exactly what was committed; these turn a :class:`~cogs.render.Payload` into
that body (cogs/compose.py, cogs/pings.py) and a body back into a payload (the courier,
cogs/posts.py and cogs/table_posts.py).
"""

from __future__ import annotations

from typing import Any

import discord

from cogs.buttons import RematchButton
from cogs.render import Components, Payload


def payload_body(payload: Payload) -> dict[str, Any]:
    """A rendered message as plain data (kept in the outbox)."""
    return {"content": payload.content, "mention": payload.mention,
            "mentions": payload.mentions,
            "embed": payload.embed.to_dict() if payload.embed is not None else None}


def payload_from_body(body: dict[str, Any]) -> Payload:
    embed = discord.Embed.from_dict(body["embed"]) if body.get("embed") else None
    return Payload(content=body.get("content"), embed=embed, mention=body.get("mention"),
                   mentions=list(body.get("mentions") or []))


def event_payload(body: dict[str, Any]) -> Payload:
    payload = payload_from_body(body)
    rematch = body.get("rematch")
    if rematch is not None:
        buttons = discord.ui.View(timeout=None)
        buttons.add_item(RematchButton(rematch["game_id"], rematch["label"]))
        payload.view = Components.of(buttons)
    return payload
