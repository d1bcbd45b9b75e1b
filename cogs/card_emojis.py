"""Card faces as the application's own emojis, so the table shows cards drawn, not spelled.

At start-up the bot lists its application emojis and uploads the faces it lacks, once
(they are the application's, across every server and restart; never per game). Players
see one style of face: the bot waits for that (up to :data:`READY_WAIT`) before it
connects to the gateway, so the first table and hand of the process already use the
emojis; the faces are switched on all at once, never one by one, so no message mixes
emoji faces with text faces. Should the upload take longer (a first start under rate
limits), the messages keep the emoji text of cogs.cards until it is done, then switch
together; where an upload fails, the text stays. In a cluster only the process that
syncs the commands uploads; the others use what exists (all of it, or none).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import discord
from discord.ext import commands

from bot.pictures.compose import emoji_picture
from cogs.cards import FACES
from game.cards import ALL_CARDS, Card

if TYPE_CHECKING:
    from bot.process.client import LamaBot

log = logging.getLogger(__name__)

PREFIX = "lama_"
SIGNS = {"/": "_", "*": "s", "+": "p"}
READY_WAIT = 60.0  # seconds the bot's start waits for its card emojis


def emoji_name(card: Card) -> str:
    """``3*`` → ``lama_3s``, ``2/3*`` → ``lama_2_3s``, ``L`` → ``lama_l`` (Discord's rule:
    2-32 letters, digits, underscores)."""
    return PREFIX + "".join(SIGNS.get(c, c) for c in card.token).lower()


class CardEmojis(commands.Cog):
    """Keeps :data:`cogs.cards.FACES` filled with the application's card emojis."""

    def __init__(self, bot: LamaBot) -> None:
        self.bot = bot
        self.task: asyncio.Task[None] | None = None

    async def cog_load(self) -> None:
        """Loaded in the bot's setup, before it connects: no command or click can come
        while it waits for the faces (at most :data:`READY_WAIT`)."""
        if self.bot.settings.lama_card_emojis and self.bot.application_id is not None:
            # (no application id: not logged in, e.g. python -m bot.catalog; nothing to sync)
            self.task = asyncio.create_task(self.sync(), name="lama-card-emojis")
            try:
                await asyncio.wait_for(asyncio.shield(self.task), READY_WAIT)
            except TimeoutError:
                log.warning("card emojis not ready after %.0f s: text faces until they are",
                            READY_WAIT)

    async def cog_unload(self) -> None:
        if self.task is not None:
            self.task.cancel()
        FACES.clear()

    async def sync(self) -> None:
        """List, upload what is missing, then use them (a failure leaves the text)."""
        try:
            have = {e.name: e for e in await self.bot.fetch_application_emojis()}
        except discord.HTTPException:
            log.warning("could not list the application's emojis: cards stay text",
                        exc_info=True)
            return
        made = 0
        faces: dict[str, str] = {}
        for card in ALL_CARDS:
            name = emoji_name(card)
            emoji = have.get(name)
            if emoji is None and not self.bot.settings.lama_sync_commands:
                continue  # in a cluster one process uploads (the one that syncs commands)
            if emoji is None:
                image = await asyncio.to_thread(emoji_picture, card)
                try:
                    emoji = await self.bot.create_application_emoji(name=name, image=image)
                except discord.HTTPException:
                    log.warning("could not upload the emoji %s", name, exc_info=True)
                    continue
                made += 1
            faces[card.token] = f"<:{emoji.name}:{emoji.id}>"
        if len(faces) < len(ALL_CARDS):  # some faces would be emojis and some text
            log.warning("only %d of %d card emojis: cards stay text", len(faces),
                        len(ALL_CARDS))
            return
        FACES.update(faces)  # all at once (no await in between): one style per message
        log.info("card emojis: %d known, %d uploaded now", len(FACES), made)


async def setup(bot: LamaBot) -> None:
    await bot.add_cog(CardEmojis(bot))
