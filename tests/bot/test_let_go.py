"""Answered interactions are freed by reference counting, not left for a full collection.

discord.py's interaction and its ``response`` refer to each other; each answered click or
command was cyclic garbage (with the clicked message, its embeds, components and users) until
the next full garbage collection, and a long run's RSS grew with the largest such pile
(benchmarks/memory.py, docs/performance.md). cogs/discord_compat.py's ``let_go`` breaks the
cycle once the answer is given. Automatic collections are off while the game is played here,
so every interaction still in a cycle afterwards is found by the one collection at the end.
A refused command's interaction was kept so too (its refusal, kept by the task that raised it,
whose traceback held the frame holding that task: cogs/timely.py's ``in_time`` lets go of the
task), and each lobby's and game end's buttons (a View and its items refer to each other:
cogs/render.py's ``Components.of`` empties the spent View).
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator
from contextlib import contextmanager

import discord
import pytest

from bot.words.i18n import translator
from cogs.bodies import event_payload, payload_body
from cogs.discord_compat import let_go
from cogs.endings import final_standings
from cogs.render import lobby_message
from game import Game, player_view
from tests.bot.conftest import World
from tests.bot.helpers import WAIT, answered, offers, play_out, settled
from tests.bot.test_hands import club, open_hand  # noqa: F401  (the fixture)
from tests.bot.test_liveness import Club

ANSWERING = ("discord.py: on_interaction", "discord.py: on_app_command_completion",
             "CommandTree-invoker")


@contextmanager
def no_automatic_collections() -> Iterator[None]:
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


async def answers_done() -> None:
    """Every interaction the bot is still answering (its tasks: discord.py's names) is done."""
    await asyncio.gather(*(t for t in asyncio.all_tasks()
                           if t is not asyncio.current_task() and t.get_name() in ANSWERING))


def in_cycles(kind: type) -> int:
    """Objects of ``kind`` that only a full collection would free (counted, then collected)."""
    return kinds_in_cycles(kind)[kind.__name__]


def kinds_in_cycles(*kinds: type) -> dict[str, int]:
    """:func:`in_cycles` of several kinds, counted in the same collection."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        return {k.__name__: sum(isinstance(o, k) for o in gc.garbage) for k in kinds}
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.collect()


async def test_a_played_game_leaves_no_interaction_for_the_collector(club: Club) -> None:  # noqa: F811
    await club.start_game(turn_timeout=0)
    with no_automatic_collections():
        ana = await open_hand(club, club.ana)  # a click answered with a new message
        ana = await settled(await club.ana.click(ana, "Draw"))  # a click's update
        ben = await open_hand(club, club.ben)
        await settled(await club.ben.click(ben, "Draw"))  # ana's open hand follows
        await club.ana.slash(club.channel, "lama rules")  # a command
        await answers_done()
        assert in_cycles(discord.Interaction) == 0


async def test_a_refused_command_leaves_no_interaction_for_the_collector(
        club: Club) -> None:  # noqa: F811
    await club.start_game(turn_timeout=0)
    with no_automatic_collections():
        refused = await answered(await club.ben.slash(club.channel, "lama start"))  # running
        assert refused.ephemeral and "already running" in refused.text
        await answers_done()
        assert in_cycles(discord.Interaction) == 0


async def test_a_game_end_and_a_lobby_leave_no_view_for_the_collector() -> None:
    """The standings' Rematch button (drawn, and drawn again from the owed message's body)
    and a lobby's buttons are drawn as discord.ui items into a View that is then spent."""
    tr = translator("en")
    view = player_view(Game("classic", ["ana", "ben"], {"target": 40}, seed=1), None)
    with no_automatic_collections():
        end = final_standings(tr, view, "f" * 32, [1, 2])
        body = payload_body(end) | {"rematch": {"game_id": "f" * 32, "label": "Rematch"}}
        again = event_payload(body)
        lobby = lobby_message(tr, "f" * 32, "Classic", "ana", [("ana", False)], "rules")
        assert in_cycles(discord.ui.View) == 0
    for payload in (end, again):
        assert ":rematch:" in str(payload.view.to_components())  # type: ignore[union-attr]
    assert ":join" in str(lobby.view.to_components())  # type: ignore[union-attr]


