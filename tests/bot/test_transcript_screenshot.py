"""The pictures of the README and docs/play.md, taken from one whole game: the fake Discord's
HTML transcript (which shows uploaded images) opened in a real headless Chromium.

- ``transcript-game.png``: the whole channel, to be looked at (does it read clearly from lobby
  to end?). The test checks what it shows: one live message per round's table (older ones
  deleted), pings folded into lines without mentions, the finished table without buttons, the
  standings last.
- ``pictures-table.png``, ``pictures-hand.png``, ``pictures-end.png``: the last table, a hand
  with its picture and the standings with their chart, each message alone.

They go to ``$LAMA_SCREENSHOTS`` (the docs': ``LAMA_SCREENSHOTS=docs/screenshots``), else to
the test's temporary folder. (One game and one browser for both: each was a whole game and a
Chromium of its own.)
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

NO_LOG = "<style>table.log { display:none }</style></head>"
"""The messages only (the REST log under them is in no picture)."""
HIDE = ("<style>table.log, .msg.deleted, h2:nth-of-type(n+2), h3:nth-of-type(n+2), "
        "h3:nth-of-type(n+2) ~ .msg { display:none }</style></head>")
"""The channel only: no log, no deleted tables, nobody's ephemeral hands."""


def shoot(messages: Path, channel: Path, shots: dict[str, int], folder: Path
          ) -> tuple[dict[str, int], int]:
    """Each message ``#m<id>`` of ``messages`` as ``folder/<name>``, with the width its first
    image loaded at; then the whole of ``channel`` as one picture, with its height in pixels."""
    loaded: dict[str, int] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 900, "height": 900})
            page.goto(messages.as_uri())
            for name, message_id in shots.items():
                box = page.locator(f"#m{message_id}")
                images = box.locator(".attachment img")
                loaded[name] = (images.first.evaluate("i => i.naturalWidth")
                                if images.count() else 0)
                box.screenshot(path=str(folder / name))
            page.set_viewport_size({"width": 760, "height": 900})
            page.goto(channel.as_uri())
            page.screenshot(path=str(folder / "transcript-game.png"), full_page=True)
            return loaded, int(page.evaluate("document.body.scrollHeight"))
        finally:
            browser.close()


async def test_a_whole_game_reads_clearly_in_the_channel_and_its_pictures(
    world: World, tmp_path: Path
) -> None:
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
    firsts = [(await m.click(turn.table, "My hand")).message for m in (world.ana, world.ben)]
    hand = next((h for h in firsts if h is not None and h.attachments), None)
    assert hand is not None, "a hand opened with its picture"  # (kept as it was drawn: the
    # hands the players keep open below take its place, and a kept hand ends without one)
    hands = {m.id: (await m.click(turn.table, "My hand")).message
             for m in (world.ana, world.ben, world.cleo)}
    final = await play_out(world.fake, world.table, world.members, keep_open=True,
                           hands=hands)  # type: ignore[arg-type]
    shown = [m for m in world.table.messages if not m.deleted]
    assert shown[-1] is final, "the standings come last"
    assert not any("<@" in m.content and "it is your turn." in m.content and not m.embeds
                   for m in shown), "every ping was folded once its turn was over"
    assert any(m.text.startswith("🏁") and not m.buttons for m in shown)
    table = next(m for m in reversed(world.table.messages)  # the last table, as it ended
                 if "Top card" in m.text and not m.deleted)
    html = render_html(world.fake)
    messages, channel = tmp_path / "messages.html", tmp_path / "transcript.html"
    messages.write_text(html.replace("</head>", NO_LOG, 1), encoding="utf-8")
    channel.write_text(html.replace("</head>", HIDE, 1), encoding="utf-8")
    shots = {"pictures-table.png": table.id, "pictures-hand.png": hand.id,
             "pictures-end.png": final.id}
    loaded, height = await asyncio.to_thread(shoot, messages, channel, shots, folder)
    assert loaded["pictures-hand.png"] > 0 and loaded["pictures-end.png"] == 512
    for name in (*shots, "transcript-game.png"):
        assert (folder / name).read_bytes().startswith(b"\x89PNG")
    assert height > 900
