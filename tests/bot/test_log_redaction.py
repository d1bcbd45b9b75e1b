"""``python -m bot`` at DEBUG through the fake Discord: discord.py logs whole gateway events and
webhook URLs, yet no interaction's token (nor the bot's) reaches the log; the ids do."""

from __future__ import annotations

import json
import logging
import signal
from pathlib import Path

import pytest

from bot.process.redact import HIDDEN, Redact
from fakediscord import FakeDiscord
from tests import forkserver
from tests.bot.helpers import answered
from tests.bot.test_main import bot_env
from tests.bot.test_restart import take_turn

TURNS = 4


@pytest.mark.slow  # runs python -m bot and plays part of a game
@pytest.mark.parametrize("log_format", ["text", "json"])
async def test_no_token_in_a_debug_log(tmp_path: Path, log_format: str) -> None:
    log = tmp_path / "bot.log"
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Lama Club")
        channel = guild.add_text_channel("lama")
        ana, ben = guild.add_member("ana"), guild.add_member("ben")
        env = bot_env(tmp_path, DISCORD_TOKEN=fake.token, LAMA_LOG_LEVEL="DEBUG",
                      LAMA_DISCORD_URL=f"http://127.0.0.1:{fake.port}", LAMA_AI_DELAY="0",
                      LAMA_SEED="redact", LAMA_GUILD_READY_TIMEOUT="0.05",
                      LAMA_IDENTIFY_WINDOW="0", LAMA_CARD_EMOJIS="0",
                      LAMA_LOG_FORMAT=log_format)
        with log.open("wb") as err:
            bot = await forkserver.start("-m", "bot", cwd=tmp_path, env=env,
                                         stdout=forkserver.DEVNULL, stderr=err)
        try:
            await fake.notifier.wait_for(
                lambda: True if fake.gateway.shards() and fake.command_syncs else None, 60,
                "the bot connected, its commands synced")
            lobby = await answered(await ana.slash(channel, "lama start", variant="classic"))
            assert lobby is not None
            for member, button in ((ben, "Join"), (ana, "Add AI"), (ana, "Start")):
                await member.click(lobby, button)
            members = {ana.id: ana, ben.id: ben}
            for _ in range(TURNS):
                assert await take_turn(fake, channel, members) is not None
        finally:
            bot.send_signal(signal.SIGTERM)
            assert await bot.wait() == 0
        assert not fake.failures, fake.failures
    text = log.read_text(encoding="utf-8")
    assert len(fake.tokens) > TURNS
    leaked = [token for token in fake.tokens if token in text]
    assert not leaked, f"{len(leaked)} of {len(fake.tokens)} interaction tokens in the log"
    assert "WebSocket Event" in text and "/callback" in text and "/webhooks/" in text
    assert f"'token': '{HIDDEN}'" in text  # the gateway's INTERACTION_CREATE dumps
    assert fake.token not in text
    missing = [i for i in fake.interactions if str(i) not in text]
    assert not missing, "every interaction's id stays in the log"
    if log_format == "json":
        json_lines(text, guild.id, channel.id)


def json_lines(text: str, guild_id: int, channel_id: int) -> None:
    """Every line one JSON object with the fields a shipper reads; lines written while
    answering in the game's channel name its guild, channel and game."""
    entries = [json.loads(line) for line in text.splitlines()]
    assert entries and all({"time", "level", "logger", "message"} <= e.keys() for e in entries)
    about = [e for e in entries if e.get("channel_id") == channel_id]
    assert about, "some lines say which channel they are about"
    assert all(e.get("guild_id") in (None, guild_id) for e in about)
    assert any(e.get("guild_id") == guild_id and e.get("game_id") for e in about)


def test_a_traceback_and_a_bot_token_are_redacted_too() -> None:
    """What a handler writes of an error whose text holds a webhook URL and the bot token."""
    token = "MTA5ODc2NTQzMjEwOTg3NjU0.GabcDE.abcdefghijklmnopqrstuvwxyz0123"
    stream = logging.Handler()
    stream.addFilter(Redact([token]))
    written: list[str] = []
    stream.emit = lambda record: written.append(  # type: ignore[method-assign]
        logging.Formatter().format(record))
    logger = logging.getLogger("tests.redact")
    logger.addHandler(stream)
    logger.propagate = False
    try:
        try:
            raise RuntimeError("POST /webhooks/123/aW50ZXJhY3Rpb24xyz/messages failed")
        except RuntimeError:
            logger.exception("sending with Authorization: Bot %s", token)
        logger.warning("in %s", {"id": "42", "token": "aW50ZXJhY3Rpb24abc"})
    finally:
        logger.removeHandler(stream)
        logger.propagate = True
    out = "\n".join(written)
    assert token not in out and "aW50ZXJhY3Rpb24" not in out
    assert "/webhooks/123/<token>/messages" in out and "'id': '42'" in out


def test_a_json_line_is_redacted_and_keeps_only_its_fields() -> None:
    """The JSON formatter behind :class:`Redact`: the message and traceback cleaned before
    they are encoded, the ids given as ``extra`` kept, any other ``extra`` left out."""
    from bot.process.logs import JsonFormatter

    token = "MTA5ODc2NTQzMjEwOTg3NjU0.GabcDE.abcdefghijklmnopqrstuvwxyz0123"
    stream = logging.Handler()
    stream.addFilter(Redact([token]))
    stream.setFormatter(JsonFormatter())
    written: list[str] = []
    stream.emit = lambda record: written.append(stream.format(record))  # type: ignore[method-assign]
    logger = logging.getLogger("tests.redact.json")
    logger.addHandler(stream)
    logger.propagate = False
    try:
        try:
            raise RuntimeError("POST /interactions/9/aW50ZXJhY3Rpb24xyz/callback failed")
        except RuntimeError:
            logger.exception("with Bot %s", token, extra={
                "guild_id": 1, "channel_id": 2, "game_id": "g", "secret": "aW50ZXJhY3Rpb24"})
    finally:
        logger.removeHandler(stream)
        logger.propagate = True
    assert len(written) == 1 and "\n" not in written[0]
    entry = json.loads(written[0])
    assert token not in written[0] and "aW50ZXJhY3Rpb24" not in written[0]
    assert entry["message"] == f"with Bot {HIDDEN}"
    assert "/interactions/9/<token>/callback" in entry["exception"]
    assert (entry["guild_id"], entry["channel_id"], entry["game_id"]) == (1, 2, "g")
    assert entry["level"] == "ERROR" and entry["logger"] == "tests.redact.json"
    assert entry["time"].endswith("Z") and "secret" not in entry
