"""On one core a hand's picture is drawn on the event loop (cogs.pictures.draws_on_loop): at
once when a message needs it, one per turn of the loop when started ahead (predraw), never
before the move that started it has sent its answer."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from tests.bot.conftest import World
from tests.bot.helpers import WAIT, action_buttons, settled
from tests.bot.test_pictures import started
from tests.bot.test_pictures_kept import hand_file, seated


def test_one_core_draws_on_the_loop_more_draw_in_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import cogs.pictures as pictures

    monkeypatch.setattr(pictures, "ON_LOOP", None)
    monkeypatch.setattr(pictures.os, "sched_getaffinity", lambda pid: {3})
    assert pictures.draws_on_loop()
    monkeypatch.setattr(pictures.os, "sched_getaffinity", lambda pid: {0, 1})
    assert not pictures.draws_on_loop()
    monkeypatch.setattr(pictures, "ON_LOOP", True)
    assert pictures.draws_on_loop(), "decided by ON_LOOP when set"


async def test_pictures_started_ahead_are_drawn_one_per_turn_and_at_once_when_needed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import cogs.pictures as pictures

    drawn: list[tuple[Any, str]] = []

    def render(spec: Any) -> bytes:
        drawn.append((spec, threading.current_thread().name))
        return b"\x89PNG" + repr(spec).encode()

    monkeypatch.setattr(pictures, "ON_LOOP", True)
    monkeypatch.setattr(pictures, "render", render)
    specs = [("hand", (str(n), "L"), None, ()) for n in (1, 2, 3)]
    for spec in specs:
        pictures._recent.pop(spec, None)
    futures = [pictures._drawing(spec) for spec in specs]  # (what predraw starts)
    assert drawn == [], "nothing drawn before the caller waits (its answer sent)"
    await asyncio.sleep(0)  # one turn of the loop
    assert [s for s, _ in drawn] == specs[:1], "one picture per turn of the loop"
    assert await pictures.rendered(specs[2]) == b"\x89PNG" + repr(specs[2]).encode()
    assert [s for s, _ in drawn] == [specs[0], specs[2]], "needed: drawn at once, not queued"
    assert futures[2].done() and futures[2].result() == b"\x89PNG" + repr(specs[2]).encode()
    assert await futures[1] == b"\x89PNG" + repr(specs[1]).encode()
    assert [s for s, _ in drawn] == [specs[0], specs[2], specs[1]], "each drawn once"
    assert {name for _, name in drawn} == {threading.main_thread().name}
    assert await pictures.rendered(specs[1]) is futures[1].result(), "kept: not drawn again"
    assert len(drawn) == 3
    for spec in specs:
        pictures._recent.pop(spec, None)


async def test_a_picture_that_cannot_be_drawn_on_the_loop_fails_its_askers_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import cogs.pictures as pictures

    def render(spec: Any) -> bytes:
        raise ValueError("no such face")

    monkeypatch.setattr(pictures, "ON_LOOP", True)
    monkeypatch.setattr(pictures, "render", render)
    spec = ("hand", ("9", "9", "9"), None, ())
    future = pictures._drawing(spec)
    with pytest.raises(ValueError):
        await future
    assert spec not in pictures._rendering and spec not in pictures._queued
    with pytest.raises(ValueError):
        await pictures.rendered(spec)
    assert spec not in pictures._recent


async def test_on_one_core_a_move_answers_before_the_next_players_picture_is_drawn(
    world: World, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The next player's picture is started as the move is decided but drawn on the loop
    only once the mover's answer is on its way; the followed hand's edit shows it, drawn
    once, and the mover's waiting hand (shown in text) is not drawn."""
    import cogs.pictures as pictures
    import cogs.table as table_cog
    from cogs.pictures import hand_spec

    monkeypatch.setattr(pictures, "ON_LOOP", True)
    table = await started(world, "classic")
    mover, waiter = seated(world)
    waiting = (await waiter.click(table, "My hand")).message
    hand = (await mover.click(table, "My hand")).message
    assert waiting is not None and hand is not None and not action_buttons(waiting)
    session = world.bot.sessions.get(world.table.id)
    assert session is not None
    steps: list[Any] = []
    answer, render = table_cog.update_message, pictures.render

    async def answered(interaction: Any, **kwargs: Any) -> bool:
        steps.append("answer")
        return await answer(interaction, **kwargs)

    def rendering(spec: Any) -> bytes:
        steps.append((spec, threading.current_thread().name))
        return render(spec)

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
    assert steps == ["answer", (next_turn, threading.main_thread().name)], steps
    assert hand_file(waiting)["filename"] == pictures.file_name(("en", next_turn))
