"""Fixtures: settings on a temporary SQLite file, a fake Discord with a guild and players."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot import Settings, create_bot
from bot.common.clock import ManualClock
from bot.process.client import LamaBot
from bot.store.sqlite import SqliteStore
from fakediscord import MANAGE_MESSAGES, FakeDiscord, Guild, Member, TextChannel
from tests import pg


def make_settings(tmp_path: Path, **overrides: object) -> Settings:
    values: dict[str, object] = {
        "discord_token": "unused",
        "lama_db": str(tmp_path / "lama.db"),
        "lama_ai_delay": 0,
        "lama_seed": "7",
        "lama_guild_ready_timeout": 0.05,
        "lama_card_emojis": False,  # tests read cards as emoji text; test_card_emojis turns it on
        "lama_identify_window": 0,  # the fake allows every IDENTIFY at once
    }
    values.update(overrides)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


@dataclass
class World:
    fake: FakeDiscord
    bot: LamaBot
    guild: Guild
    table: TextChannel
    ana: Member
    ben: Member
    cleo: Member
    mod: Member
    clock: ManualClock

    @property
    def members(self) -> dict[int, Member]:
        return {m.id: m for m in (self.ana, self.ben, self.cleo, self.mod)}


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """A PostgreSQL server's admin URL (tests/pg.py); the test fails, never skips, without."""
    try:
        with pg.server() as url:
            yield url
    except pg.NoServer as exc:
        pytest.fail(str(exc))


@pytest.fixture
async def pg_url(pg_server: str) -> AsyncIterator[str]:
    """A fresh, empty database on the test server, dropped after the test."""
    try:
        url = await pg.create_database(pg_server)
    except pg.NoServer as exc:
        pytest.fail(str(exc))
    try:
        yield url
    finally:
        await pg.drop_database(pg_server, url)


@pytest.fixture(params=["sqlite", "postgresql"])
async def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """``LAMA_DB`` for each backend: a test using it runs against SQLite and PostgreSQL."""
    if request.param == "sqlite":
        yield str(tmp_path / "lama.db")
        return
    server = request.getfixturevalue("pg_server")
    try:
        url = await pg.create_database(server)
    except pg.NoServer as exc:
        pytest.fail(str(exc))
    try:
        yield url
    finally:
        await pg.drop_database(server, url)


@pytest.fixture(scope="session")
def empty_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An empty store at the current schema, made once per worker by the bot's own code
    (``SqliteStore.open`` on a new file: the migrations, WAL), then closed."""
    path = tmp_path_factory.mktemp("empty-store") / "lama.db"

    async def make() -> None:
        store = SqliteStore(str(path))
        await store.open()
        await store.close()

    asyncio.run(make())
    return path


@pytest.fixture
def settings(tmp_path: Path, empty_store: Path) -> Settings:
    """A copy of :func:`empty_store` for each test: a new file's migrations and their syncs
    were a third of a small test's start (a new file is tested by tests/bot/test_store.py,
    tests/bot/test_migrations.py and every test that makes its own settings)."""
    shutil.copyfile(empty_store, tmp_path / "lama.db")
    return make_settings(tmp_path)


def transcript_dir(request: pytest.FixtureRequest) -> Path | None:
    """``LAMA_TRANSCRIPTS=DIR`` writes each test's traffic and an HTML page under DIR/<test>."""
    root = os.environ.get("LAMA_TRANSCRIPTS")
    if not root:
        return None
    return Path(root) / re.sub(r"[^\w.-]+", "_", request.node.name)


def pacing_of(request: pytest.FixtureRequest) -> float | None:
    """``@pytest.mark.pacing(scale)``: Discord's rate limits on, ``scale`` times faster."""
    marker = request.node.get_closest_marker("pacing")
    return float(marker.args[0]) if marker is not None else None


@pytest.fixture
async def world(settings: Settings, request: pytest.FixtureRequest) -> AsyncIterator[World]:
    """The bot runs on a manual clock nobody advances: its timers (a ping once a turn has
    waited 10 s, a turn's default action after 120 s) fire only where a test says, never
    because a busy machine made a turn last that long in real time (a ping is a channel
    message: tests/bot/test_traffic_games.py counts them). A ping due at once (a hand that
    cannot follow the game, whom the round's table post did not notify) still goes out."""
    pacing = pacing_of(request)
    async with FakeDiscord(transcript_dir=transcript_dir(request), pacing=pacing) as fake:
        guild = fake.add_guild("Lama Club")
        table = guild.add_text_channel("lama")
        ana = guild.add_member("ana")
        ben = guild.add_member("ben")
        cleo = guild.add_member("cleo", locale="fr")
        mod = guild.add_member("mo", permissions=MANAGE_MESSAGES)
        clock = ManualClock()
        bot = create_bot(settings, clock=clock)
        async with fake.run(bot):
            yield World(fake, bot, guild, table, ana, ben, cleo, mod, clock)
        if fake.pacing is not None:  # printed at the end by tests/conftest.py
            request.node.user_properties.append(
                ("pacing", {**fake.pacing.summary(), "lint": len(fake.lint)})
            )
        assert not fake.failures, fake.failures
        assert not fake.refusals, fake.refusals
        assert not fake.lint, fake.lint  # what Discord would silently ignore is our bug
