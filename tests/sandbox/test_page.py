"""The sandbox's page in a real headless Chromium: a whole game played by clicking in it.

Screenshots of the lobby, a hand and the end go to ``$LAMA_SCREENSHOTS`` (the README's and the
docs' come from ``LAMA_SCREENSHOTS=docs/screenshots``), else to the test's temporary folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.bot.helpers import screenshots
from tests.sandbox.conftest import Sandbox, shoot, stopped_cleanly

pytestmark = pytest.mark.slow  # a real browser, and a sandbox process per test

WAIT_MS = 20_000
TABLE = 'article:has(button[data-custom-id^="lama:v2:hand:"])'
FINAL = 'article:has(button[data-custom-id^="lama:v2:rematch:"])'
ACTIONS = 'button[data-custom-id^="lama:v2:act:"]:enabled'


def play_as(page: Page, name: str) -> None:
    page.locator(f'.member[data-name="{name}"]').click()
    expect(page.locator(f'.member.current[data-name="{name}"]')).to_be_visible()


def slash(page: Page, text: str) -> None:
    box = page.locator("#slash")
    box.fill(text)
    box.press("Enter")
    expect(box).to_have_value("", timeout=WAIT_MS)


def last(page: Page, selector: str) -> Locator:
    return page.locator(selector).last


def hand_of(page: Page) -> Locator:
    """The newest hand this member sees (an ephemeral with action buttons or a hand)."""
    return last(page, "article.ephemeral:has(.row)")


def state(page: Page) -> str:
    """What changes whenever the game moves: the table's id and text, or the standings."""
    return page.evaluate(
        """([table, final]) => {
            const f = document.querySelectorAll(final);
            if (f.length) return 'final';
            const t = document.querySelectorAll(table);
            const last = t[t.length - 1];
            return last ? last.dataset.id + last.innerText : '';
        }""",
        [TABLE, FINAL],
    )


def wait_for_a_human_turn(page: Page, before: str) -> str | None:
    """The name of the member to act once the game moved on from `before`; None at the end."""
    page.wait_for_function(
        """([table, final, before]) => {
            if (document.querySelector(final)) return true;
            const t = document.querySelectorAll(table);
            const last = t[t.length - 1];
            if (!last || last.dataset.id + last.innerText === before) return false;
            return document.querySelector('.member.turn') !== null;
        }""",
        arg=[TABLE, FINAL, before], timeout=WAIT_MS,
    )
    if page.locator(FINAL).count():
        return None
    return page.locator(".member.turn").first.get_attribute("data-name")


def open_hand(page: Page) -> Locator:
    count = page.locator("article.ephemeral").count()
    last(page, TABLE).locator('button[data-custom-id^="lama:v2:hand:"]').click()
    expect(page.locator("article.ephemeral")).to_have_count(count + 1, timeout=WAIT_MS)
    hand = page.locator("article.ephemeral").last
    expect(hand.locator(".only-you")).to_have_text("👁 Only you can see this")
    expect(hand.locator(".dismiss")).to_have_text("Dismiss message")
    return hand


def take_turn(page: Page, hand: Locator) -> None:
    """Quit the round when allowed (short games), else the first action; until none is left."""
    while hand.locator(ACTIONS).count():
        buttons = hand.locator(ACTIONS)
        quit_button = hand.locator(f'{ACTIONS}[data-custom-id$=":quit"]')
        chosen = quit_button.first if quit_button.count() else buttons.first
        text_before = hand.inner_text()
        chosen.click()
        page.wait_for_function(
            "([id, before]) => { const h = document.querySelector(`article[data-id='${id}']`);"
            " return h && h.innerText !== before; }",
            arg=[hand.get_attribute("data-id"), text_before], timeout=WAIT_MS,
        )


