"""A hand that explains itself (issue 29, item 3), through the fake Discord: a forced move is
one click; the playing choices come before Draw and Quit; a legend names the symbols once
per game; the picture's alt text is true of the picture it is on after every edit.

Each game is dealt from a seed (LAMA_SEED: a game's decks and rolls come from it) chosen
for the position the test needs; :func:`test_the_seeds_deal_what_the_tests_need` checks
them against the engine."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from bot import Settings
from fakediscord import Member, Message
from fakediscord.messages import walk_components
from game import ActionType, Game, Phase
from game.actions import DRAW, QUIT, ROLL
from tests.bot.conftest import World, make_settings
from tests.bot.helpers import (
    action_buttons,
    answered,
    click_and_confirm,
    first_table,
    offers,
    play_out,
    settled,
)
from tests.bot.test_pictures import started

FORCED_QUIT = "1"  # classic, ana first: ana draws, ben quits: ana can only quit
ONE_DISCARD = "0"  # dice, ana first: her first roll allows one discard only
GIFT_AND_DRAW = "8"  # kadabra, ana first: a 1 to give (a menu), L to play, Draw, Quit
LEGEND = "ℹ️"


@pytest.fixture
def settings(tmp_path: Path, request: pytest.FixtureRequest) -> Settings:
    return make_settings(tmp_path, **getattr(request, "param", {}))


def seeded(seed: str) -> pytest.MarkDecorator:
    return pytest.mark.parametrize("settings", [{"lama_seed": seed}], indirect=True)


def test_the_seeds_deal_what_the_tests_need() -> None:
    game = Game("classic", ["ana", "ben"], {"target": 40}, seed=FORCED_QUIT)
    assert game.to_act == 0 and DRAW in game.legal_actions()
    game.apply(0, DRAW)
    game.apply(1, QUIT)
    assert game.to_act == 0 and game.legal_actions() == [QUIT]
    game = Game("dice", ["ana", "ben"], {"target": 40}, seed=ONE_DISCARD)
    assert game.to_act == 0
    game.apply(0, ROLL)
    assert game.state.phase is Phase.RESOLVE and len(game.legal_actions()) == 1
    game = Game("kadabra", ["ana", "ben"], {"target": 40}, seed=GIFT_AND_DRAW)
    legal = game.legal_actions()
    assert game.to_act == 0 and DRAW in legal and any(a.give_to is not None for a in legal)


async def history(world: World) -> int:
    session = world.bot.sessions.require(world.table.id)
    assert session.game is not None
    return len(session.game.history)


async def opened(member: Member, table: Message) -> Message:
    hand = (await member.click(table, "My hand")).message
    assert hand is not None and hand.ephemeral
    return hand


@seeded(FORCED_QUIT)
async def test_quit_alone_is_one_click(world: World) -> None:
    table = await started(world, "classic", target=40)
    ana = await opened(world.ana, table)
    await settled(await world.ana.click(ana, "Draw"))
    ben = await opened(world.ben, table)
    await click_and_confirm(world.ben, ben, "Quit")  # ben could draw: Quit asks him
    await world.fake.notifier.wait_for(offers(ana), 5, "ana's turn in her open hand")
    assert [b.label for b in ana.buttons] == ["Quit"], "nothing else is legal"
    said = "Quit is your only move now" in ana.text
    moves = await history(world)
    await settled(await world.ana.click(ana, "Quit"))  # one click: no "Quit?"
    session = world.bot.sessions.require(world.table.id)
    assert session.game is not None and len(session.game.history) == moves + 1
    assert session.game.history[-1] == (0, QUIT)
    assert "Quit?" not in ana.text
    assert said, "the hand said why Quit is the only button"


@seeded(ONE_DISCARD)
async def test_a_roll_with_one_possible_discard_is_one_click(world: World) -> None:
    table = await started(world, "dice", target=40)
    ana = await opened(world.ana, table)
    moves = await history(world)
    roll = next(c for c in action_buttons(ana) if c.endswith(":roll"))
    ana = await settled(await world.ana.click(ana, roll))
    session = world.bot.sessions.require(world.table.id)
    assert session.game is not None and len(session.game.history) == moves + 2
    assert session.game.history[-1][1].type is ActionType.DISCARD, "applied with the roll"
    assert not action_buttons(ana), "ben's turn: nothing left to click"
    assert "ana rolled" in ana.text and "ana discarded" in ana.text, "the hand says what happened"


@seeded(GIFT_AND_DRAW)
async def test_the_playing_choices_come_before_draw_and_quit(world: World) -> None:
    table = await started(world, "kadabra", target=40)
    ana = await opened(world.ana, table)
    rows = [[c.get("custom_id", "") for c in row["components"]]
            for row in walk_components(ana.component_dicts) if row.get("type") == 1]
    kinds = [[cid.split(":")[-1] for cid in row] for row in rows]  # the action, or the menu
    flat = [k for row in kinds for k in row]
    play, gift, draw, quit_ = (flat.index(k) for k in ("play L", "gift", "draw", "quit"))
    assert play < gift < draw < quit_, kinds
    assert kinds[-1] == ["quit"], "Quit on its own row, last"


@seeded(GIFT_AND_DRAW)
async def test_the_legend_explains_each_symbol_once_per_game(world: World) -> None:
    table = await started(world, "kadabra", target=40)
    ana = await opened(world.ana, table)
    legend = next(line for line in ana.text.split("\n") if line.startswith(LEGEND))
    for meaning in ("star card", "plus card", "white chip: 1 point"):
        assert meaning in legend, legend
    assert "Your chips: ⚪3 ⚫0" in ana.text
    ana = await settled(await world.ana.click(ana, "Draw"))
    ben = await opened(world.ben, table)
    assert LEGEND in ben.text, "ben's first sight of the chips"
    await settled(await world.ben.click(ben, "Draw"))
    await world.fake.notifier.wait_for(offers(ana), 5, "ana's turn in her open hand")
    again = await opened(world.ana, table)
    for hand in (ana, again):
        assert "star card" not in hand.text and "white chip: 1 point" not in hand.text, (
            "explained once in this game")


def true_of(hand: Message) -> list[str]:
    """The lines of ``hand``'s picture description that its text does not say now (a
    description may add what the frames mean)."""
    if not hand.attachments:
        return []
    text = set(hand.text.split("\n"))
    alt = hand.attachments[0].get("description", "")
    return [line for line in alt.split("\n") if line not in text and not line.startswith(
        "Framed,")]


async def test_the_alt_text_describes_the_picture_after_every_edit(world: World) -> None:
    """ana and ben keep their hands open (followed) beside an AI: a waiting dice hand keeps
    its picture (the same tiles) while the others roll and move, so its description must
    not keep the state it was first sent in (whose turn, another's roll, the row)."""
    world.fake.keep_files = True
    lobby = await answered(await world.ana.slash(world.table, "lama start", variant="dice",
                                                 target=12))
    assert lobby is not None
    await world.ben.click(lobby, "Join")
    await world.ana.click(lobby, "Add AI")
    await world.ana.click(lobby, "Start")
    table = await first_table(world.fake, world.table)
    hands = {m.id: await opened(m, table) for m in (world.ana, world.ben)}
    wrong: list[tuple[str, list[str]]] = []
    pictured = 0

    def check() -> None:  # at every change the fake sees
        nonlocal pictured
        for hand in hands.values():
            pictured += bool(hand.attachments)
            if untrue := true_of(hand):
                wrong.append((hand.text, untrue))

    watcher = asyncio.create_task(world.fake.notifier.wait_for(check, 3600, "the game's end"))
    try:
        await play_out(world.fake, world.table, world.members, keep_open=True, hands=hands)
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
    check()
    assert pictured > 10
    assert wrong == [], wrong[:3]
