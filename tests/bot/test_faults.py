"""Slow stores, simultaneous clicks and Discord faults lose no action and no game."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import cogs.timely
from fakediscord import Message
from tests.bot.conftest import World
from tests.bot.helpers import WAIT, action_buttons, answered, current, play_out, settled
from tests.bot.test_restart import stored_actions, take_turn


async def start(world: World, *, ai: bool = False, variant: str = "classic") -> Message:
    """A game to 1 point (one round: each fault falls in it, and the game then ends)."""
    lobby = await answered(await world.ana.slash(world.table, "lama start", variant=variant,
                                                 target=1))
    assert lobby is not None
    if ai:
        await world.ana.click(lobby, "Add AI")
    else:
        await world.ben.click(lobby, "Join")
    await world.ana.click(lobby, "Start")
    turn = await world.fake.notifier.wait_for(
        lambda: t if (t := current(world.table)) and t.user_id == world.ana.id else None,
        WAIT, "ana's turn",
    )
    assert turn.table is not None
    return turn.table


def db_of(world: World) -> Path:
    return Path(world.bot.settings.lama_db)


def finished_games(world: World) -> list[tuple[str, int]]:
    with sqlite3.connect(db_of(world)) as conn:
        return conn.execute("SELECT status, length(record) > 0 FROM games").fetchall()


class GatedSaves:
    """The store's writes block until the test opens the gate (a stuck disk)."""

    def __init__(self, world: World) -> None:
        self.original: Callable[..., Awaitable[None]] = world.bot.store.write
        self.gate = asyncio.Event()
        self.waiting = 0
        self.entered = asyncio.Event()  # a save is blocked at the gate
        world.bot.store.write = self.save  # type: ignore[method-assign]

    async def save(self, *args: Any) -> None:
        self.waiting += 1
        self.entered.set()
        await self.gate.wait()
        await self.original(*args)


@contextlib.contextmanager
def deferring_at_once() -> Iterator[None]:
    """Defer without waiting, for clicks made while the store is held stuck by the test.

    Deterministic: such a click cannot finish first, so it is always deferred, whatever the
    machine's speed. Outside this block the bot waits its usual DEFER_AFTER, so other clicks
    are answered directly (a short wait there made a slow save on a busy machine defer a
    click the test expected to be answered directly)."""
    saved = cogs.timely.DEFER_AFTER
    cogs.timely.DEFER_AFTER = 0
    try:
        yield
    finally:
        cogs.timely.DEFER_AFTER = saved


async def test_two_clicks_of_one_button_at_once_apply_once(world: World) -> None:
    table = await start(world)
    hand = (await world.ana.click(table, "My hand")).message
    assert hand is not None
    draw = next(c for c in action_buttons(hand) if c.endswith(":draw"))
    before = len(stored_actions(db_of(world)))
    results = await asyncio.gather(world.ana.click(hand, draw), world.ana.click(hand, draw))
    texts = [(await settled(r)).text for r in results]  # both clicks are answered
    assert len(stored_actions(db_of(world))) == before + 1, "the card was drawn once"
    assert "out of date" in texts[0] + texts[1]


async def test_two_players_clicking_at_once_apply_only_the_legal_move(world: World) -> None:
    table = await start(world)
    await take_turn(world.fake, world.table, world.members)  # ana moves
    turn = current(world.table)
    assert turn is not None and turn.user_id == world.ben.id and turn.table is not None
    ben_hand = (await world.ben.click(turn.table, "My hand")).message
    await take_turn(world.fake, world.table, world.members)  # ben moves: ana is to act
    turn = current(world.table)
    assert turn is not None and turn.user_id == world.ana.id and turn.table is not None
    ana_hand = (await world.ana.click(turn.table, "My hand")).message
    assert ben_hand is not None and ana_hand is not None and table is not None
    before = stored_actions(db_of(world))
    ana_click, ben_click = await asyncio.gather(
        world.ana.click(ana_hand, action_buttons(ana_hand)[0]),
        world.ben.click(ben_hand, action_buttons(ben_hand)[0]),
    )
    after = stored_actions(db_of(world))
    assert after[: len(before)] == before and len(after) == len(before) + 1
    assert after[-1][0] == 0, "only ana's move was applied (seat 0)"
    assert "out of date" in ben_click.message.text  # type: ignore[union-attr]
    assert "out of date" not in (await settled(ana_click)).text


