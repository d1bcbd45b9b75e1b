"""Races: any number of members acting at once in one channel open one lobby, the others get
a clear private answer; a refusal is private even after the bot deferred its answer publicly.

Deterministic, whatever the machine's speed: the store's reads are held at a gate (a slow
disk) until every interaction of the test is either answered or waiting at that gate, so an
await between a check and its effect is always crossed by the other interactions."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from fakediscord import InteractionResult, Member, Message
from tests.bot.conftest import World
from tests.bot.helpers import WAIT, another_process_writing, answered, play_out
from tests.bot.test_faults import deferring_at_once


class Turnstile:
    """Holds the store method ``name`` until each of ``expected`` interactions (counted from
    now) has been answered or is waiting here: every one has then passed its checks."""

    def __init__(self, world: World, name: str, expected: int) -> None:
        self.world = world
        self.expected = expected
        self.waiting = 0
        self.gate = asyncio.Event()
        self.first = max(world.fake.interactions, default=0)
        self.original: Callable[..., Awaitable[Any]] = getattr(world.bot.store, name)
        setattr(world.bot.store, name, self.held)

    async def held(self, *args: Any) -> Any:
        if not self.gate.is_set():
            self.waiting += 1
            self.world.fake.notifier.notify()
            await self.gate.wait()
        return await self.original(*args)

    def answered(self) -> int:
        return sum(1 for iid, inter in self.world.fake.interactions.items()
                   if iid > self.first and inter.response_type is not None)

    async def run(self, actions: list[Awaitable[InteractionResult]]) -> list[InteractionResult]:
        """Start ``actions`` at once; open the gate once each is answered or held."""
        tasks = [asyncio.ensure_future(a) for a in actions]
        try:
            await self.world.fake.notifier.wait_for(
                lambda: True if self.answered() + self.waiting >= self.expected else None,
                WAIT, "every interaction to be answered or held at the store")
        finally:
            self.gate.set()
        return list(await asyncio.gather(*tasks))


async def private_answer(result: InteractionResult) -> Message:
    """The refusal as its member sees it: the ephemeral answer, or (answered after a public
    deferral) an ephemeral followup, the public "thinking" placeholder deleted (a click
    deferred by a type-6 update has no placeholder)."""
    if result.type not in (5, 6):
        assert result.ephemeral and result.message is not None, result
        return result.message
    message = await result.followup(0, timeout=WAIT)
    assert message.ephemeral, f"a refusal went public: {message.text!r}"
    assert result.message is None or result.message.deleted or result.message.ephemeral
    return message


async def lobby_of(result: InteractionResult) -> Message:
    """The public lobby an interaction answered with (waiting for it if it was deferred)."""
    message = await result.wait_for(lambda m: not m.loading, timeout=WAIT)
    assert not message.ephemeral and any(b.custom_id.endswith(":join") for b in message.buttons)
    return message


def lobbies(world: World) -> list[Message]:
    return [m for m in world.table.messages
            if any(b.custom_id.endswith(":join") for b in m.buttons)]


def crowd(world: World, n: int) -> list[Member]:
    """``n`` members: the world's four, then new ones."""
    members = [world.ana, world.ben, world.cleo, world.mod]
    members += [world.guild.add_member(f"m{i}") for i in range(n - len(members))]
    return members[:n]


async def one_lobby_and_refusals(world: World, results: list[InteractionResult]) -> Message:
    """Exactly one lobby among ``results``, in the channel and in the store; the rest refused
    privately, saying why."""
    opened = [r for r in results if r.type in (4, 5) and r.message is not None
              and not r.message.ephemeral and not r.message.deleted]
    assert len(opened) == 1, [r.message for r in results]
    lobby = await lobby_of(opened[0])
    for result in results:
        if result is not opened[0]:
            text = (await private_answer(result)).text
            assert "already running" in text or "déjà en cours" in text, text
    assert lobbies(world) == [lobby], "one lobby in the channel"
    session = world.bot.sessions.get(world.table.id)
    assert session is not None and any(session.short_id in b.custom_id for b in lobby.buttons)
    stored = await world.bot.store.sessions(world.guild.id)
    assert [s["game_id"] for s in stored] == [session.game_id], "one lobby stored"
    return lobby


