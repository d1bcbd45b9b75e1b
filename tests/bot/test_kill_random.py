"""Killed again and again at seeded random moments while several games are played, the bot
loses no acknowledged move, applies nothing twice, shows nothing twice, and every game
ends and shows its end.

Each process kills itself at the n-th fault point it passes (``LAMA_FAULT=*#n``, n drawn
from a seeded random generator): commits, deliveries and their marks, in every channel.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import signal
import sqlite3
from collections.abc import Awaitable, Iterator
from pathlib import Path

import pytest

from fakediscord import FakeDiscord, FakeDiscordError, Member, TextChannel
from game import Game, from_dict
from tests import forkserver
from tests.bot.helpers import (
    KILLED_CLICK,
    WAIT,
    Turn,
    action_buttons,
    answered,
    card,
    current,
    is_final,
)
from tests.bot.test_kill import ROOT, SEED, START, sound
from tests.bot.test_outbox import tables, titled
from tests.bot.test_restart import stored_actions

GAMES = 3
KILLS = 10
RNG_SEED = int(os.environ.get("LAMA_TEST_KILL_SEED", "20261130"))  # other kills: set it
LAUNCHED: list[forkserver.Process] = []


@pytest.fixture(autouse=True)
def no_process_left() -> Iterator[None]:
    """A failed test still kills the bot processes it started (one once outlived its test)."""
    yield
    while LAUNCHED:
        process = LAUNCHED.pop()
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGKILL)


async def launch(fake: FakeDiscord, db: Path, log: Path, fault: str | None
                 ) -> forkserver.Process | None:
    """``python -m bot`` (forked from tests/forkserver.py); None if it died (at its fault
    point) before identifying."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAMA_")}
    env.update(PYTHONPATH=str(ROOT), DISCORD_TOKEN=fake.token, LAMA_DB=str(db), LAMA_SEED=SEED,
               LAMA_AI_DELAY="0", LAMA_DISCORD_URL=f"http://127.0.0.1:{fake.port}",
               LAMA_LOG_LEVEL="WARNING", LAMA_GUILD_READY_TIMEOUT="0.05")
    if fault is not None:
        env["LAMA_FAULT"] = fault
    identified = fake.gateway.identifies
    with log.open("a", encoding="utf-8") as err:
        process = await forkserver.start("-m", "bot", cwd=db.parent, env=env, stderr=err,
                                         stdout=forkserver.DEVNULL)
    LAUNCHED.append(process)
    ready = asyncio.ensure_future(fake.notifier.wait_for(
        lambda: True if fake.gateway.identifies > identified else None, START, "identify"))
    death = asyncio.ensure_future(process.wait())
    await asyncio.wait({ready, death}, return_when=asyncio.FIRST_COMPLETED)
    if death.done():
        ready.cancel()
        with contextlib.suppress(BaseException):
            await ready
        return None
    death.cancel()
    await ready
    return process


def ended(channel: TextChannel) -> bool:
    return any(is_final(m) for m in channel.messages)


async def next_change(fake: FakeDiscord, process: forkserver.Process,
                      channels: list[TextChannel], seen: dict[int, object]) -> None:
    """Until some game's table changes, or the process dies."""
    def moved() -> bool | None:
        return True if any(state(c) != seen.get(c.id) for c in channels) else None

    change = asyncio.ensure_future(fake.notifier.wait_for(moved, WAIT, "a table to change"))
    death = asyncio.ensure_future(process.wait())
    await asyncio.wait({change, death}, return_when=asyncio.FIRST_COMPLETED)
    for task in (change, death):
        task.cancel()
        with contextlib.suppress(BaseException):
            await task


def state(channel: TextChannel) -> object:
    turn = current(channel)
    return None if turn is None else turn.stamp


async def move(member: Member, turn: Turn, db: Path, channel: TextChannel,
               acked: list[tuple[int, list[tuple[int, str]]]]) -> None:
    """Open My hand and play its first action; note what the store holds once answered."""
    assert turn.table is not None
    hand = (await member.click(turn.table, "My hand")).message
    if hand is None or not action_buttons(hand):
        return
    result = await member.click(hand, action_buttons(hand)[0])
    if result.type == 7 and result.message is not None and "out of date" not in result.message.text:
        acked.append((channel.id, stored_or_finished(db, channel.id)))


async def until_dead(process: forkserver.Process, work: Awaitable[None]) -> bool:
    """Run a player's move; False (the move abandoned) if the process died meanwhile."""
    task = asyncio.ensure_future(work)
    death = asyncio.ensure_future(process.wait())
    await asyncio.wait({task, death}, return_when=asyncio.FIRST_COMPLETED)
    death.cancel()
    if not task.done():  # the fake answers a click that was never answered after its 3 s
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
        return False
    with contextlib.suppress(FakeDiscordError, AssertionError, KeyError):
        await task
    return process.returncode is None


