"""A thread per game: a relaxed game always, a live one when the server chooses it
(``/lama config threads``): a starting game moves to a public thread made from its lobby
message, so its channel is free for the next lobby while any number of games run in their
threads.

The thread is named after the game and kept unarchived while the game runs (a moderator's
archive is undone by the next post or edit: Discord unarchives a thread for a post, an edit
is refused 50083 until the bot unarchives it); the bot archives it when the game ends, after
the standings, which also go to the parent channel. A locked or deleted thread ends the game
as ``channel_gone``, said in the parent channel. Without Create Public Threads or Send
Messages in Threads the lobby says so once and the game is played in its channel, as
before. (A lock or a delete is heard by cogs/liveness.py.) Which games go to a thread is
decided in one place, :func:`bot.sessions.guild_settings.plays_in_thread`.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from typing import TYPE_CHECKING, Any

import discord

from bot.sessions.guild_settings import plays_in_thread
from bot.sessions.outbox import EVENT, Owed
from bot.sessions.sessions import Session
from bot.words.i18n import Translator
from cogs.common import public_tr
from cogs.render import Components, Payload
from game import find_rules

if TYPE_CHECKING:
    from bot.process.client import LamaBot

log = logging.getLogger(__name__)

ARCHIVE_AFTER = 10080  # minutes (7 days, Discord's longest): a game's thread stays listed
MAX_NAME = 100  # Discord's limit for a channel's name
ARCHIVED = 50083  # Discord: "Thread is archived" (an edit there)


# ---- the thread's name ------------------------------------------------------------------
def clean(text: str) -> str:
    """``text`` as one plain line: no control or format characters (new lines, bidi marks,
    zero-width joiners), spaces collapsed; a thread name is plain text, never markdown."""
    kept = "".join(" " if unicodedata.category(c)[0] == "Z" or c in "\t\n\r"
                   else "" if unicodedata.category(c)[0] == "C" else c for c in text)
    return re.sub(r"\s+", " ", kept).strip()


def thread_name(tr: Translator, session: Session) -> str:
    """"L.A.M.A. — ana, ben, cleo": the rule set and the seated names, at most 100
    characters (names cut with "…"), whatever the names hold."""
    title = clean(tr(find_rules(session.variant).title)) or "L.A.M.A."
    names = [clean(s.name)[:32] or "?" for s in session.seats]
    name = f"{title} — {', '.join(names)}"
    if len(name) > MAX_NAME:
        name = name[:MAX_NAME - 1].rstrip(", ") + "…"
    return name


# ---- moving a starting game into its thread ---------------------------------------------
def may_make_threads(interaction: discord.Interaction) -> bool:
    """The bot may make public threads here and post in them (as Discord computed it)."""
    allowed = interaction.app_permissions
    return bool(allowed.create_public_threads and allowed.send_messages_in_threads)


class ThreadHome:
    """Makes a starting game's thread from its lobby message (Session.start awaits it once
    the start is allowed). ``refused``: the bot may not; the game stays in its channel and
    the lobby says why."""

    def __init__(self, bot: LamaBot, interaction: discord.Interaction) -> None:
        self.bot = bot
        self.refused = not may_make_threads(interaction)

    async def __call__(self, session: Session) -> int | None:
        if self.refused or session.lobby_message_id is None:
            session.no_thread = self.refused  # (the lobby says why)
            return None
        try:
            data = await self.bot.http.start_thread_with_message(
                session.channel_id, session.lobby_message_id,
                name=thread_name(public_tr(session), session),
                auto_archive_duration=ARCHIVE_AFTER)
        except discord.HTTPException as error:
            log.info("no thread for the game of channel %s: %s", session.channel_id, error)
            self.refused = session.no_thread = error.status == 403
            return None
        return int(data["id"])


def home_for(bot: LamaBot, interaction: discord.Interaction, session: Session
             ) -> ThreadHome | None:
    """Where the game that ``interaction`` starts is played: a thread (its maker), or None
    (this channel: a live game of a server that plays in channels, or this is a thread
    already)."""
    if isinstance(interaction.channel, discord.Thread):
        return None
    if not plays_in_thread(session.options, bot.sessions.guild_settings, session.guild_id,
                           session.pace):
        return None
    return ThreadHome(bot, interaction)


def started_text(tr: Translator, *, moved: bool = False, no_thread: bool = False) -> str:
    """The started lobby's last line: where the game went, or why it stayed here."""
    if moved:
        return tr("The game moved to its own thread.")
    if no_thread:
        return tr("The game has started below: lama may not make threads here (it needs "
                  "Create Public Threads and Send Messages in Threads), so this channel "
                  "holds one game at a time.")
    return tr("The game has started: see the table below.")


def moved_payload(payload: Payload, tr: Translator, session: Session) -> Payload:
    """The started lobby (``payload``) with a link to the thread its game went to."""
    payload.content = tr("▶️ The game is on in {thread}.", thread=f"<#{session.channel_id}>")
    payload.view = Components()
    return payload


def moved_text(tr: Translator, session: Session) -> str:
    """What a lobby button answers once its game went to a thread."""
    return tr("This game moved to its own thread: {thread}.", thread=f"<#{session.channel_id}>")


# ---- what a game in a thread owes (cogs.compose composes them) ----------------------------
def owe(session: Session, channel_id: int, key: str, body: dict[str, Any]) -> Owed:
    return Owed(session.guild_id, channel_id, EVENT, key, session.version, body)


def parent_standings(tr: Translator, session: Session, body: dict[str, Any]) -> Owed:
    """The final standings for the parent channel: the thread's, without its files, its
    mentions (the thread's post notified the winners) or its Rematch."""
    copy = {**body, "content": tr("🏁 The game in {thread} is over.",
                                  thread=f"<#{session.channel_id}>"),
            "mention": None, "mentions": []}
    for key in ("record", "chart"):
        copy.pop(key, None)
    return owe(session, session.parent_id or session.channel_id, "standings", copy)


def archive(session: Session) -> Owed:
    """The thread is archived, after everything owed before (its standings)."""
    return owe(session, session.channel_id, "archive", {})


# ---- delivering --------------------------------------------------------------------------
async def unarchive(bot: LamaBot, thread_id: int) -> None:
    """A moderator archived the thread of a running game: open it again (an edit there is
    refused until then; a post would open it itself)."""
    log.info("thread %s was archived; unarchiving it", thread_id)
    await bot.http.edit_channel(thread_id, archived=False)


async def deliver_event(bot: LamaBot, item: Owed, payload: Payload) -> int | None:
    """The thread events: the lobby's move (``payload``, an edit in the parent), archiving
    the thread."""
    if item.key == "archive":
        try:
            await bot.http.edit_channel(item.channel_id, archived=True)
        except discord.NotFound:
            log.info("thread %s is gone; nothing to archive", item.channel_id)
        return None
    payload.view = Components()
    message_id = int(item.body["message_id"])
    channel = bot.get_partial_messageable(item.channel_id, guild_id=item.guild_id)
    try:
        await channel.get_partial_message(message_id).edit(**payload.kwargs(edit=True))
    except discord.NotFound:
        log.info("the lobby %s that moved to a thread is gone", message_id)
    return message_id
