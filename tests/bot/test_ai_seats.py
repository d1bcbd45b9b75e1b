"""AI seats: a difficulty per seat chosen in the lobby and kept across restarts; hard AIs
think in a process pool, so the event loop answers other channels meanwhile."""

from __future__ import annotations

import asyncio
import gc
import json
import multiprocessing
from typing import cast

import pytest

import bot.sessions.sessions
from bot.policies.ai_runner import AiRunner, make_player
from bot.sessions.sessions import Session, Sessions
from game.ai import FULL_COLLECTION_EVERY
from tests.bot.blocking import BlockingPlayer
from tests.bot.conftest import World
from tests.bot.helpers import answered


def session_of(world: World, channel_id: int) -> Session:
    session = world.bot.sessions.get(channel_id)
    assert session is not None
    return session


async def test_lobby_adds_ais_of_each_difficulty_and_keeps_them(world: World) -> None:
    lobby = await answered(await world.ana.slash(world.table, "lama start", variant="classic"))
    assert lobby is not None
    await world.ana.click(lobby, "Add easy AI")
    await world.ana.click(lobby, "Add AI")
    shown = (await world.ana.click(lobby, "Add hard AI")).message
    assert "Easy AI 1" in shown.text and "AI 1" in shown.text and "Hard AI 1" in shown.text
    session = session_of(world, world.table.id)
    assert [s.difficulty for s in session.seats] == [None, "easy", "normal", "hard"]
    # what is saved brings the difficulties back after a restart
    saved = json.loads(json.dumps(session.snapshot()))
    again = Session.restore(world.bot.sessions, saved)
    assert [s.difficulty for s in again.seats] == [None, "easy", "normal", "hard"]
    await world.ana.click(lobby, "Start")
    players = session_of(world, world.table.id).players
    kinds = {seat: type(p).__name__ for seat, p in players.items()}
    assert kinds == {1: "RandomPlayer", 2: "HeuristicPlayer", 3: "HardPlayer"}


def test_sessions_saved_before_difficulties_get_normal_ais() -> None:
    old_seat = {"user_id": None, "name": "AI 1"}  # a seat as older bots saved it
    assert "difficulty" not in old_seat
    assert type(make_player("7:1", old_seat.get("difficulty"))).__name__ == "HeuristicPlayer"
    assert type(make_player("7:1", "easy")).__name__ == "RandomPlayer"
    hard = make_player("7:1", "hard")
    assert type(hard).__name__ == "HardPlayer" and hard.budget is not None  # type: ignore[attr-defined]


def test_the_ai_workers_freeze_their_start_up_heap() -> None:
    """A worker's full collections, rarer, do not walk its modules' objects mid-decision."""
    pool = AiRunner(cast(Sessions, None), delay=0, workers=1)._new_pool()
    try:
        assert pool.submit(gc.get_freeze_count).result(60) > 1000
        assert pool.submit(gc.get_threshold).result(60)[2] == FULL_COLLECTION_EVERY
    finally:
        pool.shutdown()


async def test_a_thinking_ai_does_not_hold_up_other_channels(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    manager = multiprocessing.get_context("forkserver").Manager()
    try:
        started, release = manager.Event(), manager.Event()
        real = bot.sessions.sessions.make_player

        def seat_player(seed: int | str, difficulty: str | None = None) -> object:
            if difficulty == "hard":
                return BlockingPlayer(started, release)
            return real(seed, difficulty)

        monkeypatch.setattr(bot.sessions.sessions, "make_player", seat_player)
        lobby = await answered(await world.ana.slash(world.table, "lama start", variant="classic"))
        assert lobby is not None
        await world.ana.click(lobby, "Leave")
        await world.ana.click(lobby, "Add hard AI")  # seat 0: the AI acts first
        await world.ana.click(lobby, "Join")
        await world.ana.click(lobby, "Start")
        game = session_of(world, world.table.id).game
        assert game is not None
        assert await asyncio.to_thread(started.wait, 60), "the hard AI started thinking"

        # while it thinks (it cannot answer before release), another channel is served
        other = world.guild.add_text_channel("other")
        opened = await answered(await world.ben.slash(other, "lama start", variant="dice"))
        assert not opened.ephemeral
        added = await world.ben.click(opened, "Add AI")
        assert "AI 1" in added.message.text
        assert not release.is_set() and game.history == [], "the AI is still thinking"

        release.set()
        await world.fake.notifier.wait_for(lambda: game.history or None, 30, "the AI move")
        assert game.history[0][0] == 0
    finally:
        manager.shutdown()