@pytest.mark.slow  # plays the game to its end
async def test_a_stuck_store_still_answers_in_time_and_the_move_lands(world: World) -> None:
    assert cogs.timely.DEFER_AFTER < 3, "Discord's limit for the first answer"
    table = await start(world)
    hand = (await world.ana.click(table, "My hand")).message
    assert hand is not None
    draw = next(c for c in action_buttons(hand) if c.endswith(":draw"))
    before = len(stored_actions(db_of(world)))
    saves = GatedSaves(world)
    with deferring_at_once():
        reply = await world.ana.click(hand, draw)  # answered while the store still blocks
    assert reply.type == 6, "deferred while the store is stuck"
    await asyncio.wait_for(saves.entered.wait(), WAIT)
    assert saves.waiting == 1 and len(stored_actions(db_of(world))) == before
    saves.gate.set()
    edited = await reply.wait_for(lambda m: "Waiting for ben" in m.text)
    assert edited is hand and not action_buttons(hand)
    assert len(stored_actions(db_of(world))) == before + 1
    await play_out(world.fake, world.table, world.members)


async def test_an_expired_token_never_stops_the_game(world: World) -> None:
    table = await start(world, ai=True)
    hand = (await world.ana.click(table, "My hand")).message
    assert hand is not None
    saves = GatedSaves(world)
    with deferring_at_once():
        reply = await world.ana.click(hand, action_buttons(hand)[0])
    assert reply.type == 6
    world.fake.clock.advance(901)  # the click's token expires while the store is stuck
    seen = current(world.table)
    assert seen is not None
    saves.gate.set()
    await world.fake.notifier.wait_for(
        lambda: True if (t := current(world.table)) and t.stamp != seen.stamp else None,
        WAIT, "the table to show the move (and the AI's answer)",
    )
    final = await play_out(world.fake, world.table, world.members)
    assert "AI 1" in final.text and finished_games(world) == [("finished", 1)]
    # the click's token, and the Start click's (round 1's table: Discord's clock moved, the
    # bot's did not): each refused once, then the table is edited through the channel
    expired = [r for r in world.fake.refusals if r.status == 401]
    assert len(expired) == 2 and all("/webhooks/" in r.path for r in expired), (
        world.fake.refusals)
    assert expired[0].path != expired[1].path, "two tokens, each tried once"
    for refusal in expired:
        world.fake.refusals.remove(refusal)


@pytest.mark.slow  # plays the game to its end
async def test_a_dropped_gateway_loses_no_game(world: World) -> None:
    await start(world)
    for _ in range(3):
        await take_turn(world.fake, world.table, world.members)
    kept = stored_actions(db_of(world))
    await world.fake.drop_gateway()
    assert world.fake.gateway.resumes >= 1
    assert stored_actions(db_of(world)) == kept
    await play_out(world.fake, world.table, world.members)
    assert finished_games(world) == [("finished", 1)]


@pytest.mark.parametrize("fault", ["429", "500"])
async def test_a_failed_table_edit_loses_nothing_and_the_table_catches_up(
    world: World, fault: str
) -> None:
    await start(world, ai=True)
    path = "/channels/*/messages/*"
    injected = (world.fake.rate_limit("PATCH", path, retry_after=0.05) if fault == "429"
                else world.fake.fail("PATCH", path, status=500))
    await take_turn(world.fake, world.table, world.members)  # the table is edited: AI to act
    final = await play_out(world.fake, world.table, world.members)
    assert injected.hits == 1, "the edit met the fault"
    assert "AI 1" in final.text and finished_games(world) == [("finished", 1)]


async def test_a_stuck_store_still_answers_lobby_clicks_and_start_in_time(world: World) -> None:
    saves = GatedSaves(world)
    with deferring_at_once():
        reply = await world.ana.slash(world.table, "lama start", target=20)  # store stuck
    assert reply.type == 5, "a slow /lama start is deferred, not failed"
    saves.gate.set()
    lobby = await reply.wait_for(lambda m: "ana" in m.text and bool(m.buttons))
    saves.gate.clear()
    with deferring_at_once():
        join = await world.ben.click(lobby, "Join")
    assert join.type == 6, "a slow Join is deferred"
    assert "ben" not in lobby.text, "nothing shown before it is saved"
    saves.gate.set()
    await join.wait_for(lambda m: "ben" in m.text)
    stored = await world.bot.store.sessions(world.guild.id)
    assert [s["name"] for s in stored[0]["seats"]] == ["ana", "ben"]
    assert stored[0]["lobby_message_id"] == lobby.id, "the lobby is remembered at once"
