"""Pictures through the fake Discord: the hand's image (only in its owner's ephemeral),
the final standings' chart, the images setting, and text alone without Attach Files."""

from __future__ import annotations

import io
from fnmatch import fnmatch

import pytest
from PIL import Image

from bot.pictures.faces import CARD_H, CARD_W, DIE
from cogs.pictures import hand_png
from fakediscord import ATTACH_FILES, MANAGE_GUILD, Message
from tests.bot.conftest import World
from tests.bot.helpers import action_buttons, answered, card, first_table, play_out, settled

PNG = b"\x89PNG\r\n\x1a\n"


def picture(world: World, message: Message, name: str) -> Image.Image:
    """The message's picture, ``name`` (``hand-*.png``: any hand picture), shown by its
    card, as an image (the standings also carry the game's record, ``lama-<game>.json``)."""
    pictures = [a for a in message.attachments if not a["filename"].endswith(".json")]
    assert [fnmatch(a["filename"], name) for a in pictures] == [True], pictures
    name = pictures[0]["filename"]
    assert card(message).image == f"attachment://{name}"
    data = world.fake.files[int(pictures[0]["id"])]
    assert data.startswith(PNG)
    return Image.open(io.BytesIO(data))


def public_attachments(world: World) -> list[Message]:
    return [m for m in world.table.messages if m.attachments]


async def started(world: World, variant: str, **options: int) -> Message:
    """ana and ben at a started table; the table message."""
    lobby = await answered(await world.ana.slash(world.table, "lama start", variant=variant,
                                                 **options))
    await world.ben.click(lobby, "Join")
    await world.ana.click(lobby, "Start")
    return await first_table(world.fake, world.table)


@pytest.mark.parametrize(("variant", "face"), [
    ("classic", (CARD_W, CARD_H)), ("kadabra", (CARD_W, CARD_H)),
    ("tutorial", (CARD_W, CARD_H)), ("dice", (DIE, DIE)),
])
async def test_the_hand_is_a_picture_only_its_owner_sees(
    world: World, variant: str, face: tuple[int, int]
) -> None:
    world.fake.keep_files = True
    table = await started(world, variant)
    session = world.bot.sessions.get(world.table.id)
    assert session is not None
    for seat, member in enumerate((world.ana, world.ben)):
        reply = await member.click(table, "My hand")
        hand = reply.message
        assert hand is not None and hand.ephemeral and hand.ephemeral_to is member
        image = picture(world, hand, "hand-*.png")
        expected = hand_png(session.view(seat))
        assert expected is not None
        assert image.size == Image.open(io.BytesIO(expected)).size
        assert image.width >= face[0] and image.height >= face[1]
        assert "Your" in hand.text, "the text stays, as the picture's description"
    assert public_attachments(world) == [], "no hand in a public message"


async def test_the_picture_follows_the_hand_after_a_move(world: World) -> None:
    world.fake.keep_files = True
    table = await started(world, "classic")
    session = world.bot.sessions.get(world.table.id)
    assert session is not None
    seat = session.view(None).to_act
    assert seat is not None
    member = (world.ana, world.ben)[seat]
    hand = (await member.click(table, "My hand")).message
    assert hand is not None
    picture(world, hand, "hand-*.png")
    hand = await settled(await member.click(hand, action_buttons(hand)[0]))
    assert not action_buttons(hand), "not this player's turn any more"
    assert hand.attachments == [] and card(hand).image is None, (
        "a hand waiting for others is text until its turn (no stale picture)")
    assert "Your hand" in hand.text


async def test_a_turn_of_several_steps_keeps_its_picture(world: World) -> None:
    world.fake.keep_files = True
    table = await started(world, "dice")
    session = world.bot.sessions.get(world.table.id)
    assert session is not None
    seat = session.view(None).to_act
    assert seat is not None
    member = (world.ana, world.ben)[seat]
    hand = (await member.click(table, "My hand")).message
    assert hand is not None
    roll = next(c for c in action_buttons(hand) if c.endswith(":roll"))
    hand = await settled(await member.click(hand, roll))
    assert action_buttons(hand), "after the roll the same player chooses"
    after = picture(world, hand, "hand-*.png")
    expected = hand_png(session.view(seat))
    assert expected is not None
    assert after.tobytes() == Image.open(io.BytesIO(expected)).tobytes(), "the roll is drawn"


async def test_images_off_means_text_only(world: World) -> None:
    boss = world.guild.add_member("boss", permissions=MANAGE_GUILD)
    refused = await world.ana.slash(world.table, "lama config images", images="off")
    assert refused.message is not None and "Manage Server" in refused.message.text
    done = await boss.slash(world.table, "lama config images", images="off")
    assert done.message is not None and "off" in done.message.text
    shown = await world.ana.slash(world.table, "lama config images")
    assert shown.message is not None and "Pictures are off" in shown.message.text
    table = await started(world, "classic")
    hand = (await world.ana.click(table, "My hand")).message
    assert hand is not None and hand.attachments == []
    assert card(hand).image is None and "Your hand" in hand.text
    await boss.slash(world.table, "lama config images", images="on")
    again = (await world.ana.click(table, "My hand")).message
    assert again is not None and len(again.attachments) == 1


async def test_final_standings_carry_the_totals_chart(world: World) -> None:
    world.fake.keep_files = True
    lobby = await answered(await world.ana.slash(world.table, "lama start", variant="tutorial",
                                                 rounds=2))
    await world.ana.click(lobby, "Add AI")
    await world.ana.click(lobby, "Start")
    final = await play_out(world.fake, world.table, world.members)
    chart = picture(world, final, "totals.png")
    assert chart.size == (512, 288)  # 6.4 × 3.6 inches at 80 dpi
    (legend,) = card(final).fields  # the chart's legend; no "Winners" field repeats the 🏆
    assert legend.name == "Totals after each round"
    assert legend.value.startswith("🟥 ana") and "🟦 AI 1" in legend.value
    assert legend.value.endswith("\nAcross: the rounds; up: each player's total points.")
    (alt,) = [a["description"] for a in final.attachments if a["filename"] == "totals.png"]
    assert alt == (
        "A line chart of every player's total points (up) after each round (across).")
    assert [m.id for m in public_attachments(world)] == [final.id], "only the chart is public"


async def test_without_attach_files_the_bot_plays_in_text(world: World) -> None:
    await world.table.set_permissions(world.guild.me, deny=ATTACH_FILES)
    lobby = await answered(await world.ana.slash(world.table, "lama start", variant="tutorial",
                                                 rounds=1))
    await world.ana.click(lobby, "Add AI")
    await world.ana.click(lobby, "Start")
    table = await first_table(world.fake, world.table)
    hand = (await world.ana.click(table, "My hand")).message
    assert hand is not None and hand.attachments == [] and "Your hand" in hand.text
    final = await play_out(world.fake, world.table, world.members)
    assert final.attachments == [] and card(final).image is None
    assert "final standings" in final.text and not card(final).fields
    assert not world.fake.refusals, "the bot never tried an upload Discord refuses"


async def test_the_transcript_shows_the_pictures(world: World) -> None:
    from fakediscord.transcript import render_html

    world.fake.keep_files = True
    table = await started(world, "classic")
    hand = (await world.ana.click(table, "My hand")).message
    assert hand is not None and hand.attachments
    page = render_html(world.fake)
    assert page.count("<img src='data:image/png;base64,") == 1
    assert "Only ana can see these" in page
    world.fake.keep_files = False
    world.fake.files.clear()
    assert "📎 hand-" in render_html(world.fake), "without the bytes: the file's name"
