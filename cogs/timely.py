"""Answering interactions within Discord's 3 seconds, whatever the store or Discord is doing.

:func:`in_time` runs the work (an action: engine, then the store) and, if it is
not done after :data:`DEFER_AFTER` seconds, acknowledges the click with a
deferred update so the user never sees "This interaction failed"; the work
goes on and :func:`update_message` then edits the clicked message through the
interaction's webhook instead of the initial response. The work is shielded:
an accepted action is never cut in half because its answer was late.

The work starts at once, in the caller's task, and runs there as long as it does not wait
(an action usually does not: the engine, then the store's transaction on the loop): only
work that waits becomes a task of its own. A task for every action cost the answer three
turns of the event loop (the task's start, its end waking the wait, the wait waking the
caller), each a wait behind everything else the loop had ready: under load the largest
part of an answer's time (``bot_load.py --trace``: "action task starts", "after the write").
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Coroutine, Generator
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


class _Rest:
    """The rest of a coroutine whose first step (:func:`in_time`) yielded ``yielded``: what
    it yields passes to the task that awaits this, and what the task sends or throws (a
    wake-up, a cancellation) to the coroutine, as ``await`` would."""

    __slots__ = ("coro", "yielded")

    def __init__(self, coro: Coroutine[Any, Any, T], yielded: Any) -> None:
        self.coro, self.yielded = coro, yielded

    def __await__(self) -> Generator[Any, Any, Any]:
        coro, message = self.coro, self.yielded
        self.coro = self.yielded = None
        while True:
            try:
                sent = yield message
            except GeneratorExit:
                coro.close()
                raise
            except BaseException as error:  # (a cancellation, too: the coroutine's to handle)
                try:
                    message = coro.throw(error)
                except StopIteration as stop:
                    return stop.value
            else:
                try:
                    message = coro.send(sent)
                except StopIteration as stop:
                    return stop.value


async def _rest(coro: Coroutine[Any, Any, T], yielded: Any) -> T:
    result: T = await _Rest(coro, yielded)
    return result


def _started(work: Awaitable[T]) -> tuple[bool, Any]:
    """``work`` run up to its first wait, here: (True, its result) if it never waited, else
    (False, an awaitable of the rest of it). An error it raised is raised here."""
    if not asyncio.iscoroutine(work):
        return False, work
    try:
        yielded = work.send(None)
    except StopIteration as stop:
        return True, stop.value
    return False, _rest(work, yielded)


async def in_time(interaction: discord.Interaction, work: Awaitable[T], *,
                  private: bool = False) -> T:
    """``await work``, deferring the interaction's answer if the work is slow. ``private``:
    a command whose answer only its user sees (its placeholder is ephemeral too)."""
    done, value = _started(work)
    if done:
        result: T = value
        return result
    task = asyncio.ensure_future(value)
    del value
    await asyncio.wait({task}, timeout=DEFER_AFTER)
    if task.done():  # (the usual case: nothing left to shield)
        try:
            return task.result()
        finally:
            del task  # (as below)
    if not interaction.response.is_done():
        try:
            await interaction.response.defer(ephemeral=private)
        except discord.HTTPException:
            log.warning("could not defer interaction %s", interaction.id, exc_info=True)
        else:
            # a command's deferral is a placeholder that its first followup fills: a public
            # one must not be filled by a refusal (cogs.replies)
            interaction.extras[THINKING] = not private and (
                interaction.response.type is InteractionResponseType.deferred_channel_message)
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
