"""Card faces as the application's own emojis, so the table shows cards drawn, not spelled.

At start-up the bot lists its application emojis and uploads the faces it lacks, once
(they are the application's, across every server and restart; never per game). Until
that is done, or where an upload fails, the table keeps the emoji text of cogs.cards. In
a cluster only the process that syncs the commands uploads; the others use what exists.
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
    from bot.client import LamaBot

log = logging.getLogger(__name__)

PREFIX = "lama_"
SIGNS = {"/": "_", "*": "s", "+": "p"}


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
        if self.bot.settings.lama_card_emojis:
            self.task = asyncio.create_task(self.sync(), name="lama-card-emojis")

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
            FACES[card.token] = f"<:{emoji.name}:{emoji.id}>"
        log.info("card emojis: %d known, %d uploaded now", len(FACES), made)


async def setup(bot: LamaBot) -> None:
    await bot.add_cog(CardEmojis(bot))
