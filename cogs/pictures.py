"""Pictures in messages: a hand's cards (or dice) and the final standings' chart.

The rendering lives in :mod:`bot.pictures`; this module decides when a message gets a
picture (the server's ``images`` setting, the bot's Attach Files permission) and renders
it outside the event loop. A message without its picture still says everything in text.
"""

from __future__ import annotations

import asyncio
import io
import logging
from itertools import accumulate
from typing import Any

import discord

from bot.guild_settings import IMAGES_SETTING, GuildSettings
from bot.i18n import Translator
from bot.markdown import FIELD_VALUE, clip
from bot.pictures.chart import SEAT_EMOJI, totals_chart
from bot.pictures.compose import dice_picture, hand_picture
from cogs.cards import FACES, plain_text
from cogs.render import Payload
from game import ActionType, Card, PlayerView

log = logging.getLogger(__name__)

HAND_FILE = "hand.png"
CHART_FILE = "totals.png"
ALT_TEXT = 1024  # Discord's limit on an attachment's description
MISSING_PERMISSIONS = 50013


def images_on(settings: GuildSettings, guild_id: int | None) -> bool:
    """The server's ``images`` setting; on unless a Manage Server member turned it off."""
    return settings.get(guild_id, IMAGES_SETTING) != "off"


def _playable(view: PlayerView) -> list[Any] | None:
    if not view.my_turn:
        return None
    return [a.card for a in view.legal
            if a.type in (ActionType.PLAY, ActionType.TAKE) and a.card is not None]


def hand_png(view: PlayerView) -> bytes | None:
    """The owner's cards with the playable ones framed, or tiles and roll; None: nothing."""
    me = view.seats[view.me or 0]
    if me.tiles is not None:
        if not me.tiles and not view.roll:
            return None
        return dice_picture(me.tiles, view.roll or (), _playable(view))
    if not view.hand:
        return None
    chips: list[str] = []
    if view.uses_chips:
        chips = ["black"] * me.black + ["white"] * me.white + (["token"] if me.holds_token else [])
    return hand_picture(view.hand, _playable(view), chips[:16])


def _file(data: bytes, name: str, alt: str) -> discord.File:
    for token, face in FACES.items():  # a screen reader reads "🟡3", not "<:lama_3:…>"
        alt = alt.replace(face, plain_text(Card.parse(token)))
    return discord.File(io.BytesIO(data), filename=name, description=clip(alt, ALT_TEXT) or None)


async def add_hand_picture(payload: Payload, view: PlayerView, interaction: discord.Interaction,
                           settings: GuildSettings, *, waiting_too: bool = True) -> Payload:
    """``payload`` (a hand message) with its picture, when the server and Discord allow it.

    The embed's text stays as it was: it is the picture's description too. With
    ``waiting_too`` false (the answer to a move) the picture is drawn only if the player
    acts again: a hand waiting for others is read in text until its owner's turn, which
    halves the renders per move (each move changes the hand, so the cache cannot help).
    """
    if payload.embed is None or not images_on(settings, interaction.guild_id):
        return payload
    if not waiting_too and not view.my_turn:
        return payload
    if not interaction.app_permissions.attach_files:
        return payload  # no Attach Files here: the text alone
    data = await asyncio.to_thread(hand_png, view)
    if data is None:
        return payload
    payload.files = [_file(data, HAND_FILE, payload.embed.description or "")]
    payload.embed.set_image(url=f"attachment://{HAND_FILE}")
    return payload


# ---- the game's story at the end -------------------------------------------------------


def chart_body(tr: Translator, view: PlayerView) -> dict[str, Any]:
    """What the final standings' chart shows, as plain data for the outbox (rendered when
    delivered): running totals per seat, the target, the winners, and the colour legend."""
    totals = [list(accumulate(s.round_points)) for s in view.seats]
    rounds = min((len(t) for t in totals), default=0)
    legend = "\n".join(f"{SEAT_EMOJI[s.seat % len(SEAT_EMOJI)]} {tr.name(s.name)}"
                       + (" 🏆" if s.seat in view.winners else "") for s in view.seats)
    options = dict(view.options)
    return {
        "totals": [t[:rounds] for t in totals],
        "target": None if "rounds" in options else options.get("target"),
        "winners": list(view.winners),
        "title": tr("Totals after each round"),
        "legend": clip(legend, FIELD_VALUE),
        "alt": tr("A chart of every player's total after each round."),
    }


async def add_chart(payload: Payload, chart: dict[str, Any]) -> Payload:
    """The standings with their chart (rendered now, off the event loop) and its legend."""
    if payload.embed is None or not chart.get("totals") or not chart["totals"][0]:
        return payload
    try:
        data = await asyncio.to_thread(totals_chart, chart["totals"], chart.get("target"),
                                       chart.get("winners") or ())
    except ValueError:
        log.warning("a final chart could not be drawn", exc_info=True)
        return payload
    payload.embed.add_field(name=chart["title"], value=chart["legend"], inline=False)
    payload.embed.set_image(url=f"attachment://{CHART_FILE}")
    payload.files = [*payload.files, _file(data, CHART_FILE, chart.get("alt", ""))]  # (+ record)
    return payload


def without_files(payload: Payload) -> Payload:
    """The same message as text only (the chart's legend and image reference dropped)."""
    payload.files = []
    if payload.embed is not None and payload.embed.image:
        payload.embed.set_image(url=None)
        if payload.embed.fields:
            payload.embed.remove_field(len(payload.embed.fields) - 1)
    return payload


def refused_upload(error: discord.HTTPException) -> bool:
    """Discord refused a message because of its file (no Attach Files in the channel)."""
    return isinstance(error, discord.Forbidden) and error.code == MISSING_PERMISSIONS
