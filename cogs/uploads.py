"""Pictures in messages: whether a message gets one, its file, and the edits that keep it.

A server's ``images`` setting and the bot's Attach Files permission decide whether a hand
message shows its picture (drawn by :mod:`cogs.pictures`); its file is named by what it
shows, so an edit that shows the same picture keeps the file instead of uploading it
again. A message without its picture still says everything in text.
"""

from __future__ import annotations

import io
import re
from functools import lru_cache
from typing import Any

import discord

from bot.sessions.guild_settings import IMAGES_SETTING, GuildSettings
from bot.words.i18n import Translator
from bot.words.markdown import clip
from cogs.cards import FACES, plain_text
from cogs.pictures import describe, file_name, hand_spec, rendered
from cogs.render import Payload
from game import Card, PlayerView

SHOWN = "lama_picture"  # Interaction.extras: the hand picture its message shows now
ALT_TEXT = 1024  # Discord's limit on an attachment's description
MISSING_PERMISSIONS = 50013


def images_on(settings: GuildSettings, guild_id: int | None) -> bool:
    """The server's ``images`` setting; on unless a Manage Server member turned it off."""
    return settings.get(guild_id, IMAGES_SETTING) != "off"


def shown_picture(interaction: discord.Interaction) -> str | None:
    """The hand picture on the message this answer edits: the clicked message as clicked
    (an answer not yet given edits it), else what the bot last put there (a followed
    hand's later edits), else none known (a new message, or upload to be safe)."""
    if SHOWN in interaction.extras:
        return interaction.extras[SHOWN]
    if interaction.response.is_done() or interaction.message is None:
        return None
    names = [a.filename for a in interaction.message.attachments]
    return next((n for n in names if n.startswith("hand-") and n.endswith(".png")), None)


CUSTOM_EMOJI = re.compile(r"<a?:\w+:\d+>")


@lru_cache(maxsize=2)
def _plain_faces(faces: tuple[tuple[str, str], ...]) -> dict[str, str]:
    return {face: plain_text(Card.parse(token)) for token, face in faces}


def alt_text(text: str) -> str:
    """``text`` for a screen reader: it reads "🟡3", not "<:lama_3:…>" (one pass)."""
    if "<" not in text:
        return text
    plain = _plain_faces(tuple(FACES.items()))  # (filled once, at start-up)
    return CUSTOM_EMOJI.sub(lambda face: plain.get(face[0], face[0]), text)


class Upload(io.BytesIO):
    """An uploaded file's bytes that never refer to themselves.

    ``discord.File`` stubs its file's ``close`` while it is sent and, once sent, sets it
    back to the file's own bound method: the file would then hold itself (a cycle that
    only a full collection frees, for every picture uploaded, so the pictures' buffers
    piled up between full collections and each of those walked them). Setting back the
    file's own ``close`` drops the stub instead: the same method, and no cycle."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "close" and getattr(value, "__self__", None) is self:
            self.__dict__.pop("close", None)
        else:
            super().__setattr__(name, value)


def picture_file(data: bytes, name: str, alt: str) -> discord.File:
    """A picture to upload: its bytes (:class:`Upload`), name and description for a screen
    reader (plain faces, clipped to Discord's limit)."""
    return discord.File(Upload(data), filename=name,
                        description=clip(alt_text(alt), ALT_TEXT) or None)


async def add_hand_picture(payload: Payload, view: PlayerView, interaction: discord.Interaction,
                           settings: GuildSettings, tr: Translator, *, waiting_too: bool = True
                           ) -> Payload:
    """``payload`` (a hand message) with its picture, when the server and Discord allow it.

    The embed's text stays as it was; the picture's description says what it shows
    (:func:`describe`, in ``tr``'s language). With
    ``waiting_too`` false (the answer to a move) the picture is drawn only if the player
    acts again: a hand waiting for others is read in text until its owner's turn, which
    halves the renders per move (each move changes the hand, so the cache cannot help).
    When the message already shows this very picture, the edit keeps its file: nothing
    is drawn or uploaded.
    """
    shown = shown_picture(interaction)
    interaction.extras[SHOWN] = None  # unless a picture is attached below: text only
    if payload.embed is None or not images_on(settings, interaction.guild_id):
        return payload
    if not waiting_too and not view.my_turn:
        return payload
    if not interaction.app_permissions.attach_files:
        return payload  # no Attach Files here: the text alone
    spec = hand_spec(view)
    if spec is None:
        return payload
    name = file_name((tr.language, spec))  # its description is in tr's language
    if name == shown:
        payload.keep_files = True  # the same picture: the message keeps its file (and the
        # file its description, which describes the picture alone: still true)
    else:
        data = await rendered(spec)
        payload.files = [picture_file(data, name, describe(tr, spec))]
    payload.embed.set_image(url=f"attachment://{name}")
    interaction.extras[SHOWN] = name
    return payload


# ---- the game's story at the end -------------------------------------------------------


def refused_upload(error: discord.HTTPException) -> bool:
    """Discord refused a message because of its file (no Attach Files in the channel)."""
    return isinstance(error, discord.Forbidden) and error.code == MISSING_PERMISSIONS
