"""The bot as a cluster: ``python -m bot.cluster`` runs 2 processes × 4 shards against the fake
Discord and one database; one process is SIGKILLed mid-round while games go on in both; the
launcher restarts it and every game ends exactly as an uninterrupted one, counted once."""

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

from bot import create_bot
from bot.common.shards import shard_of
from bot.process.backends import is_postgres, make_store
from fakediscord import FakeDiscord, Guild, Member, TextChannel
from tests import forkserver
from tests.bot.conftest import make_settings
from tests.bot.helpers import KILLED_CLICK, answered, is_final
from tests.bot.test_restart import take_turn

pytestmark = pytest.mark.slow  # a launcher, bot processes killed and restarted

ROOT = Path(__file__).resolve().parents[2]
SEED = "cluster-16"
SHARDS = 8
LAYOUT = {"north": 1, "east": 3, "south": 4, "west": 6}  # guild -> shard: 0-3 and 4-7


class Club:
    """A guild on a given shard with #lama, ana and ben."""

    def __init__(self, fake: FakeDiscord, name: str, shard: int) -> None:
        self.guild: Guild = fake.add_guild(name, shard=(shard, SHARDS))
        assert shard_of(self.guild.id, SHARDS) == shard
        self.process = 0 if shard < SHARDS // 2 else 1
        self.channel: TextChannel = self.guild.add_text_channel("lama")
        self.ana: Member = self.guild.add_member("ana")
        self.ben: Member = self.guild.add_member("ben")
        self.members = {m.id: m for m in (self.ana, self.ben)}
        self.turns = 0
        self.go = asyncio.Event()
        self.go.set()
        self.idle = asyncio.Event()

    async def start_game(self) -> None:
        # one round: the kill falls in it (after three turns of every game) and the game
        # ends with it, so every game is played through the kill and the restart
        lobby = await answered(await self.ana.slash(self.channel, "lama start",
                                                    variant="classic", target=1))
        assert lobby is not None
        for member, button in ((self.ben, "Join"), (self.ana, "Add AI"), (self.ana, "Start")):
            reply = await member.click(lobby, button)
            accepted = (4, 6) if button == "Start" else (6, 7)  # (Start: the table, or late)
            assert reply.type in accepted, (button, reply.message)  # accepted, not refused

    async def play(self, fake: FakeDiscord) -> None:
        """Turn after turn until the game ends; between turns, wait while told to pause."""
        await self.start_game()
        while True:
            if not self.go.is_set():
                self.idle.set()
                await self.go.wait()
                self.idle.clear()
            if await take_turn(fake, self.channel, self.members, wait=60) is None:
                return
            self.turns += 1


async def records(db: str) -> dict[int, tuple[dict[str, object], str]]:
    """Every stored game by guild: its record and status."""
    if is_postgres(db):
        import asyncpg

        conn = await asyncpg.connect(db)
        try:
            rows = await conn.fetch("SELECT guild_id, record, status FROM games")
        finally:
            await conn.close()
    else:
        with sqlite3.connect(db) as file:
            rows = file.execute("SELECT guild_id, record, status FROM games").fetchall()
    found: dict[int, tuple[dict[str, object], str]] = {}
    for guild_id, record, status in rows:
        assert guild_id not in found, "one game per guild"
        found[int(guild_id)] = (json.loads(record), status)
    return found


async def uninterrupted_record(tmp_path: Path) -> dict[str, object]:
    """One game with the same seed and clicks, on one process that is never killed."""
    settings = make_settings(tmp_path / "reference", lama_seed=SEED)
    Path(settings.lama_db).parent.mkdir()
    async with FakeDiscord() as fake:
        club = Club(fake, "reference", 0)
        async with fake.run(create_bot(settings)):
            await club.play(fake)
    ((record, status),) = (await records(settings.lama_db)).values()
    assert status == "finished"
    return record


def children(pid: int) -> dict[str, int]:
    """The launcher's bot processes by shard range (Linux /proc)."""
    found: dict[str, int] = {}
    path = Path(f"/proc/{pid}/task/{pid}/children")
    for child in path.read_text().split():
        # a child can go between the list and its read (the killed one: ESRCH, or gone)
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            args = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
            if b"--shard-ids" in args:
                found[args[args.index(b"--shard-ids") + 1].decode()] = int(child)
    return found


