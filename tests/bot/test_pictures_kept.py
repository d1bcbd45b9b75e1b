"""A hand's picture is uploaded once per picture: an edit that shows the same picture keeps
the message's file (no render, no upload), and a waiting hand never draws another
player's roll as its own."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from fakediscord import Member, Message
from tests.bot.conftest import World
from tests.bot.helpers import WAIT, action_buttons, card, settled
from tests.bot.test_pictures import picture, started


def hand_file(message: Message) -> dict[str, Any]:
    """The message's one picture, which its card shows."""
    [attachment] = message.attachments
    assert attachment["filename"].startswith("hand-")
    assert card(message).image == f"attachment://{attachment['filename']}"
    return attachment


def seated(world: World) -> tuple[Member, Member]:
    """(the player to act, the other one)."""
    session = world.bot.sessions.get(world.table.id)
    assert session is not None
    seat = session.view(None).to_act
    assert seat is not None
    players = (world.ana, world.ben)
    return players[seat], players[1 - seat]


async def test_quit_and_back_keep_the_hand_picture_without_uploading(world: World) -> None:
    world.fake.keep_files = True
    table = await started(world, "classic")
    mover, _ = seated(world)
    hand = (await mover.click(table, "My hand")).message
    assert hand is not None
    shown = hand_file(hand)
    uploads = len(world.fake.files)
    quit_ask = next(c for c in action_buttons(hand) if c.startswith("lama:v2:ask:"))
    asked = await settled(await mover.click(hand, quit_ask))
    assert any(b.label == "Yes, quit" for b in asked.buttons)
    assert hand_file(asked) == shown, "the question shows the same hand: its picture stays"
    back = await settled(await mover.click(asked, "Back"))
    assert action_buttons(back) and hand_file(back) == shown
    assert len(world.fake.files) == uploads, "no file was uploaded again"


async def test_a_waiting_dice_hand_keeps_its_picture_while_another_player_rolls(
    world: World,
) -> None:
    world.fake.keep_files = True
    table = await started(world, "dice")
    mover, waiter = seated(world)
    waiting = (await waiter.click(table, "My hand")).message
    assert waiting is not None and not action_buttons(waiting)
    shown = hand_file(waiting)
    before = picture(world, waiting, "hand-*.png").tobytes()
    edits, uploads = waiting.edits, len(world.fake.files)
    hand = (await mover.click(table, "My hand")).message
    assert hand is not None
    roll = next(c for c in action_buttons(hand) if c.endswith(":roll"))
    rolled = await settled(await mover.click(hand, roll))
    assert action_buttons(rolled), "the roller chooses what to keep"
    await world.fake.notifier.wait_for(lambda: True if waiting.edits > edits else None, WAIT,
                                       "the waiting hand to follow the roll")
    assert hand_file(waiting) == shown, "the waiting hand keeps its file: the roll is not its"
    assert picture(world, waiting, "hand-*.png").tobytes() == before
    assert hand_file(rolled) != shown
    assert len(world.fake.files) == uploads + 2, "the roller's two pictures, none for the waiting"


async def test_asks_for_the_same_picture_while_it_is_drawn_share_one_render() -> None:
    from bot.pictures import compose
    from cogs.pictures import _recent, rendered

    spec = ("hand", ("1", "2", "L"), ("2",), ("white",))
    compose._hand_png.cache_clear()
    _recent.pop(spec, None)
    first, second = await asyncio.gather(rendered(spec), rendered(spec))
    assert first is second and first.startswith(b"\x89PNG")
    assert await rendered(spec) is first, "drawn lately: no trip to a thread, no render"
    assert compose._hand_png.cache_info()[:2] == (0, 1), "one render, no other ask"


