"""The page draws what Discord draws: Components V2 cards, timestamps, the turn badge, scrolling,
dismissed ephemerals, its own words in each language and right-to-left text.

The messages are Discord's documented V2 JSON (tests/sandbox/v2_samples.py) put through
bot/sandbox/layout.py as world.py would, then handed to the page's own ``receive``; the page's
clock is Playwright's (``page.clock``), so a countdown is stepped, never waited for.
Screenshots of the samples (``v2-*.png``) go where tests/bot/helpers.py says.
"""

from __future__ import annotations

import datetime
import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from playwright.sync_api import Browser, Page, Route, expect

from bot.pictures.compose import hand_picture
from game.cards import PLAIN_VALUES
from tests.bot.helpers import screenshots
from tests.sandbox import v2_samples as v2
from tests.sandbox.conftest import Sandbox, stopped_cleanly

pytestmark = pytest.mark.slow  # a real browser and a sandbox process

WAIT_MS = 20_000
NOW = 1_800_000_000  # 2027-01-15 08:00:00 UTC, the page's clock
HAND_PNG = hand_picture(PLAIN_VALUES)


def tall_png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (300, 900), (90, 120, 200)).save(out, "PNG")
    return out.getvalue()


def open_page(browser: Browser, sandbox: Sandbox, width: int, pictures: dict[str, bytes]
              ) -> Page:
    context = browser.new_context(viewport={"width": width, "height": 860}, locale="en-US",
                                  timezone_id="UTC")
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)

    def serve(route: Route) -> None:  # the bot's uploads, as the sandbox would serve them
        name = route.request.url.rsplit("/", 1)[1]
        route.fulfill(status=200, content_type="image/png", body=pictures.get(name, HAND_PNG))

    page.route("**/attachments/*", serve)
    page.clock.install(time=at(NOW - 30))
    page.goto(sandbox.url)
    expect(page.locator(".member")).to_have_count(3)
    page.clock.pause_at(at(NOW))  # from here the page's time moves only when stepped
    return page


def at(seconds: int) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC)


def receive(page: Page, message: dict[str, Any]) -> None:
    page.evaluate("(message) => receive({type: 'message', message})", message)


def members(page: Page) -> dict[str, str]:
    return {m["name"]: m["id"] for m in page.evaluate("state.members")}


def switch_language(page: Page, code: str, play_as: str) -> None:
    page.locator("#language").select_option(code)
    expect(page.locator("html")).to_have_attribute("lang", code)
    page.locator(f'.member[data-name="{play_as}"]').click()