def test_a_game_with_two_members_and_an_ai_played_in_the_page(
    sandbox: Sandbox, browser: Browser, tmp_path: Path
) -> None:
    shots = screenshots(tmp_path)
    page = browser.new_page(viewport={"width": 1200, "height": 860})
    page.set_default_timeout(WAIT_MS)
    page.goto(sandbox.url)
    expect(page.locator(".member")).to_have_count(3)

    play_as(page, "ana")
    page.locator("#slash").fill("/lama st")
    expect(page.locator("#suggestions li").first).to_contain_text("/lama start")
    page.locator("#slash").fill("/lama start variant:cla")
    choice = page.locator("#suggestions li")
    expect(choice).to_have_count(1)
    expect(choice).to_have_text("classic")  # named once, not "classic classic"
    slash(page, "/lama start variant:classic target:1")
    lobby = last(page, 'article:has(button[data-custom-id$=":join"])')
    expect(lobby).to_contain_text("ana used /lama start")

    play_as(page, "ben")
    lobby.locator('button[data-custom-id$=":join"]').click()
    expect(lobby).to_contain_text("ben", timeout=WAIT_MS)
    play_as(page, "ana")
    lobby.locator('button[data-custom-id$=":ai"]').click()
    expect(lobby.locator('button[data-custom-id$=":ai"]')).to_be_enabled()
    page.screenshot(path=str(shots / "lobby.png"))
    shoot(page, lobby, shots, "lobby", "en")  # (Persian, and the rest: test_page_screenshots)
    lobby.locator('button[data-custom-id$=":start"]').click()

    hands: dict[str, str] = {}
    before = ""
    for _ in range(200):
        name = wait_for_a_human_turn(page, before)
        if name is None:
            break
        play_as(page, name)
        hand = open_hand(page)
        if name not in hands:
            hands[name] = hand.get_attribute("data-id") or ""
            if len(hands) == 1:
                page.screenshot(path=str(shots / "hand.png"))
                shoot(page, last(page, TABLE), shots, "table", "en")
                shoot(page, hand, shots, "hand-classic", "en")
        before = state(page)
        take_turn(page, hand)
    else:
        raise AssertionError("the game did not end")

    assert set(hands) == {"ana", "ben"}, hands
    for name, other in (("ana", "ben"), ("ben", "ana")):
        play_as(page, name)
        expect(page.locator(f'article[data-id="{hands[name]}"]')).to_have_count(1)
        expect(page.locator(f'article[data-id="{hands[other]}"]')).to_have_count(0)

    final = last(page, FINAL)
    expect(final).to_contain_text("ana")
    expect(final).to_contain_text("ben")
    shoot(page, final, shots, "standings", "en")
    shoot(page, last(page, 'article:has-text("Round 1 is over")'), shots, "round-summary", "en")
    play_as(page, "cleo")  # cleo did not play: she sees the public standings, no hand
    expect(page.locator("article.ephemeral")).to_have_count(0)
    expect(final).to_be_visible()
    slash(page, "/lama leaderboard")
    board = last(page, 'article:has-text("cleo used /lama leaderboard")')
    expect(board).to_contain_text("ana")
    expect(board).to_contain_text("ben")
    shoot(page, board, shots, "ladder", "en")
    page.set_viewport_size({"width": 1200, "height": 860})
    page.screenshot(path=str(shots / "end.png"))
    for shot in ("lobby.png", "hand.png", "end.png"):
        assert (shots / shot).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    stopped_cleanly(sandbox, tmp_path)


HOSTILE = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script> **bold** <@0>'