def test_the_pictures_description_reads_the_faces_as_plain_text() -> None:
    """The hand's text names cards by the app's emojis; the picture's description (what a
    screen reader reads) names them in plain text, in one pass over the text."""
    from cogs.cards import FACES
    from cogs.uploads import alt_text

    saved = dict(FACES)
    FACES.clear()
    FACES.update({"3": "<:lama_3:101>", "L": "<:lama_L:102>"})
    try:
        text = "Your hand: <:lama_3:101> <:lama_L:102> <:lama_3:101> <:other:7> <@5>"
        assert alt_text(text) == "Your hand: 🟡3 🦙 🟡3 <:other:7> <@5>"
        assert alt_text("no faces") == "no faces"
    finally:
        FACES.clear()
        FACES.update(saved)


async def test_hands_and_charts_are_drawn_off_the_loop_charts_on_their_own_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With more than one core: a hand in a worker thread, a chart on the charts' own
    thread (its styled figure is per thread), never on the event loop's."""
    import threading

    import cogs.charts as charts
    import cogs.pictures as pictures

    monkeypatch.setattr(pictures, "ON_LOOP", False)

    where: dict[str, str] = {}

    def render(spec: Any) -> bytes:
        where["hand"] = threading.current_thread().name
        return b"\x89PNG"

    def chart(*args: Any) -> bytes:
        where["chart"] = threading.current_thread().name
        return b"\x89PNG"

    monkeypatch.setattr(pictures, "render", render)
    spec = ("hand", ("4", "5"), None, ())
    pictures._recent.pop(spec, None)
    assert await pictures.rendered(spec) == b"\x89PNG"
    assert await charts.drawn_chart(chart, [[1]], None, ()) == b"\x89PNG"
    pictures._recent.pop(spec, None)
    assert where["hand"] != threading.main_thread().name
    assert where["chart"].startswith("lama-charts")


