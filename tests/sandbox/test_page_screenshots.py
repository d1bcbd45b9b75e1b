"""Every kind of message the bot posts, as the sandbox's page draws it, in English and Persian,
at a phone's width (400 px) and a wide page: the lobby, the table, a hand of each rule set,
the round summary, the final standings, the leaderboard and /lama stats.

Each is a picture of the message alone (``sandbox-<kind>-<lang>-<width>.png``), in
``$LAMA_SCREENSHOTS`` (the docs': ``LAMA_SCREENSHOTS=docs/screenshots``), else the test's
temporary folder; the test checks each message is there, drawn, with its pictures loaded.
One whole game is played here, in Persian: the English lobby, table, classic hand, round
summary, standings and leaderboard are pictured during tests/sandbox/test_page.py's game.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from bot.words.i18n import translator
from tests.bot.helpers import screenshots
from tests.sandbox.conftest import WIDTHS, Sandbox, shoot, stopped_cleanly
from tests.sandbox.test_page import FINAL, TABLE, last, play_as, slash, take_turn

pytestmark = pytest.mark.slow  # a real browser, a sandbox process and whole games

WAIT_MS = 20_000
LOBBY = 'article:has(button[data-custom-id$=":join"])'


def lobby_with_ben_and_an_ai(page: Page, variant: str) -> Locator:
    play_as(page, "ana")
    count = page.locator(LOBBY).count()
    slash(page, f"/lama start variant:{variant} target:1")
    expect(page.locator(LOBBY)).to_have_count(count + 1, timeout=WAIT_MS)
    lobby = last(page, LOBBY)
    play_as(page, "ben")
    lobby.locator('button[data-custom-id$=":join"]').click()
    expect(lobby).to_contain_text("ben", timeout=WAIT_MS)
    play_as(page, "ana")
    lobby.locator('button[data-custom-id$=":ai"]').click()
    expect(lobby.locator('button[data-custom-id$=":ai"]')).to_be_enabled()
    return lobby


def turn(page: Page, tables: int, finals: int, before: str) -> str | None:
    """The member to act once a table newer than the first `tables` changed from `before`;
    None once the game's standings (more than `finals`) are posted."""
    page.wait_for_function(
        """([table, final, tables, finals, before]) => {
            if (document.querySelectorAll(final).length > finals) return true;
            const t = document.querySelectorAll(table);
            if (t.length <= tables) return false;
            const last = t[t.length - 1];
            if (last.dataset.id + last.innerText === before) return false;
            return document.querySelector('.member.turn') !== null;
        }""",
        arg=[TABLE, FINAL, tables, finals, before], timeout=WAIT_MS,
    )
    if page.locator(FINAL).count() > finals:
        return None
    return page.locator(".member.turn").first.get_attribute("data-name")


def now(page: Page) -> str:
    table = last(page, TABLE)
    return (table.get_attribute("data-id") or "") + table.inner_text()


def play_to_the_end(page: Page, tables: int, finals: int, before: str) -> None:
    """On from the table `before` a move: each human's turn until the standings."""
    for _ in range(200):
        name = turn(page, tables, finals, before)
        if name is None:
            return
        play_as(page, name)
        hand = open_hand(page)
        before = now(page)
        take_turn(page, hand)
    raise AssertionError("the game did not end")


def open_hand(page: Page) -> Locator:
    count = page.locator("article.ephemeral").count()
    last(page, TABLE).locator('button[data-custom-id^="lama:v2:hand:"]').click()
    expect(page.locator("article.ephemeral")).to_have_count(count + 1, timeout=WAIT_MS)
    return page.locator("article.ephemeral").last


def start(page: Page, lobby: Locator) -> tuple[int, int, Locator]:
    """The game started from `lobby`; the tables and standings before it, the first hand."""
    tables, finals = page.locator(TABLE).count(), page.locator(FINAL).count()
    lobby.locator('button[data-custom-id$=":start"]').click()
    name = turn(page, tables, finals, "")
    assert name is not None
    play_as(page, name)
    return tables, finals, open_hand(page)


def test_every_message_kind_in_english_and_persian_at_two_widths(
    sandbox: Sandbox, browser: Browser, tmp_path: Path
) -> None:
    folder = screenshots(tmp_path)
    page = browser.new_page(viewport={"width": WIDTHS["wide"], "height": 900}, locale="en-US")
    page.set_default_timeout(WAIT_MS)
    page.goto(sandbox.url)
    expect(page.locator(".member")).to_have_count(3)
    for lang in ("fa", "en"):
        # (English: the lobby, table, classic hand, summary, standings and leaderboard come
        # from test_page.py's whole game; here the rest, and everything in Persian)
        tr = translator(lang)
        play_as(page, "ana")
        page.locator("#language").select_option(lang)
        expect(page.locator("html")).to_have_attribute("lang", lang)
        if lang == "fa":
            lobby = lobby_with_ben_and_an_ai(page, "classic")
            shoot(page, lobby, folder, "lobby", lang)
            tables, finals, hand = start(page, lobby)
            shoot(page, last(page, TABLE), folder, "table", lang)
            shoot(page, hand, folder, "hand-classic", lang)
            before = now(page)
            take_turn(page, hand)
            play_to_the_end(page, tables, finals, before)
            summary = page.locator("article").filter(has_text=tr("Round {n} is over", n=1))
            shoot(page, summary.last, folder, "round-summary", lang)
            shoot(page, last(page, FINAL), folder, "standings", lang)
            play_as(page, "cleo")
            slash(page, "/lama leaderboard")
            shoot(page, last(page, 'article:has-text("/lama leaderboard")'), folder, "ladder",
                  lang)

        for variant in ("dice", "kadabra"):
            *_, hand = start(page, lobby_with_ben_and_an_ai(page, variant))
            shoot(page, hand, folder, f"hand-{variant}", lang)
            play_as(page, "ana")
            slash(page, "/lama stop")

        play_as(page, "ana")  # (her Persian game ended: her stats have a game and a chart)
        slash(page, "/lama stats")
        shoot(page, last(page, 'article:has-text("/lama stats")'), folder, "stats", lang)

    taken = sorted(p.name for p in folder.glob("sandbox-*-fa-*.png"))
    assert len(taken) == 9 * 2, taken
    stopped_cleanly(sandbox, tmp_path)
