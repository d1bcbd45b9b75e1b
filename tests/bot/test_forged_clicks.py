"""A click whose custom_id is not on the clicked message changes nothing: Discord (the fake)
refuses it; should it ever let one through (``fake.check_components = False``), the bot
refuses it privately, and no public message ever shows a hand (issue 25, item 2)."""

from __future__ import annotations

import pytest

from bot.sessions.state import Status
from fakediscord import Member, Message
from fakediscord.driver import ComponentRefused
from tests.bot.conftest import World
from tests.bot.forge import forged_buttons, forged_click
from tests.bot.helpers import WAIT, answered, card, current, play_out

REFUSAL = "That is not possible right now."


def forged_ids(world: World, game: str, version: int, game_id: str) -> list[str]:
    """Every kind of our custom_ids, drawn for this very game: the dangerous forgeries."""
    return [
        f"lama:v2:act:{game}:{version}:quit", f"lama:v2:act:{game}:{version}:draw",
        f"lama:v2:ask:{game}:{version}:quit", f"lama:v2:pick:{game}:{version}:gift",
        f"lama:v2:hand:{game}", f"lama:v2:lobby:{game}:join", f"lama:v2:lobby:{game}:start",
        f"lama:v2:lobby:{game}:cancel", f"lama:v2:lobby:{game}:ai",
        f"lama:v2:rematch:{game_id}", f"lama:v2:board:{world.guild.id}:classic:0:next",
    ]


def shows_a_hand(message: Message) -> bool:
    """A hand's marks (cogs/render.py hand_message): its title, its cards."""
    return ((card(message).title or "").endswith(", your hand")
            or "Your hand: " in message.text or "Your tiles: " in message.text)


def no_public_hand(world: World) -> None:
    for message in world.table.messages:
        assert not message.ephemeral
        assert not shows_a_hand(message), f"a public message shows a hand: {message!r}"


async def forge_everywhere(world: World, member: Member, messages: list[Message],
                           ids: list[str], check: bool) -> int:
    """Click every id that is not on it on every message; how many were forged."""
    world.fake.check_components = check
    forged = 0
    for message in messages:
        on_it = {b.custom_id for b in message.buttons} | {s.custom_id for s in message.selects}
        for custom_id in ids:
            if custom_id in on_it:
                continue
            forged += 1
            values = ["quit"] if ":pick:" in custom_id else None
            if check:
                with pytest.raises(ComponentRefused) as refused:
                    await forged_click(world.fake, member, message, custom_id, values)
                assert refused.value.error.code == 50035
            else:
                reply = await forged_click(world.fake, member, message, custom_id, values)
                assert reply.type == 4 and reply.ephemeral, (message, custom_id, reply)
                assert reply.message is not None and reply.message.text == REFUSAL
            no_public_hand(world)
    world.fake.check_components = True
    return forged


@pytest.mark.parametrize("check", [True, False], ids=["discord-refuses", "bot-refuses"])
async def test_forged_clicks_on_a_lobby_a_table_and_a_hand_change_nothing(
    world: World, check: bool
) -> None:
    lobby = await answered(await world.ana.slash(world.table, "lama start", target=30))
    assert lobby is not None
    await world.ben.click(lobby, "Join")
    session = world.bot.sessions.get(world.table.id)
    assert session is not None
    game = session.short_id
    ids = forged_ids(world, game, 1, "f" * 32)
    assert await forge_everywhere(world, world.ben, [lobby], ids, check) >= 6
    assert [s.user_id for s in session.seats] == [world.ana.id, world.ben.id]
    assert world.bot.sessions.get(world.table.id) is session
    assert session.status is Status.LOBBY

    await world.ana.click(lobby, "Start")
    turn = await world.fake.notifier.wait_for(
        lambda: t if (t := current(world.table)) and t.user_id == world.ana.id else None,
        WAIT, "ana's turn")
    assert turn.table is not None
    hand = (await world.ana.click(turn.table, "My hand")).message
    assert hand is not None and hand.ephemeral and shows_a_hand(hand)
    version = session.version
    ids = forged_ids(world, game, version, "f" * 32)
    public_before = [(m.id, m.edits) for m in world.table.messages]
    other = (await world.ben.click(turn.table, "My hand")).message
    assert other is not None
    for member, own in ((world.ana, hand), (world.ben, other)):  # to act, and waiting
        await forge_everywhere(world, member, [lobby, turn.table, own], ids, check)
    assert session.version == version, "no forged click moved the game"
    assert not any(s.quit for s in session.view(0).seats), "nobody quit"
    assert [(m.id, m.edits) for m in world.table.messages] == public_before
    # the real buttons still work
    real = await world.ana.click(hand, next(b.custom_id for b in hand.buttons
                                            if b.custom_id.endswith(":draw")))
    assert real.type in (6, 7) and session.version > version


@pytest.mark.parametrize("check", [True, False], ids=["discord-refuses", "bot-refuses"])
async def test_forged_clicks_on_the_standings_change_nothing(
    world: World, check: bool, caplog: pytest.LogCaptureFixture
) -> None:
    lobby = await answered(await world.ana.slash(world.table, "lama start", target=8))
    assert lobby is not None
    session = world.bot.sessions.get(world.table.id)
    assert session is not None
    game, game_id = session.short_id, session.game_id
    await world.ana.click(lobby, "Add AI")
    await world.ana.click(lobby, "Start")
    final = await play_out(world.fake, world.table, world.members)
    table = next(m for m in world.table.messages if m is not lobby and m is not final)
    ids = forged_ids(world, game, 1, game_id)
    count = len(world.table.messages)
    await forge_everywhere(world, world.ana, [final, lobby, table], ids, check)
    assert world.bot.sessions.get(world.table.id) is None, "no lobby was opened"
    assert len(world.table.messages) == count
    # the real Rematch opens a lobby, answered once, by the bot's listener alone: discord.py
    # was never handed our item classes (a live View with one would; cogs/render.Components)
    opened = await world.ana.click(final, "Rematch")
    assert opened.message is not None and not opened.ephemeral
    assert world.bot.sessions.get(world.table.id) is not None
    assert not [r for r in caplog.records if r.name.startswith("discord.ui")], caplog.text


async def test_a_hand_button_on_a_public_message_never_turns_it_into_a_hand(
    world: World,
) -> None:
    """A hand's buttons answer by editing the clicked message into the hand: from a public
    message (one the bot never draws, here forged with the button on it), they are refused
    privately before anything is done."""
    lobby = await answered(await world.ana.slash(world.table, "lama start", target=30))
    assert lobby is not None
    await world.ben.click(lobby, "Join")
    await world.ana.click(lobby, "Start")
    session = world.bot.sessions.get(world.table.id)
    assert session is not None and session.game is not None
    version, game = session.version, session.short_id
    ids = [f"lama:v2:act:{game}:{version}:quit", f"lama:v2:ask:{game}:{version}:quit"]
    public = forged_buttons(world.fake, world.table, ids)
    for custom_id in ids:
        reply = await world.ana.click(public, custom_id)
        assert reply.type == 4 and reply.ephemeral and reply.message.text == REFUSAL
        no_public_hand(world)
    assert session.version == version and not any(s.quit for s in session.view(0).seats)