async def test_a_whole_game_leaves_no_interaction_or_view_for_the_collector(
        world: World) -> None:
    """From /lama start to the standings, with an AI seat: every click and command answered,
    the lobby drawn and redrawn, the game's end posted with its Rematch button."""
    with no_automatic_collections():
        lobby = await answered(await world.ana.slash(world.table, "lama start", target=1))
        assert lobby is not None
        await world.ana.click(lobby, "Add AI")
        await world.ana.click(lobby, "Start")
        final = await play_out(world.fake, world.table, world.members)
        assert any(":rematch:" in b.custom_id for b in final.buttons)
        await answers_done()
        assert kinds_in_cycles(discord.Interaction, discord.ui.View) == {
            "Interaction": 0, "View": 0}


def test_a_let_go_interaction_still_reads_as_answered() -> None:
    """Without its cycle, the response still says it is done, and refuses a second answer."""
    response = discord.InteractionResponse.__new__(discord.InteractionResponse)
    response._response_type = discord.InteractionResponseType.message_update
    interaction = discord.Interaction.__new__(discord.Interaction)
    response._parent = interaction
    interaction._cs_response = response  # (as discord.py caches it: the cycle)
    interaction.message = object()  # type: ignore[assignment]  (the clicked message)
    let_go(interaction)
    assert interaction.message is None, "read only before the answer: not kept after it"
    assert interaction.response is not response
    assert interaction.response.is_done()
    assert interaction.response.type is discord.InteractionResponseType.message_update
    assert interaction not in gc.get_referents(interaction.response)
    with pytest.raises(discord.InteractionResponded):
        asyncio.run(interaction.response.defer())


def test_an_unanswered_interaction_keeps_its_response() -> None:
    response = discord.InteractionResponse.__new__(discord.InteractionResponse)
    response._response_type = None
    interaction = discord.Interaction.__new__(discord.Interaction)
    response._parent = interaction
    interaction._cs_response = response
    clicked = interaction.message = object()  # type: ignore[assignment]
    let_go(interaction)
    assert interaction.response is response
    assert interaction.message is clicked, "its answer may still read it"


async def test_a_cancelled_timer_leaves_no_cycle(club: Club) -> None:  # noqa: F811
    """A timer task cancelled while it sleeps (re-armed sooner, or its game gone) is freed at
    once: its frame, kept by the CancelledError's traceback, no longer leads back to it."""
    await club.start_game(turn_timeout=0)
    session = club.bot.sessions.require(club.channel.id)
    watchdog, name = club.bot.sessions.timers, f"lama-timer-{club.channel.id}"
    with no_automatic_collections():
        for _ in range(3):
            watchdog.cancel(club.channel.id)
            watchdog.arm(session)
            timer = next(t for t in asyncio.all_tasks() if t.get_name() == name)
            for _ in range(100):  # (its first steps, until it sleeps on the clock)
                if club.clock.waiting:
                    break
                await asyncio.sleep(0)
            assert club.clock.waiting, "the timer sleeps until its deadline"
            watchdog.cancel(club.channel.id)
            await asyncio.gather(timer, return_exceptions=True)
            assert timer.cancelled()
        assert in_cycles(asyncio.Task) == 0


async def test_an_open_hand_keeps_its_token_but_not_the_clicked_message(
        club: Club) -> None:  # noqa: F811
    """An open hand's interaction is kept for its token (the hand follows the game), but the
    message discord.py parsed from its click is let go of once it is answered; the hand
    still follows the next move."""
    await club.start_game(turn_timeout=0)
    ana = await open_hand(club, club.ana)  # My hand: the public table's message was clicked
    ana = await settled(await club.ana.click(ana, "Draw"))  # the hand's own message clicked
    ben = await open_hand(club, club.ben)
    await answers_done()
    table = club.bot.get_cog("Table")
    kept = [hand.interaction for hand in table.hands._hands.values()]  # type: ignore[union-attr]
    assert len(kept) == 2 and all(i.message is None for i in kept)
    assert all(i.response.is_done() for i in kept)
    await settled(await club.ben.click(ben, "Draw"))
    await club.fake.notifier.wait_for(offers(ana), WAIT, "ana's hand to offer her moves")
