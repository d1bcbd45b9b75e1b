"""Direct messages of relaxed games: the opt-in DM at the start of a member's turn.

Composed with the turn's mention (cogs/compose.py, from bot/policies/relaxed.py's ``turn``
note) as an owed item of the game's channel, so it is sent once, after the mention, even
across a restart; delivered here. When it is sent, it goes only if the member still wants
DMs (the store is asked: another process may have changed the choice) and the turn is still
theirs (nothing is sent to a player who already acted). Discord's 50007 (the member does not
accept DMs) marks them ``refused``: no DM until they opt in again. A DM never fails the
channel's delivery: any other error is logged and the DM dropped (a DM is a courtesy; the
mention in the channel is the notification).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.sessions.outbox import Owed
from bot.sessions.sessions import Session, Status
from bot.sessions.user_prefs import DM_ON, DM_REFUSED
from bot.words.i18n import Translator
from game import find_rules

if TYPE_CHECKING:
    from bot.process.client import LamaBot

log = logging.getLogger(__name__)

CANNOT_DM = 50007  # Discord: "Cannot send messages to this user"


def game_link(guild_id: int, channel_id: int, message_id: int | None = None) -> str:
    """A link that opens the game's channel (at its table, when known)."""
    link = f"https://discord.com/channels/{guild_id}/{channel_id}"
    return link if message_id is None else f"{link}/{message_id}"


def dm_body(tr: Translator, session: Session, params: dict[str, Any]) -> dict[str, Any]:
    """The owed DM (rendered now, in the game's language, like every owed event)."""
    text = tr("🔔 It is your turn in {game} in {channel}: {link}\n"
              "If you do not play, the bot plays for you {deadline}. {cmd_notify} turns "
              "these messages off.", game=tr(find_rules(session.variant).title),
              channel=f"<#{session.channel_id}>",
              link=game_link(session.guild_id, session.channel_id, session.table_message_id),
              deadline=f"<t:{params['deadline']}:R>")
    return {"user": params["user"], "seat": params["seat"], "key": params["key"],
            "content": text}


class DirectMessages:
    """Sends the owed DMs (the outbox's courier hands them here)."""

    def __init__(self, bot: LamaBot) -> None:
        self.bot = bot

    async def deliver(self, item: Owed, session: Session | None) -> int | None:
        """Send ``item`` if still wanted; the message id, or None when nothing was sent."""
        body = item.body
        user_id = int(body["user"])
        live = session is not None and self.bot.sessions.get(item.channel_id) is session
        if (session is None or not live or session.status is not Status.PLAYING
                or (session.timers.turn_seat, session.timers.turn_key)
                != (body["seat"], body["key"])):
            return None  # they acted (or the game ended): nothing to tell
        prefs = self.bot.sessions.dm_prefs
        try:
            stored = await self.bot.store.dm_pref(user_id)
            if stored != DM_ON:
                prefs.remember(user_id, stored)  # (turned off or refused meanwhile, maybe
                return None  # through another process)
            channel = await self.bot.create_dm(discord.Object(user_id))
            message = await channel.send(content=body["content"], nonce=item.nonce,
                                         allowed_mentions=discord.AllowedMentions.none())
        except discord.Forbidden as error:
            if error.code != CANNOT_DM:
                log.info("DM to a member refused (%s); dropped", error)
                return None
            log.info("a member does not accept DMs: none until they opt in again")
            try:
                await prefs.set(user_id, DM_REFUSED)
            except Exception:
                log.warning("could not note a DM refusal", exc_info=True)
            return None
        except Exception:
            log.warning("could not send a DM; dropped", exc_info=True)
            return None
        return message.id