async def drive(fake: FakeDiscord, process: forkserver.Process, db: Path,
                channels: list[TextChannel], members: dict[int, Member],
                acked: list[tuple[int, list[tuple[int, str]]]]) -> None:
    """Players move wherever it is their turn, until every game ended or the process died."""
    seen: dict[int, object] = {}
    while process.returncode is None and not all(ended(c) for c in channels):
        for channel in channels:
            turn = current(channel)
            seen[channel.id] = state(channel)
            if turn is None or turn.final is not None or turn.user_id is None:
                continue
            if not await until_dead(process, move(members[turn.user_id], turn, db, channel, acked)):
                return
        await next_change(fake, process, channels, seen)


def stored_or_finished(db: Path, channel_id: int) -> list[tuple[int, str]]:
    """The channel's actions as stored: the running game's, or the finished game's."""
    running = stored_actions(db, channel_id)
    if running:
        return running
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT record FROM games WHERE channel_id = ?", (channel_id,)
                           ).fetchone()
    return [] if row is None else actions_of(json.loads(row[0]), finished=False)


def final_records(db: Path) -> dict[int, dict[str, object]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT channel_id, record, status FROM games").fetchall()
    assert all(status == "finished" for _, _, status in rows), rows
    return {channel: json.loads(record) for channel, record, _ in rows}


def actions_of(record: dict[str, object], finished: bool = True) -> list[tuple[int, str]]:
    parsed = from_dict(record)
    game = Game(parsed.variant, parsed.players, parsed.options, seed=SEED, chance=parsed.rounds)
    for seat, action in parsed.actions:  # replays: nothing applied twice, nothing illegal
        game.apply(seat, action)
    assert game.finished or not finished
    return [(seat, str(action)) for seat, action in parsed.actions]


@pytest.mark.slow  # bot processes killed ten times
async def test_ten_kills_at_random_moments_lose_nothing_and_show_everything_once(
    tmp_path: Path,
) -> None:
    rng = random.Random(RNG_SEED)
    db, log = tmp_path / "lama.db", tmp_path / "bot.log"
    acked: list[tuple[int, list[tuple[int, str]]]] = []
    kills = 0
    async with FakeDiscord(token="fake.random-kill-token",
                           interaction_timeout=KILLED_CLICK) as fake:
        guild = fake.add_guild("Lama Club")
        ana, ben = guild.add_member("ana"), guild.add_member("ben")
        members = {ana.id: ana, ben.id: ben}
        channels = [guild.add_text_channel(f"game-{i}") for i in range(GAMES)]
        syncs = fake.command_syncs
        first = await launch(fake, db, log, None)
        assert first is not None
        await fake.notifier.wait_for(lambda: True if fake.command_syncs > syncs else None, START,
                                     "the command sync")
        for channel in channels:  # both players and an AI, to 8 points
            lobby = await answered(await ana.slash(channel, "lama start", target=8))
            assert lobby is not None
            await ben.click(lobby, "Join")
            await ana.click(lobby, "Add AI")
            await ana.click(lobby, "Start")
        first.send_signal(signal.SIGKILL)
        await first.wait()
        while kills < KILLS:
            process = await launch(fake, db, log, f"*#{rng.randint(2, 40)}")
            if process is not None:
                await drive(fake, process, db, channels, members, acked)
                assert process.returncode is not None, "games outlast the kills"
            kills += 1
            await sound(db)
        last = await launch(fake, db, log, None)
        assert last is not None
        await drive(fake, last, db, channels, members, acked)
        await fake.notifier.wait_for(lambda: True if all(  # START: a net, not a speed check
            ended(c) and not [t for t in tables(c) if t.buttons] for c in channels) else None,
            START, "every game to show its end")
        last.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(last.wait(), WAIT) == 0, log.read_text()
        assert not [f for f in fake.failures if "no answer" not in f.reason], fake.failures
        assert not fake.late_nonces, "posted again after Discord's nonce window: shown twice"
        for channel in channels:  # nothing shown twice
            assert len([m for m in channel.messages if is_final(m)]) == 1, channel.messages
            assert len(tables(channel)) == 1 and not tables(channel)[0].buttons
            summaries = [card(m).title for m in titled(channel, r"^Round \d+ is over$")]
            assert len(summaries) == len(set(summaries)), f"a round shown twice: {summaries}"
            rounds = int(re.findall(r"\d+", card(tables(channel)[0]).title or "")[-1])
            assert len(summaries) == rounds, (summaries, rounds)
    assert kills >= KILLS
    await sound(db)
    records = final_records(db)
    assert sorted(records) == sorted(c.id for c in channels), "every game finished"
    finals = {channel: actions_of(record) for channel, record in records.items()}
    assert acked, "players moved"
    for channel, stored in acked:  # every acknowledged move is in the final record, in place
        assert finals[channel][: len(stored)] == stored
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM outbox").fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 0
