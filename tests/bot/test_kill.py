"""``python -m bot`` killed with SIGKILL mid-game, started again on the same database, finishes
the game exactly as if it had never been killed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.store.sqlite import SqliteStore
from fakediscord import FakeDiscord
from tests import forkserver
from tests.bot.conftest import make_settings
from tests.bot.helpers import KILLED_CLICK, WAIT, action_buttons, current, first_button
from tests.bot.test_restart import Table, changed, stored_actions, take_turn

ROOT = Path(__file__).resolve().parents[2]
SEED = "kill-11"
START = 120.0
"""Seconds a bot process may take to start and identify: a net against a hang, not a speed
check (on two cores shared with other work a start has taken over 20 s)."""
STOP = 120.0
"""Seconds a bot process may take to exit (at its fault point, or stopping after SIGTERM): a
net against a hang, not a speed check (a stop bounds each of its steps by 10 s itself, and at
a load of 11 on two cores one has taken over 10 s)."""


def final_record(db: Path) -> dict[str, object]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT record, status FROM games").fetchall()
    assert len(rows) == 1 and rows[0][1] == "finished", rows
    return json.loads(rows[0][0])


async def sound(db: Path) -> None:
    """The file opens, is intact, and holds no half-written game."""
    store = SqliteStore(str(db))
    await store.open()
    try:
        assert await store.integrity_check() == ["ok"]
    finally:
        await store.close()


async def play_to_the_end(fake: FakeDiscord, club: Table, wait: float = WAIT) -> None:
    while await take_turn(fake, club.channel, club.members, wait=wait) is not None:
        pass


async def reference_record(tmp_path: Path) -> dict[str, object]:
    """The same game (same seed, same clicks), played by an in-process bot never killed."""
    settings = make_settings(tmp_path / "reference", lama_seed=SEED)
    Path(settings.lama_db).parent.mkdir()
    async with FakeDiscord(interaction_timeout=KILLED_CLICK) as fake:
        club = Table(fake, settings)
        async with fake.run(club.bot()):
            await club.start_game(ai=True)
            await play_to_the_end(fake, club)
    return final_record(Path(settings.lama_db))


@contextlib.asynccontextmanager
async def bot_process(
    fake: FakeDiscord, db: Path, log: Path, fault: str | None = None, **extra: str
) -> AsyncIterator[forkserver.Process]:
    """``python -m bot`` against the fake; yields once it identified on the gateway.

    ``fault``: a fault point (bot/common/faults.py) where the process kills itself. The process is
    forked from the suite's fork server (tests/forkserver.py): real, but without the imports'
    second of CPU.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAMA_")}
    env.update(
        PYTHONPATH=str(ROOT), DISCORD_TOKEN=fake.token, LAMA_DB=str(db), LAMA_SEED=SEED,
        LAMA_AI_DELAY="0", LAMA_DISCORD_URL=f"http://127.0.0.1:{fake.port}",
        LAMA_LOG_LEVEL="WARNING", LAMA_GUILD_READY_TIMEOUT="0.05", **extra,
    )
    if fault is not None:
        env["LAMA_FAULT"] = fault
    identified = fake.gateway.identifies
    with log.open("a", encoding="utf-8") as err:
        process = await forkserver.start("-m", "bot", cwd=db.parent, env=env, stderr=err,
                                         stdout=forkserver.DEVNULL)
    try:
        await fake.notifier.wait_for(
            lambda: True if fake.gateway.identifies > identified else None, START,
            "the bot process to identify",
        )
        yield process
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGKILL)
        await process.wait()


@pytest.mark.slow  # bot processes started and killed
async def test_a_game_killed_twice_mid_round_finishes_as_if_never_killed(tmp_path: Path) -> None:
    expected = await reference_record(tmp_path)
    db = tmp_path / "lama.db"
    log = tmp_path / "bot.log"
    async with FakeDiscord(token="fake.kill-test-token", interaction_timeout=KILLED_CLICK) as fake:
        club = Table(fake, make_settings(tmp_path, lama_seed=SEED))
        syncs = fake.command_syncs
        async with bot_process(fake, db, log) as first:
            await fake.notifier.wait_for(
                lambda: True if fake.command_syncs > syncs else None, START, "the command sync"
            )
            await club.start_game(ai=True)
            for _ in range(5):
                assert await take_turn(fake, club.channel, club.members) is not None
            accepted = stored_actions(db)  # every answered click is in the file already
            first.send_signal(signal.SIGKILL)  # 1: right after an answered move
            await first.wait()
        assert stored_actions(db)[: len(accepted)] == accepted
        await sound(db)

        seen = current(club.channel)
        assert seen is not None
        async with bot_process(fake, db, log) as second:
            turn = await fake.notifier.wait_for(changed(club.channel, seen.stamp), START,
                                                "the table to be refreshed after the restart")
            while turn.user_id is None:  # the AI may have been to act: let it
                turn = await fake.notifier.wait_for(changed(club.channel, turn.stamp), WAIT,
                                                    "a human's turn")
            assert turn.table is not None
            member = club.members[turn.user_id]
            hand = (await member.click(turn.table, "My hand")).message
            assert hand is not None and action_buttons(hand)
            before = stored_actions(db)
            asked = len(fake.interactions)
            click = asyncio.create_task(member.click(hand, first_button(member, hand)[0]))
            await fake.notifier.wait_for(
                lambda: True if len(fake.interactions) > asked else None, WAIT, "the click"
            )
            await fake.gateway.flush()  # the click is on the bot's socket
            second.send_signal(signal.SIGKILL)  # 2: right after the click, answered or not
            await second.wait()
            click.cancel()
            with contextlib.suppress(asyncio.CancelledError, AssertionError):
                await click
        after = stored_actions(db)
        assert after[: len(before)] == before, "the click applied fully or not at all"
        ai_seat = 2  # (ana, ben, then the AI: Table.start_game)
        assert all(seat == ai_seat for seat, _ in after[len(before) + 1:]), (
            "past the click, only the AI's moves (no AI delay: it may move before the kill)")
        await sound(db)

        async with bot_process(fake, db, log):
            await play_to_the_end(fake, club, START)  # a process just started: START's net
        await sound(db)
        fake.failures[:] = [f for f in fake.failures if "no answer" not in f.reason]
        assert not fake.failures, fake.failures
        # a kill after a table was reposted and its predecessor deleted, before the new id
        # was saved, makes the next process redeliver it: the nonce returns the new table,
        # and deleting the predecessor again meets a 404
        others = [r for r in fake.refusals if r.code != 10008]
        assert not others, (others, log.read_text())
    assert final_record(db) == expected, log.read_text()
