"""The pictures of the README and docs/play.md, taken from a whole game: the fake Discord's
HTML transcript (which shows uploaded images) opened in a real headless Chromium; a table, a
hand and the end.

They go to ``$LAMA_SCREENSHOTS`` (the docs': ``LAMA_SCREENSHOTS=docs/screenshots``), else
to the test's temporary folder.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from fakediscord.transcript import render_html
from tests.bot.conftest import World
from tests.bot.helpers import play_out, screenshots
from tests.sandbox.conftest import CHROMIUM, CHROMIUM_ARGS, require_chromium

pytestmark = pytest.mark.slow  # a whole game and a real browser


def shoot(page_path: Path, shots: dict[str, int], folder: Path) -> dict[str, int]:
    """Each message ``#m<id>`` as ``folder/<name>``; the width its first image loaded at."""
    loaded: dict[str, int] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 900, "height": 900})
            page.goto(page_path.as_uri())
            for name, message_id in shots.items():
                box = page.locator(f"#m{message_id}")
                images = box.locator(".attachment img")
                loaded[name] = (images.first.evaluate("i => i.naturalWidth")
                                if images.count() else 0)
                box.screenshot(path=str(folder / name))
        finally:
            browser.close()
    return loaded


async def test_screenshots_of_a_game_with_pictures(world: World, tmp_path: Path) -> None:
    require_chromium()
    folder = screenshots(tmp_path)
    world.fake.keep_files = True
    lobby = (await world.ana.slash(world.table, "lama start", variant="classic",
                                   target=12)).message
    assert lobby is not None
    await world.ben.click(lobby, "Join")
    await world.ana.click(lobby, "Add AI")
    await world.ana.click(lobby, "Start")
    table = await world.table.wait_for_message(lambda m: "Top card" in m.text)
    hands = []
    for member in (world.ana, world.ben):
        hand = (await member.click(table, "My hand")).message
        assert hand is not None
        hands.append(hand)
    hand = next((h for h in hands if h.attachments), None)
    assert hand is not None
    final = await play_out(world.fake, world.table, world.members)
    table = next(m for m in reversed(world.table.messages)  # the last table, as it ended
                 if "Top card" in m.text and not m.deleted)
    page = tmp_path / "transcript.html"
    page.write_text(render_html(world.fake), encoding="utf-8")
    shots = {"pictures-table.png": table.id, "pictures-hand.png": hand.id,
             "pictures-end.png": final.id}
    loaded = await asyncio.to_thread(shoot, page, shots, folder)
    assert loaded["pictures-hand.png"] > 0 and loaded["pictures-end.png"] == 512
    for name in shots:
        assert (folder / name).read_bytes().startswith(b"\x89PNG")
