"""Answering interactions within Discord's 3 seconds, whatever the store or Discord is doing.

:func:`in_time` runs the work (an action: engine, then the store) and, if it is
not done after :data:`DEFER_AFTER` seconds, acknowledges the click with a
deferred update so the user never sees "This interaction failed"; the work
goes on and :func:`update_message` then edits the clicked message through the
interaction's webhook instead of the initial response. The work is shielded:
an accepted action is never cut in half because its answer was late.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable
from typing import Any, TypeVar

import discord
from discord.enums import InteractionResponseType

from cogs.discord_compat import edit_original, update_clicked

log = logging.getLogger(__name__)

T = TypeVar("T")

DEFER_AFTER = 2.0  # seconds; Discord allows 3 for the first answer
THINKING = "lama.thinking"
"""``interaction.extras`` key: a slash command was deferred publicly ("thinking…", type 5)
and nothing filled that placeholder yet; a refusal must not (cogs.replies)."""


async def in_time(interaction: discord.Interaction, work: Awaitable[T]) -> T:
    """``await work``, deferring the interaction's answer if the work is slow."""
    task = asyncio.ensure_future(work)
    await asyncio.wait({task}, timeout=DEFER_AFTER)
    if task.done():  # (the usual case: nothing left to shield)
        try:
            return task.result()
        finally:
            del task  # (as below)
    if not interaction.response.is_done():
        try:
            await interaction.response.defer()
        except discord.HTTPException:
            log.warning("could not defer interaction %s", interaction.id, exc_info=True)
        else:
            # a command's deferral is a public placeholder that its first followup fills
            interaction.extras[THINKING] = (interaction.response.type
                                            is InteractionResponseType.deferred_channel_message)
    try:
        return await asyncio.shield(task)
    finally:
        # A refusal raised by the work is kept by the task, and its traceback keeps this
        # frame: without the task in it, the three (with the interaction) are freed at once,
        # not left for a full garbage collection (tests/bot/test_let_go.py).
        del task


async def send_message(interaction: discord.Interaction, **kwargs: Any) -> int | None:
    """Answer with a new message, or (after a defer) fill the deferred answer; its id."""
    if not interaction.response.is_done():
        sent = await interaction.response.send_message(**kwargs)
        return sent.message_id
    interaction.extras.pop(THINKING, None)  # filled by this answer
    message = await interaction.followup.send(wait=True, **kwargs)
    return message.id


async def update_message(interaction: discord.Interaction, **kwargs: Any) -> bool:
    """Edit the clicked message: as the answer, or (after a defer) through the webhook.

    A late edit can meet an expired token (15 minutes) or a deleted message: that is
    logged (and False returned), the game itself is already saved and goes on.
    """
    if not interaction.response.is_done():
        await update_clicked(interaction, **kwargs)
        return True
    interaction.extras.pop(THINKING, None)  # filled by this answer
    try:
        await edit_original(interaction, **kwargs)
    except discord.HTTPException:
        log.warning("could not edit the answer of interaction %s", interaction.id, exc_info=True)
        return False
    return True