def test_the_page_escapes_messages_adds_members_and_switches_language(
    sandbox: Sandbox, browser: Browser, tmp_path: Path
) -> None:
    page = browser.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(sandbox.url)
    expect(page.locator(".member")).to_have_count(3)
    # Whatever a message holds is drawn as text: no element, no script from it.
    page.evaluate(
        """(content) => receive({type: 'message', message: {id: '1', to: null, author: '<b>x',
            bot: false, time: '2026-01-01T00:00:00+00:00', edited: false, deleted: false,
            loading: false, used: null, content, embeds: [{title: '<i>t</i>', description:
            content, color: 1, author: null, footer: '<u>f</u>', fields: [{name: '<a>',
            value: content, inline: true}], image: null, thumbnail: null}], attachments: [],
            rows: [[{kind: 'select', custom_id: 'pick', placeholder: '<p>', disabled: false,
                     options: [{label: content, value: 'v', description: null}]}]]}})""",
        HOSTILE,
    )
    hostile = page.locator('article[data-id="1"]')
    expect(hostile).to_contain_text('<img src=x onerror="window.pwned=1">')
    assert hostile.locator("img, script, b, i, u, a").count() == 0
    assert hostile.locator("strong").count() == 3  # the markdown subset, built as elements
    assert page.evaluate("window.pwned") is None
    # a V2 message's every text (a text display, a file's name, a picture's alt text, a
    # button, a menu) is drawn as text too, and a picture only from the sandbox's own files
    page.evaluate(
        """(text) => receive({type: 'message', message: {id: '2', to: null, author: 'x',
            bot: true, time: '2026-01-01T00:00:00+00:00', edited: false, deleted: false,
            loading: false, used: null, content: null, embeds: [], attachments: [], rows: [],
            v2: true, layout: [{t: 17, accent: 1, spoiler: false, children: [
              {t: 10, text}, {t: 13, name: text, file: null, url: null, spoiler: false},
              {t: 12, items: [{url: null, name: null, file: null, description: text,
                               spoiler: false}]},
              {t: 1, items: [{kind: 'button', label: text, emoji: null, custom_id: 'b',
                              style: 1, link: false, disabled: false}]}]}]}})""",
        HOSTILE,
    )
    card = page.locator('article[data-id="2"] .v2-container')
    expect(card.locator(".v2-text")).to_contain_text('<img src=x onerror="window.pwned=1">')
    assert card.locator("img, script, b, i, u, a").count() == 0
    expect(card.locator("button")).to_contain_text("<script>")
    assert page.evaluate("window.pwned") is None
    hostile.locator("select").select_option("v")  # sent as ana's pick, for a message the
    expect(page.locator("#error")).to_have_text("That message is gone.")  # fake never had

    page.locator("#new-member").fill("dan")
    page.locator("#new-member").press("Enter")
    expect(page.locator('.member.current[data-name="dan"]')).to_be_visible()
    page.locator("#new-member").fill("dan")
    page.locator("#new-member").press("Enter")
    expect(page.locator("#error")).to_contain_text("already a member called dan")

    page.locator("#language").select_option("fr")
    expect(page.locator("#language")).to_have_value("fr")
    expect(page.locator('[data-t="play_as"]')).to_have_text("Jouer en tant que")  # the page too
    play_as(page, "ana")  # the admin: the switch ran /lama config language as her
    expect(page.locator("article.ephemeral").last).to_contain_text(
        "Désormais, langue du bot sur ce serveur\u202f: Français.")
    play_as(page, "dan")
    expect(page.locator("article.ephemeral")).to_have_count(0)
    slash(page, "/lama start")
    expect(last(page, 'article:has(button[data-custom-id$=":join"])')).to_contain_text(
        "Rejoindre")
    stopped_cleanly(sandbox, tmp_path)


def test_a_members_direct_messages_are_shown_to_them_only(
    sandbox: Sandbox, browser: Browser, tmp_path: Path
) -> None:
    """ana and ben turn DMs on and play a relaxed game (it moves to its thread): the player
    whose turn comes first finds the bot's DM under Direct messages, the other none; cleo,
    who never turned them on, sees how to."""
    page = browser.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(sandbox.url)
    expect(page.locator(".member")).to_have_count(3)
    for name in ("ana", "ben"):
        play_as(page, name)
        slash(page, "/lama notify dm:on")
        expect(last(page, "article.ephemeral")).to_contain_text("Direct messages on")
    play_as(page, "ana")
    slash(page, "/lama start pace:relaxed")
    lobby = last(page, 'article:has(button[data-custom-id$=":join"])')
    play_as(page, "ben")
    lobby.locator('button[data-custom-id$=":join"]').click()
    expect(lobby).to_contain_text("ben")
    play_as(page, "ana")
    lobby.locator('button[data-custom-id$=":start"]').click()
    expect(page.locator(".thread-link")).to_have_count(1)  # the game's thread
    page.locator("#dm-link").click()
    expect(page.locator("#topbar-channel")).to_have_text("Direct messages")
    expect(page.locator(".member.turn")).to_have_count(1)  # (whoever plays first)
    first = page.locator(".member.turn").get_attribute("data-name")
    assert first in ("ana", "ben")
    other = "ben" if first == "ana" else "ana"
    play_as(page, first)
    expect(page.locator("#messages article")).to_have_count(1)
    expect(page.locator("#messages article")).to_contain_text("It is your turn")
    expect(page.locator("#dm-count")).to_have_text("1")
    play_as(page, other)
    expect(page.locator("#messages article")).to_have_count(0)
    expect(page.locator("#dm-count")).to_be_hidden()
    play_as(page, "cleo")
    expect(page.locator(".no-dms")).to_contain_text("/lama notify")
    page.locator(".thread-link").click()  # back to the game: its table
    expect(page.locator(TABLE)).to_have_count(1)
    stopped_cleanly(sandbox, tmp_path)
