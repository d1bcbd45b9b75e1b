"""A whole game as the channel shows it, from the fake Discord's HTML transcript in a real
headless Chromium: to be looked at (does the channel read clearly from lobby to end?).

The picture goes to ``$LAMA_SCREENSHOTS`` (docs/play.md's: ``LAMA_SCREENSHOTS=docs/screenshots``),
else to the test's temporary folder. The test checks what the picture shows: one live
message per round's table (older ones deleted), pings folded into lines without mentions,
the finished table without buttons, the standings last.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from fakediscord.transcript import render_html
from tests.bot.conftest import World
from tests.bot.helpers import WAIT, current, play_out, screenshots
from tests.sandbox.conftest import CHROMIUM, CHROMIUM_ARGS, require_chromium

pytestmark = pytest.mark.slow  # a whole game and a real browser

HIDE = ("<style>table.log, .msg.deleted, h2:nth-of-type(n+2), h3:nth-of-type(n+2), "
        "h3:nth-of-type(n+2) ~ .msg { display:none }</style></head>")
"""The channel only: no log, no deleted tables, nobody's ephemeral hands."""


def shoot_channel(page_path: Path, target: Path) -> int:
    """The whole channel as one picture; its height in pixels."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 760, "height": 900})
            page.goto(page_path.as_uri())
            page.screenshot(path=str(target), full_page=True)
            return int(page.evaluate("document.body.scrollHeight"))
        finally:
            browser.close()


async def test_a_whole_game_reads_clearly_in_the_channel(world: World, tmp_path: Path) -> None:
    require_chromium()
    folder = screenshots(tmp_path)
    world.fake.keep_files = True
    lobby = (await world.ana.slash(world.table, "lama start", variant="classic",
                                   target=12)).message
    assert lobby is not None
    await world.ben.click(lobby, "Join")
    await world.cleo.click(lobby, "Join")
    await world.ana.click(lobby, "Add AI")
    await world.ana.click(lobby, "Start")
    turn = await world.fake.notifier.wait_for(
        lambda: t if (t := current(world.table)) is not None and t.table is not None else None,
        WAIT, "the first table")
    hands = {m.id: (await m.click(turn.table, "My hand")).message
             for m in (world.ana, world.ben, world.cleo)}
    final = await play_out(world.fake, world.table, world.members, keep_open=True,
                           hands=hands)  # type: ignore[arg-type]
    shown = [m for m in world.table.messages if not m.deleted]
    assert shown[-1] is final, "the standings come last"
    assert not any("<@" in m.content and "it is your turn." in m.content and not m.embeds
                   for m in shown), "every ping was folded once its turn was over"
    assert any(m.text.startswith("🏁") and not m.buttons for m in shown)
    page = tmp_path / "transcript.html"
    page.write_text(render_html(world.fake).replace("</head>", HIDE, 1), encoding="utf-8")
    target = folder / "transcript-game.png"
    height = await asyncio.to_thread(shoot_channel, page, target)
    assert target.read_bytes().startswith(b"\x89PNG") and height > 900