async def test_a_move_starts_the_next_players_picture_before_its_answer_goes_out(
    world: World, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The picture the next player's open hand will show is started as the move is decided
    (cogs.pictures.predraw), so the edit that follows the answer finds it drawn; the
    mover's own waiting hand (which its answer shows in text) is not drawn."""
    import cogs.pictures as pictures
    import cogs.table as table_cog
    from cogs.pictures import hand_spec

    table = await started(world, "classic")
    mover, waiter = seated(world)
    waiting = (await waiter.click(table, "My hand")).message
    hand = (await mover.click(table, "My hand")).message
    assert waiting is not None and hand is not None and not action_buttons(waiting)
    session = world.bot.sessions.get(world.table.id)
    assert session is not None
    steps: list[Any] = []
    renders: list[Any] = []
    drawing, answer, render = pictures._drawing, table_cog.update_message, pictures.render

    def drawn(spec: Any) -> Any:
        steps.append(spec)
        return drawing(spec)

    async def answered(interaction: Any, **kwargs: Any) -> bool:
        steps.append("answer")
        return await answer(interaction, **kwargs)

    def rendering(spec: Any) -> bytes:
        renders.append(spec)
        return render(spec)

    monkeypatch.setattr(pictures, "_drawing", drawn)
    monkeypatch.setattr(pictures, "render", rendering)
    monkeypatch.setattr(table_cog, "update_message", answered)
    pictures._recent.clear()
    edits = waiting.edits
    play = next(c for c in action_buttons(hand) if c.endswith(":draw") or ":play:" in c)
    await settled(await mover.click(hand, play))
    await world.fake.notifier.wait_for(lambda: True if action_buttons(waiting) else None, WAIT,
                                       "the waiting hand to offer its moves")
    assert waiting.edits > edits
    next_turn = hand_spec(session.view(1 - session.seats.index(next(
        s for s in session.seats if s.user_id == mover.id))))
    assert steps.index(next_turn) < steps.index("answer"), steps
    assert renders == [next_turn], "drawn once, the followed hand's edit sharing it, and "
    "nothing else (the mover's waiting hand is shown in text)"
    hand_file(waiting)
    assert waiting.attachments[0]["filename"] == pictures.file_name(("en", next_turn))


async def test_a_moves_pictures_are_looked_for_once(
    world: World, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The move's answer starts the pictures the move will show; its publish, for the same
    state, does not look through the channel's hands again. The followed hand still shows
    its new picture. What is remembered for it is bounded (the newest channels)."""
    from types import SimpleNamespace

    import cogs.table as table_cog

    table = await started(world, "classic")
    mover, waiter = seated(world)
    waiting = (await waiter.click(table, "My hand")).message
    hand = (await mover.click(table, "My hand")).message
    assert waiting is not None and hand is not None
    shown = hand_file(waiting)
    cog = world.bot.get_cog("Table")
    asked: list[Any] = []
    to_draw = cog.hands.to_draw

    def counted(session: Any, mover: Any = None) -> Any:
        asked.append(mover)
        return to_draw(session, mover)

    monkeypatch.setattr(cog.hands, "to_draw", counted)
    play = next(c for c in action_buttons(hand) if c.endswith(":draw") or ":play:" in c)
    await settled(await mover.click(hand, play))
    await world.fake.notifier.wait_for(lambda: True if action_buttons(waiting) else None, WAIT,
                                       "the waiting hand to offer its moves")
    session = world.bot.sessions.get(world.table.id)
    assert session is not None
    assert asked == [session.seats.index(next(s for s in session.seats
                                              if s.user_id == mover.id))], asked
    assert hand_file(waiting) != shown, "the followed hand shows its turn's picture"
    for channel in range(table_cog.PREDRAWN_KEPT + 10):
        cog.predraw(SimpleNamespace(game_id="g", version=1, channel_id=channel, game=None))
    assert len(cog._predrawn) == table_cog.PREDRAWN_KEPT
    assert table_cog.PREDRAWN_KEPT + 9 in cog._predrawn and 0 not in cog._predrawn


def test_an_uploaded_picture_is_freed_without_the_cycle_collector() -> None:
    """discord.File puts its buffer's own ``close`` back once sent; the buffer must not hold
    itself then (a cycle per picture, freed only by full collections)."""
    import gc
    import weakref

    from cogs.uploads import picture_file

    gc.disable()
    try:
        upload = picture_file(b"\x89PNG" + bytes(4000), "hand-0.png", "a hand")
        buffer = weakref.ref(upload.fp)
        upload.reset()
        assert upload.fp.read(4) == b"\x89PNG"
        upload.close()  # (as discord.py does once the request is done)
        assert not upload.fp.closed and "close" not in vars(upload.fp)
        del upload
        assert buffer() is None, "freed as soon as nothing refers to it"
    finally:
        gc.enable()


async def test_clicks_on_followed_hands_leave_no_cycles_for_the_collector(world: World) -> None:
    """Each click's interaction refers to its answer and back (discord.py); once a newer
    click is answered, its interaction is let go of (cogs.discord_compat.let_go)
    and freed without waiting for a full collection, with its message and components."""
    import gc

    import discord

    table = await started(world, "classic")
    players = {m.id: m for m in (world.ana, world.ben)}
    hands = {m.id: (await m.click(table, "My hand")).message for m in players.values()}
    session = world.bot.sessions.get(world.table.id)
    assert session is not None
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for _ in range(4):  # each player's click replaces their followed hand's interaction
            user = session.user_to_act()
            assert user is not None
            hand = hands[user]
            assert hand is not None
            await world.fake.notifier.wait_for(lambda h=hand: True if action_buttons(h) else None,
                                               WAIT, "the hand to offer its moves")
            play = next(c for c in action_buttons(hand) if c.endswith(":draw") or ":play:" in c)
            hands[user] = await settled(await players[user].click(hand, play))
        gc.collect()
        left = [o for o in gc.garbage if isinstance(o, discord.Interaction)]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert left == [], f"{len(left)} interactions freed only by the cycle collector"