def test_v2_cards_timestamps_the_turn_badge_and_dismissing(
    sandbox: Sandbox, browser: Browser, tmp_path: Path
) -> None:
    shots = screenshots(tmp_path)
    page = open_page(browser, sandbox, 1200, {"1": tall_png()})
    ids = members(page)

    # A table whose turn marker is on ana, after an old ping of ben: the badge is ana's.
    receive(page, {**v2.page_message(9000, [v2.text(f"<@{ids['ben']}>, it is your turn.")])})
    receive(page, v2.page_message(9001, v2.table("en", "ana", ("ben", "cleo"), NOW + 10)))
    expect(page.locator(".member.turn")).to_have_attribute("data-name", "ana")
    expect(page.locator(".member.turn .badge")).to_have_text("to play")

    table = page.locator('article[data-id="9001"]')
    expect(table.locator(".head .tag")).to_have_text("APP")  # Discord's tag by the bot's name
    container = table.locator(".v2-container")
    expect(container).to_have_count(1)
    assert container.evaluate("c => getComputedStyle(c, '::before').backgroundColor") == (
        "rgb(240, 178, 50)")  # the accent colour, as a bar on the card's left
    expect(container.locator(".h3")).to_have_text("L.A.M.A.: round 2")
    # the picture inside the card, the buttons under it, in the tree's order
    assert container.evaluate("""c => [...c.children].map(x => x.className).join(' ')""") == (
        "v2-text v2-gallery v2-separator spacing-1 divider row")
    expect(container.locator('button[data-custom-id="lama:v2:hand:g1"]')).to_have_text(
        "🃏 My hand")

    # <t:…:R> counts down on the page's clock; the picture loaded and the page stayed at
    # the end (the tall picture came after the first draw)
    when = table.locator('time.timestamp[data-style="R"]')
    expect(when).to_have_text("in 10 seconds")
    page.clock.run_for(3000)
    expect(when).to_have_text("in 7 seconds")
    page.clock.run_for(20_000)
    expect(when).to_have_text("13 seconds ago")
    page.wait_for_function("document.querySelector('article[data-id=\"9001\"] img').complete")
    at_end = "(b => b.scrollHeight - b.scrollTop - b.clientHeight < 2)"
    assert page.locator("#messages").evaluate(at_end)

    # a newer table moves the badge; the final standings (Rematch) end it
    receive(page, v2.page_message(9002, v2.table("en", "ben", ("ana", "cleo"), NOW + 60)))
    expect(page.locator(".member.turn")).to_have_attribute("data-name", "ben")
    receive(page, v2.page_message(9003, [v2.card(
        v2.text("### Final standings\n🥇 **ben** · 12 points"),
        v2.row(v2.button("Rematch", "lama:v2:rematch:g1", 3)))]))
    expect(page.locator(".member.turn")).to_have_count(0)

    # every kind of component, and every timestamp style in the member's language
    receive(page, v2.page_message(9004, v2.kitchen_sink(NOW)))
    sink = page.locator('article[data-id="9004"]')
    expect(sink.locator(".v2 > .v2-text")).to_have_text("A line above the card, with a bold word")
    expect(sink.locator(".v2-section img.v2-thumbnail")).to_have_attribute("src", "/attachments/2")
    expect(sink.locator('.v2-section .v2-accessory button')).to_have_text("Beside")
    expect(sink.locator(".v2-gallery img")).to_have_count(2)
    expect(sink.locator(".v2-file a")).to_have_text("record.json")
    expect(sink.locator(".v2-container .row select option")).to_have_count(3)
    assert sink.locator('img[src="/attachments/6"]').count() == 0  # not referenced: not shown
    stamp = {s: sink.locator(f'time.timestamp[data-style="{s}"]') for s in "tTdDfFR"}
    expect(stamp["t"]).to_have_text("8:00 AM")
    expect(stamp["T"]).to_have_text("8:00:00 AM")
    expect(stamp["d"]).to_have_text("01/15/2027")
    expect(stamp["D"]).to_have_text("January 15, 2027")
    expect(stamp["f"]).to_contain_text("January 15, 2027")
    expect(stamp["F"]).to_contain_text("Friday, January 15, 2027")
    expect(stamp["R"]).to_have_text("23 seconds ago")
    expect(sink.locator(".v2-text").nth(1)).to_have_attribute("dir", "ltr")
    page.set_viewport_size({"width": 1200, "height": 1400})  # the whole card in view
    sink.screenshot(path=str(shots / "v2-samples-wide.png"))
    page.set_viewport_size({"width": 1200, "height": 860})

    # an ephemeral is dismissed for good, as Discord's "Dismiss message"
    receive(page, v2.page_message(9005, [v2.card(v2.text("Only for ana"))], to=ids["ana"]))
    page.locator('.member[data-name="ana"]').click()
    ephemeral = page.locator('article[data-id="9005"]')
    expect(ephemeral.locator(".only-you")).to_have_text("👁 Only you can see this")
    ephemeral.locator(".dismiss").click()
    expect(ephemeral).to_have_count(0)
    page.locator('.member[data-name="ben"]').click()
    page.locator('.member[data-name="ana"]').click()
    receive(page, v2.page_message(9006, [v2.text("later")]))
    expect(page.locator('article[data-id="9006"]')).to_have_count(1)
    expect(ephemeral).to_have_count(0)

    # French: the page's own words, the dates, the Automatic choice of the language menu
    switch_language(page, "fr", "ana")
    expect(page.locator('#language option[value="auto"]')).to_have_text(
        "Automatique (par joueur)")
    expect(stamp["D"]).to_have_text("15 janvier 2027")
    expect(stamp["F"]).to_contain_text("vendredi 15 janvier 2027")
    expect(stamp["R"]).to_have_text("il y a 23 secondes")
    receive(page, v2.page_message(9007, [v2.text("x")], to=ids["ana"]))
    expect(page.locator('article[data-id="9007"] .dismiss')).to_have_text("Ignorer le message")
    expect(page.locator('article[data-id="9007"] .head .tag')).to_have_text("APPLI")

    # Persian: Persian dates and digits; the messages keep Discord's left-to-right layout
    # (buttons in their order, the accent bar on the left), each paragraph its own direction
    # and a code span isolated inside it
    switch_language(page, "fa", "ana")
    expect(page.locator("html")).to_have_attribute("dir", "rtl")
    receive(page, v2.page_message(9008, v2.table("fa", "ana", ("ben",), NOW + 3600, "g2")))
    fa_table = page.locator('article[data-id="9008"]')
    expect(fa_table.locator(".v2-container")).to_have_count(1)
    expect(fa_table.locator(".head .tag")).to_have_text("برنامه")
    d = stamp["D"].inner_text()
    assert any("۰" <= ch <= "۹" for ch in d) and not any(ch.isascii() and ch.isdigit()
                                                        for ch in d), d
    expect(fa_table.locator('time.timestamp[data-style="R"]')).to_contain_text("ساعت")
    code = fa_table.locator("code").first
    expect(code).to_have_text("/lama hand")
    assert code.evaluate("c => [c.dir, getComputedStyle(c).unicodeBidi]") == ["auto", "isolate"]
    # the card's text reads right to left though its title and names are Latin
    expect(fa_table.locator(".v2-text")).to_have_attribute("dir", "rtl")
    assert fa_table.locator(".v2-text .line").first.evaluate(
        "l => getComputedStyle(l).direction") == "rtl"
    hand, rules = fa_table.locator(".row button").all()
    assert hand.bounding_box()["x"] < rules.bounding_box()["x"]  # type: ignore[index]
    expect(page.locator(".member.turn")).to_have_attribute("data-name", "ana")
    page.screenshot(path=str(shots / "v2-samples-wide-fa.png"))
    page.set_viewport_size({"width": 400, "height": 860})
    page.screenshot(path=str(shots / "v2-samples-phone-fa.png"))
    expect(page.locator("#side")).to_be_hidden()  # the members fold away at phone width,
    expect(page.locator("#topbar-me")).to_have_text("Aanaنوبت")  # who one plays as stays
    page.locator("#side-toggle").click()
    expect(page.locator(".member.turn .badge")).to_have_text("نوبت")
    page.screenshot(path=str(shots / "v2-samples-phone-fa-members.png"))
    stopped_cleanly(sandbox, tmp_path)
