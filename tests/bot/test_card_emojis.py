"""Card faces as application emojis: uploaded once (not per game, not per restart), then
the table shows them; the buttons keep plain text (Discord draws no custom emoji there)."""

from __future__ import annotations

import re
from pathlib import Path

from bot import create_bot
from bot.process.client import LamaBot
from cogs.card_emojis import emoji_name
from cogs.cards import FACES
from fakediscord import FakeDiscord
from game.cards import ALL_CARDS, Card
from tests.bot.conftest import make_settings
from tests.bot.helpers import answered, first_table

FACE = re.compile(r"<:lama_[a-z0-9_]+:\d+>")


async def synced(bot: LamaBot) -> None:
    cog = bot.get_cog("CardEmojis")  # this bot's cog (each bot adds its own)
    task = getattr(cog, "task", None)
    assert task is not None
    await task


def uploads(fake: FakeDiscord) -> list[str]:
    return [e["name"] for e in fake.entries if e.get("kind") == "emoji-created"]


def test_emoji_names_follow_discords_rule() -> None:
    names = [emoji_name(c) for c in ALL_CARDS]
    assert len(set(names)) == len(ALL_CARDS)
    assert all(re.fullmatch(r"[A-Za-z0-9_]{2,32}", n) for n in names)
    assert emoji_name(Card.parse("2/3*")) == "lama_2_3s"


async def test_faces_are_uploaded_once_across_a_restart(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, lama_card_emojis=True)
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Lama Club")
        table = guild.add_text_channel("lama")
        ana, ben = guild.add_member("ana"), guild.add_member("ben")
        bot = create_bot(settings)
        async with fake.run(bot):
            await synced(bot)
            assert sorted(uploads(fake)) == sorted(emoji_name(c) for c in ALL_CARDS)
            lobby = await answered(await ana.slash(table, "lama start"))
            assert lobby is not None
            await ben.click(lobby, "Join")
            await ana.click(lobby, "Start")
            shown = await first_table(fake, table)
            assert FACE.search(shown.text), "the table draws the top card as the app's emoji"
            hand = (await ana.click(shown, "My hand")).message
            assert hand is not None and FACE.search(hand.text)
            alt = hand.attachments[0].get("description", "")
            assert "Your hand" in alt and not FACE.search(alt), "the picture's text is plain"
            assert not any("<:" in (b.label or "") for b in hand.buttons), "labels stay text"
        assert FACES == {}, "a stopped bot leaves no faces behind"
        again = create_bot(settings)
        async with fake.run(again, sync=False):  # same commands: no sync
            await synced(again)
            assert len(FACES) == len(ALL_CARDS)
        assert len(uploads(fake)) == len(ALL_CARDS), "nothing uploaded a second time"
        assert len(fake.emojis) == len(ALL_CARDS)
        assert not fake.failures and not fake.refusals and not fake.lint


TEXT_FACE = re.compile(r"[🔴🟠🟡🟢🔵🟣]\d")


async def test_the_first_table_and_hand_use_one_style_of_face(tmp_path: Path) -> None:
    """A first start uploads the faces; the bot serves only once they are ready, so the first
    table and hand already show them, and no message mixes emoji faces and text faces."""
    settings = make_settings(tmp_path, lama_card_emojis=True)
    async with FakeDiscord() as fake:
        fake.delay("POST", "/applications/*/emojis", 0.1)  # a slow first upload
        guild = fake.add_guild("Lama Club")
        table = guild.add_text_channel("lama")
        ana, ben = guild.add_member("ana"), guild.add_member("ben")
        bot = create_bot(settings)
        async with fake.run(bot):
            lobby = await answered(await ana.slash(table, "lama start"))  # no wait for the uploads
            assert lobby is not None
            await ben.click(lobby, "Join")
            await ana.click(lobby, "Start")
            first = await first_table(fake, table)
            hand = (await ana.click(first, "My hand")).message
            assert hand is not None
            for message in (first, hand):
                assert FACE.search(message.text), message.text
                assert not TEXT_FACE.search(message.text), message.text
        assert not fake.failures and not fake.refusals