OPTION_SETS = [
    {},
    {"turn_timeout": 60},
    {"turn_timeout": 0, "target": 30},
    {"variant": "tutorial", "rounds": 2},
    {"variant": "dice"},
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(o) or "defaults")
async def test_concurrent_starts_open_one_lobby(world: World, options: dict[str, Any]) -> None:
    members = crowd(world, 8)
    turnstile = Turnstile(world, "guild_setting", len(members) + 1)
    results = await turnstile.run(
        [m.slash(world.table, "lama start", **options) for m in members]
        + [world.ana.slash(world.table, "lama start", **options)])  # ana twice
    lobby = await one_lobby_and_refusals(world, results)
    joined = await world.ben.click(lobby, "Join")  # the lobby shown is the one that plays
    assert not joined.ephemeral or "already seated" in joined.message.text


async def finished_two_player_game(world: World) -> Message:
    lobby = await answered(await world.ana.slash(world.table, "lama start", target=8))
    assert lobby is not None
    await world.ben.click(lobby, "Join")
    await world.ana.click(lobby, "Start")
    return await play_out(world.fake, world.table, world.members)


async def test_concurrent_rematches_and_a_start_open_one_lobby(world: World) -> None:
    final = await finished_two_player_game(world)
    rematch = next(b.custom_id for b in final.buttons if ":rematch:" in b.custom_id)
    turnstile = Turnstile(world, "guild_setting", 5)
    results = await turnstile.run([
        world.ana.click(final, rematch), world.ben.click(final, rematch),
        world.ana.click(final, rematch), world.ben.click(final, rematch),
        world.cleo.slash(world.table, "lama start"),
    ])
    await one_lobby_and_refusals(world, results)


async def test_concurrent_rematches_with_a_slow_game_read_open_one_lobby(world: World) -> None:
    """The rematch reads the finished game first: held there too, both clicks then race."""
    final = await finished_two_player_game(world)
    rematch = next(b.custom_id for b in final.buttons if ":rematch:" in b.custom_id)
    turnstile = Turnstile(world, "game", 2)
    results = await turnstile.run([world.ana.click(final, rematch),
                                   world.ben.click(final, rematch)])
    await one_lobby_and_refusals(world, results)


async def test_a_refusal_after_a_public_deferral_stays_private(world: World) -> None:
    """The database is busy (another process writes): /lama start is deferred publicly, the
    save fails; the refusal is shown to its member alone and the channel keeps nothing."""
    store: Any = world.bot.store
    await store.db.execute("PRAGMA busy_timeout=0")
    # a write the lock turns away waits on the store's thread, whose connection would wait
    # 5 s (bot/store/sqlite_writer.py BUSY_TIMEOUT) for the other process before failing
    writer = store._thread_writer
    await writer.call(lambda: writer.conn.execute("PRAGMA busy_timeout=0"))
    with another_process_writing(world.bot.settings.lama_db), deferring_at_once():
        reply = await world.ana.slash(world.table, "lama start", target=20)
        assert reply.type == 5, "deferred while the store is busy"
        refusal = await private_answer(reply)
    assert "could not save that" in refusal.text
    assert world.table.messages == [], "nothing public is left"
    assert world.bot.sessions.get(world.table.id) is None


async def test_refusals_of_concurrent_deferred_starts_stay_private(world: World) -> None:
    """Every /lama start deferred at once: one lobby, every refusal private."""
    members = crowd(world, 5)
    with deferring_at_once():
        turnstile = Turnstile(world, "guild_setting", len(members))
        results = await turnstile.run([m.slash(world.table, "lama start") for m in members])
    await one_lobby_and_refusals(world, results)


# ---- other awaits between a check and its effect ---------------------------------------------
class Arrivals:
    """Counts calls of ``session.<name>`` (each then waits for the session's lock at once)."""

    def __init__(self, world: World, session: object, name: str) -> None:
        self.world = world
        self.count = 0
        self.original: Callable[..., Awaitable[Any]] = getattr(session, name)
        setattr(session, name, self.call)

    def call(self, *args: Any, **kwargs: Any) -> Awaitable[Any]:
        self.count += 1
        self.world.fake.notifier.notify()
        return self.original(*args, **kwargs)