@contextlib.asynccontextmanager
async def cluster(fake: FakeDiscord, db: str, log: Path) -> AsyncIterator[forkserver.Process]:
    """``python -m bot.cluster --processes 2 --shard-count 8``; yields once all 8 shards are up
    and the commands synced."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAMA_")}
    env.update(
        PYTHONPATH=str(ROOT), DISCORD_TOKEN=fake.token, LAMA_DB=db, LAMA_SEED=SEED,
        LAMA_AI_DELAY="0", LAMA_DISCORD_URL=f"http://127.0.0.1:{fake.port}",
        LAMA_LOG_LEVEL="WARNING", LAMA_GUILD_READY_TIMEOUT="0.05", LAMA_IDENTIFY_WINDOW="0",
    )
    with log.open("a", encoding="utf-8") as err:
        launcher = await forkserver.start(  # forked (tests/forkserver.py); its bots: started
            "-m", "bot.cluster", "--processes", "2", "--shard-count", str(SHARDS),
            "--backoff", "0.1", cwd=log.parent, env=env, stderr=err, stdout=forkserver.DEVNULL)
    try:
        await fake.notifier.wait_for(
            lambda: True if len(fake.gateway.shards()) == SHARDS and fake.command_syncs
            else None, 60, "8 shards and a command sync")
        yield launcher
    finally:
        if launcher.returncode is None:
            for pid in children(launcher.pid).values():
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            launcher.kill()
        await launcher.wait()


async def test_two_processes_one_killed_mid_round_every_game_as_if_never_killed(
    tmp_path: Path, pg_url: str
) -> None:
    expected = await uninterrupted_record(tmp_path)
    log = tmp_path / "cluster.log"
    async with FakeDiscord(shards=SHARDS, max_concurrency=SHARDS,
                           interaction_timeout=KILLED_CLICK) as fake:
        clubs = [Club(fake, name, shard) for name, shard in LAYOUT.items()]
        async with cluster(fake, pg_url, log) as launcher:
            assert fake.command_syncs == 1, "exactly one process syncs the commands"
            before = children(launcher.pid)
            assert set(before) == {"0-3", "4-7"}
            games = [asyncio.create_task(c.play(fake)) for c in clubs]
            doomed = [c for c in clubs if c.process == 1]
            await fake.notifier.wait_for(
                lambda: True if all(c.turns >= 3 for c in clubs) else None, 60,
                "three turns in every game")
            for club in doomed:  # hold the second process's players between two turns
                club.go.clear()
            await asyncio.wait_for(asyncio.gather(*(c.idle.wait() for c in doomed)), 30)
            identifies = fake.gateway.identifies
            held = {c.guild.id: c.turns for c in doomed}
            assert not any(is_final(m) for c in doomed for m in c.channel.messages)
            os.kill(before["4-7"], signal.SIGKILL)  # mid-round: the games are under way
            after = await fake.notifier.wait_for(
                lambda: c if (c := children(launcher.pid)).get("4-7") not in (
                    None, before["4-7"]) else None, 30, "the launcher to restart the process")
            assert after["0-3"] == before["0-3"], "the other process went on"
            await fake.notifier.wait_for(
                lambda: True if fake.gateway.identifies >= identifies + SHARDS // 2 and len(
                    fake.gateway.shards()) == SHARDS else None, 30, "its 4 shards to be back")
            for club in doomed:
                club.go.set()
            await asyncio.wait_for(asyncio.gather(*games), 120)
            assert all(c.turns > held[c.guild.id] for c in doomed), "played on after the kill"
            launcher.send_signal(signal.SIGTERM)  # stops both processes cleanly
            assert await asyncio.wait_for(launcher.wait(), 30) == 0, log.read_text()
        assert fake.command_syncs == 1, "the restarted process did not sync again"
        fake.failures[:] = [f for f in fake.failures if "no answer" not in f.reason]
        assert not fake.failures, fake.failures
    found = await records(pg_url)
    assert set(found) == {c.guild.id for c in clubs}
    for club in clubs:
        record, status = found[club.guild.id]
        assert status == "finished" and record == expected, (club.guild.name, log.read_text())
    store = make_store(pg_url)
    await store.open()
    try:
        for club in clubs:  # the leaderboard counts each game once
            board = await store.standings(club.guild.id, "classic")
            assert sorted((s.name, s.games) for s in board) == [("ana", 1), ("ben", 1)]
    finally:
        await store.close()
