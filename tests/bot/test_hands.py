"""Open hands follow the game (cogs/hands.py): one click per move, while the token lives."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot import create_bot
from bot.common.clock import ManualClock
from cogs.hands import TOKEN_TTL
from fakediscord import FakeDiscord, Message
from game.actions import QUIT
from tests.bot.conftest import make_settings
from tests.bot.helpers import WAIT, action_buttons, offers, settled
from tests.bot.test_liveness import Club, members


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[Club]:
    clock = ManualClock()
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Lama Club")
        channel = guild.add_text_channel("lama")
        bot = create_bot(make_settings(tmp_path, lama_ping_delay=3600), clock=clock)
        async with fake.run(bot):
            yield Club(fake, bot, clock, guild, channel, *members(guild))
        assert not fake.failures, fake.failures
        assert not fake.refusals, fake.refusals


async def open_hand(club: Club, member: object) -> Message:
    turn = await club.turn_of(member)  # type: ignore[arg-type]
    assert turn.table is not None
    hand = (await member.click(turn.table, "My hand")).message  # type: ignore[attr-defined]
    assert hand is not None and hand.ephemeral
    return hand


async def test_an_open_hand_offers_the_next_move_until_its_token_is_too_old(club: Club) -> None:
    await club.start_game(turn_timeout=0)
    ana = await open_hand(club, club.ana)
    ana = await settled(await club.ana.click(ana, "Draw"))
    assert not action_buttons(ana), "ben's turn now"
    ben = await open_hand(club, club.ben)
    ben = await settled(await club.ben.click(ben, "Draw"))
    await club.fake.notifier.wait_for(offers(ana), WAIT, "ana's hand to offer her moves")
    assert "Your turn" in ana.text
    ana = await settled(await club.ana.click(ana, "Draw"))  # no My hand: one click per move
    await club.fake.notifier.wait_for(offers(ben), WAIT, "ben's hand to offer his moves")
    club.advance(TOKEN_TTL)  # ana's last click is 14 minutes old: her token is not used
    edits = ana.edits
    ben = await settled(await club.ben.click(ben, "Draw"))
    turn = await club.turn_of(club.ana)
    assert turn.table is not None
    await club.bot.sessions.publish(club.bot.sessions.require(club.channel.id))
    assert ana.edits == edits and not action_buttons(ana), "a token past 14 minutes rests"
    again = await open_hand(club, club.ana)  # the fallback: My hand
    assert action_buttons(again)


async def test_quit_sits_apart_and_asks_first_in_the_same_message(club: Club) -> None:
    await club.start_game(turn_timeout=0)
    session = club.bot.sessions.require(club.channel.id)
    hand = await open_hand(club, club.ana)
    ids = [b.custom_id for b in hand.buttons]
    assert ids[-1].startswith("lama:v2:ask:") and ids[-1].endswith(":quit"), ids
    assert all(":quit" not in i for i in ids[:-1]), "one Quit, after the playing buttons"
    moves = len(session.game.history) if session.game else -1
    asked = await settled(await club.ana.click(hand, "Quit"))
    assert asked is hand and "Quit?" in hand.text, "asked in the same ephemeral"
    assert [b.label for b in hand.buttons] == ["Yes, quit", "Back"]
    assert session.game is not None and len(session.game.history) == moves, "nothing played"
    await settled(await club.ana.click(hand, "Back"))
    assert "Quit?" not in hand.text and any(b.label == "Draw" for b in hand.buttons)
    await settled(await club.ana.click(hand, "Quit"))
    await settled(await club.ana.click(hand, "Yes, quit"))
    assert len(session.game.history) == moves + 1
    assert session.game.history[-1] == (session.require_seat(club.ana.id), QUIT)