async def held_then(
    world: World, first: Awaitable[InteractionResult],
    then: list[tuple[str, Callable[[], Awaitable[InteractionResult]]]],
) -> list[InteractionResult]:
    """``first`` runs until its commit is held at the store; then each of ``then`` in turn,
    ``(method, action)``, until it waits on the session's lock in ``session.<method>``; then
    the store goes on. The answers, in that order."""
    session = world.bot.sessions.get(world.table.id)
    assert session is not None
    writes = Turnstile(world, "write", 0)
    tasks = [asyncio.ensure_future(first)]
    try:
        await world.fake.notifier.wait_for(lambda: True if writes.waiting else None, WAIT,
                                           "the first action's commit to be held")
        for method, action in then:
            arrivals = Arrivals(world, session, method)
            tasks.append(asyncio.ensure_future(action()))
            await world.fake.notifier.wait_for(
                lambda arrivals=arrivals: True if arrivals.count else None, WAIT,
                f"the next action to wait for the session in {method}")
    finally:
        writes.gate.set()
    return list(await asyncio.gather(*tasks))


async def playing_table(world: World) -> Message:
    lobby = await answered(await world.ana.slash(world.table, "lama start", target=30))
    assert lobby is not None
    await world.ben.click(lobby, "Join")
    await world.ana.click(lobby, "Start")
    table = await world.fake.notifier.wait_for(
        lambda: next((m for m in world.table.messages
                      if any(":hand:" in b.custom_id for b in m.buttons)), None),
        WAIT, "the table")
    return table


def stored_games(world: World) -> list[tuple[str, str]]:
    with sqlite3.connect(world.bot.settings.lama_db) as conn:
        return conn.execute("SELECT game_id, status FROM games").fetchall()


async def test_two_stops_at_once_end_the_game_once(world: World) -> None:
    await playing_table(world)
    session = world.bot.sessions.get(world.table.id)
    assert session is not None
    first, second = await held_then(
        world, world.ana.slash(world.table, "lama stop"),
        [("stop", lambda: world.mod.slash(world.table, "lama stop"))])
    assert not first.ephemeral and "stopped the game" in first.message.text
    refusal = await private_answer(second)
    assert "no L.A.M.A. game" in refusal.text, "the game was stopped already"
    assert stored_games(world) == [(session.game_id, "abandoned")]
    assert world.bot.sessions.get(world.table.id) is None


async def test_a_stop_waiting_on_a_cancel_finds_no_lobby(world: World) -> None:
    lobby = await answered(await world.ana.slash(world.table, "lama start"))
    assert lobby is not None
    cancel, stop = await held_then(
        world, world.ana.click(lobby, "Cancel"),
        [("stop", lambda: world.mod.slash(world.table, "lama stop"))])
    refusal = await private_answer(stop)
    assert "no L.A.M.A. game" in refusal.text
    await cancel.wait_for(lambda m: "Cancelled" in m.text, timeout=WAIT)
    assert not [m for m in world.table.messages if "stopped" in m.text], "no stop shown"
    fresh = await answered(await world.cleo.slash(world.table, "lama start"))
    assert not fresh.ephemeral, "the channel is free"


async def test_leaving_while_the_host_starts_leaves_the_game(world: World) -> None:
    """/lama leave waited for the lobby (behind a Join being saved) while the host's Start
    went first: the game has begun, so the player leaves the game (an AI plays their seat)
    instead of being refused."""
    lobby = await answered(await world.ana.slash(world.table, "lama start"))
    assert lobby is not None
    await world.ben.click(lobby, "Join")
    _join, start, leave = await held_then(world, world.cleo.click(lobby, "Join"), [
        ("start", lambda: world.ana.click(lobby, "Start")),
        ("leave", lambda: world.ben.slash(world.table, "lama leave")),
    ])
    assert not start.ephemeral, "the host started the game"
    assert not leave.ephemeral and "an AI plays their seat" in leave.message.text
    session = world.bot.sessions.get(world.table.id)
    assert session is not None and session.seats[1].user_id == world.ben.id
    assert session.seats[1].away


async def test_a_lobby_click_waiting_on_a_cancel_finds_the_lobby_closed(world: World) -> None:
    lobby = await answered(await world.ana.slash(world.table, "lama start"))
    assert lobby is not None
    _join, _cancel, join = await held_then(world, world.ben.click(lobby, "Join"), [
        ("cancel", lambda: world.ana.click(lobby, "Cancel")),
        ("join", lambda: world.cleo.click(lobby, "Join"))])
    refusal = await private_answer(join)
    assert "Cette salle d’attente est fermée" in refusal.text, refusal.text  # cleo: French
