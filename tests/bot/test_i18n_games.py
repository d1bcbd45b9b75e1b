"""Whole games in every language, through the fake Discord.

What a player saw is every payload the bot sent (messages, edits, interaction answers;
read from the fake's REST log, so intermediate states count too). The test for "no
English" is a vocabulary closure: every word a player saw must occur in the language's
own catalog (its msgstrs) or be a player's name. English text that slipped past the
catalog (a missing translation, a string never marked, an engine title) brings words
like "the", "draw", "round" that a French or Persian catalog never contains. It does not
depend on knowing which English words to look for, and it also catches strings that are
in no catalog at all.

Every test here also watches the translator (``tests/bot/i18n_checks.py``): no translated
msgid may be put into another sentence as a placeholder value. Persian texts must carry no
Latin digit outside Discord markup; French texts need a narrow no-break space before
``: ; ! ?``.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bot import create_bot
from bot.catalog import read
from bot.words.i18n import FSI, LRI, PDI
from fakediscord import MANAGE_GUILD, FakeDiscord, Member, Message, TextChannel
from tests.bot.conftest import make_settings
from tests.bot.helpers import action_buttons, settled
from tests.bot.i18n_checks import bare_signs, french_spacing, latin_digits, watching

WAIT = 30.0  # a net, never a pause (tests/bot/helpers.py)
MENTION = re.compile(r"<@(\d+)>")
WORD = re.compile(r"[^\W\d_]{2,}")
PLACEHOLDER = re.compile(r"\{[^{}]*\}")
CODE = re.compile(r"`[^`]*`")
"""Inline code (a file path such as `docs/rules.md`) is no word of any language."""
TEXT_KEYS = ("content", "title", "description", "text", "label", "placeholder")
SHORT = {"classic": {"target": 12}, "kadabra": {"target": 12}, "dice": {"target": 12},
         "tutorial": {"rounds": 1}}


@dataclass
class Lang:
    fake: FakeDiscord
    table: TextChannel
    ana: Member  # en-US
    cleo: Member  # fr
    owner: Member  # de, Manage Server


@pytest.fixture
async def lang(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Lang]:
    with watching(monkeypatch) as fragments:
        async with _lang(tmp_path) as world:
            yield world
    assert not fragments.found, (
        "translations put into other sentences (give each case a whole sentence):\n"
        + "\n".join(f"{m!r} in {t!r}" for m, t in fragments.found.items()))


@asynccontextmanager
async def _lang(tmp_path: Path) -> AsyncIterator[Lang]:
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Lama Club")
        table = guild.add_text_channel("lama")
        ana = guild.add_member("ana")
        cleo = guild.add_member("cleo", locale="fr")
        owner = guild.add_member("owner", locale="de", permissions=MANAGE_GUILD)
        async with fake.run(create_bot(make_settings(tmp_path))):
            yield Lang(fake, table, ana, cleo, owner)
        assert not fake.failures, fake.failures
        assert not fake.refusals, fake.refusals  # nothing oversized, in any language


# ---- what players saw -----------------------------------------------------------------


def _texts(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        try:
            node = json.loads(node)
        except ValueError:
            return
    if isinstance(node, list):
        for item in node:
            yield from _texts(item)
    elif isinstance(node, dict):
        for key in TEXT_KEYS:
            if isinstance(node.get(key), str):
                yield node[key]
        if "inline" in node and isinstance(node.get("name"), str):  # an embed field
            yield node["name"]
            yield str(node.get("value", ""))
        for key, value in node.items():
            if key not in TEXT_KEYS and isinstance(value, dict | list):
                yield from _texts(value)


def seen(fake: FakeDiscord) -> list[str]:
    """Every text the bot sent to the channel or to a player (not the command definitions)."""
    return [
        text
        for entry in fake.entries
        if entry["kind"] == "rest" and entry["method"] in ("POST", "PATCH")
        and "/commands" not in entry["path"]
        for text in _texts(entry.get("body"))
    ] + [  # messages sent with a file (multipart: their JSON is not in the log)
        text
        for message in fake.messages.values() if message.attachments
        for text in _texts({k: message.payload()[k] for k in ("content", "embeds",
                                                                   "components")})
    ]


@cache
def vocabulary(language: str) -> frozenset[str]:
    """The words of ``language``'s catalog (read once per run: parsing it takes ~60 ms)."""
    words: set[str] = set()
    for message in read(language):
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for text in strings:
            text = PLACEHOLDER.sub(" ", text or "")  # {card} is no word of the language
            words.update(w.lower() for w in WORD.findall(text))
    return frozenset(words)


def foreign_words(texts: list[str], language: str, names: set[str]) -> dict[str, str]:
    """Words of ``texts`` that ``language``'s catalog never uses, each with one example."""
    known = vocabulary(language) | {n.lower() for n in names}
    found: dict[str, str] = {}
    for text in texts:
        for word in WORD.findall(CODE.sub(" ", text)):
            if word.lower() not in known:
                found.setdefault(word, text)
    return found


def outside_isolates(text: str) -> str:
    """The characters of ``text`` outside every FSI/LRI … PDI span (which must be balanced)."""
    depth, kept = 0, []
    for char in text:
        if char in (FSI, LRI):
            depth += 1
        elif char == PDI:
            depth -= 1
            assert depth >= 0, f"unbalanced isolates: {text!r}"
        elif depth == 0:
            kept.append(char)
    assert depth == 0, f"unbalanced isolates: {text!r}"
    return "".join(kept)


# ---- playing ----------------------------------------------------------------------------


async def open_game(host: Member, others: list[Member], table: TextChannel, variant: str,
                    ais: int) -> None:
    reply = await host.slash(table, "lama start", variant=variant, **SHORT[variant])
    lobby = reply.message
    assert lobby is not None
    def button(op: str) -> str:
        return next(b.custom_id for b in lobby.buttons if b.custom_id.endswith(":" + op))

    for member in others:
        await member.click(lobby, button("join"))
    for _ in range(ais):
        await host.click(lobby, button("ai"))
    await host.click(lobby, button("start"))


def _state(table: TextChannel) -> tuple[tuple[int, int], Message | None, bool]:
    messages = table.messages
    final = next((m for m in reversed(messages)
                  if any("rematch" in b.custom_id for b in m.buttons)), None)
    if final is not None:
        return (final.id, final.edits), None, True
    current = next((m for m in reversed(messages)
                    if any(":hand:" in b.custom_id for b in m.buttons)), None)
    return ((current.id, current.edits) if current else (0, 0)), current, False


async def play_out(fake: FakeDiscord, table: TextChannel, members: list[Member]) -> None:
    """Each pinged human opens their hand and clicks the first action until the game ends."""
    by_id = {m.id: m for m in members}
    last = (0, 0)
    for _ in range(3000):
        def changed(
            last: tuple[int, int] = last,
        ) -> tuple[tuple[int, int], Message | None, bool] | None:
            state = _state(table)
            return state if state[0] != last and (state[1] or state[2]) else None

        stamp, current, over = await fake.notifier.wait_for(changed, WAIT, "the table to change")
        if over:
            return
        last = stamp
        match = MENTION.search(current.text) if current else None
        if current is None or match is None:
            continue
        member = by_id[int(match[1])]
        hand_id = next(b.custom_id for b in current.buttons if ":hand:" in b.custom_id)
        hand = (await member.click(current, hand_id)).message
        assert hand is not None and hand.ephemeral
        while hand.selects or action_buttons(hand):  # (Quit asks first: then "Yes, quit")
            if hand.selects:
                pick = hand.selects[0]
                result = await member.select(hand, pick.options[0].value, custom_id=pick.custom_id)
            else:
                result = await member.click(hand, action_buttons(hand)[0])
            hand = await settled(result)
    raise AssertionError("the game did not end")


# ---- the tests ----------------------------------------------------------------------------


def test_the_detector_finds_english_and_untranslated_text() -> None:
    assert set(foreign_words(["ana pioche une carte.", "Draw"], "fr", {"ana"})) == {"Draw"}
    assert foreign_words(["cleo played 🟡3."], "fr", {"cleo"}) == {"played": "cleo played 🟡3."}
    assert "card" in foreign_words(["یک card"], "fa", set())
    with pytest.raises(AssertionError):
        outside_isolates(FSI + "x")
    assert outside_isolates(f"a{FSI}b{LRI}c{PDI}{PDI}d") == "ad"


async def test_a_french_host_sees_only_french(lang: Lang) -> None:
    """cleo's Discord is in French and she hosts: the table, her hand, the summaries."""
    await open_game(lang.cleo, [], lang.table, "kadabra", ais=2)
    await play_out(lang.fake, lang.table, [lang.cleo])
    await lang.cleo.slash(lang.table, "lama rules", variant="dice")
    await lang.cleo.slash(lang.table, "lama leaderboard")
    await lang.cleo.slash(lang.table, "lama hand")  # refused: no game any more
    texts = seen(lang.fake)
    joined = "\n".join(texts)
    for french in ("jeton", "manche", "Piocher", "classement final", "rangée de lamas"):
        assert french in joined
    assert "/lama nouvelle-partie" in joined, "commands named as a French client shows them"
    assert not foreign_words(texts, "fr", {"cleo"})
    assert "\u202f:" in joined and not [f for t in texts for f in french_spacing(t)]


async def test_a_persian_server_speaks_persian_to_everyone(lang: Lang) -> None:
    set_to = await lang.owner.slash(lang.table, "lama config language", language="fa")
    assert "فارسی" in set_to.message.text
    await open_game(lang.ana, [lang.cleo], lang.table, "dice", ais=1)
    await play_out(lang.fake, lang.table, [lang.ana, lang.cleo])
    for variant in ("classic", "kadabra", "dice", "tutorial"):
        await lang.cleo.slash(lang.table, "lama rules", variant=variant)
    await lang.ana.slash(lang.table, "lama leaderboard")
    await lang.ana.slash(lang.table, "lama leaderboard", variant="dice")
    await lang.ana.slash(lang.table, "lama stats")
    await lang.owner.slash(lang.table, "lama config turn_timeout", seconds=45)
    await lang.owner.slash(lang.table, "lama config turn_timeout")
    await lang.owner.slash(lang.table, "lama config turn_timeout", seconds=5)  # refused
    lobby = (await lang.ana.slash(lang.table, "lama start", variant="kadabra")).message
    assert lobby is not None

    def button(op: str) -> str:
        return next(b.custom_id for b in lobby.buttons if b.custom_id.endswith(":" + op))

    for _ in range(6):  # the sixth is refused: the table is full (6 seats)
        await lang.ana.click(lobby, button("ai"))
    await lang.cleo.click(lobby, button("join"))
    await lang.ana.click(lobby, button("cancel"))
    texts = seen(lang.fake)
    assert any("رده\u200cبندی نهایی" in t for t in texts), "the game reached its standings"
    joined = "\n".join(texts)
    for persian in ("۴۵", "۶", "ربات ۵", "۱. "):  # timeout, full table, AI names, places
        assert persian in joined, persian
    assert not [d for t in texts for d in latin_digits(t)], "Persian digits only"
    assert "\u200e+" in joined, "a round's points are signed"
    assert not [b for t in texts for b in bare_signs(t)], "Persian signs (LRM, U+2212)"
    assert not foreign_words(texts, "fa", {"ana", "cleo", "owner"})
    for text in texts:
        if re.search("[\u0600-\u06ff]", text):  # a Persian line: Latin text only in isolates
            bare = outside_isolates(text)
            assert not re.search(r"[A-Za-z]|[🔴🟠🟡🟢🔵🟣]\d", bare), text
    assert any("<@" in t and FSI + "<@" in t for t in texts), "mentions isolated whole"


async def test_language_setting_needs_manage_server_and_auto_restores(lang: Lang) -> None:
    refused = await lang.ana.slash(lang.table, "lama config language", language="de")
    assert refused.ephemeral and "Manage Server" in refused.message.text
    await lang.owner.slash(lang.table, "lama config language", language="es")
    shown = await lang.cleo.slash(lang.table, "lama hand")
    assert "No hay ninguna partida" in shown.message.text, "the server setting wins"
    await lang.owner.slash(lang.table, "lama config language", language="auto")
    shown = await lang.cleo.slash(lang.table, "lama hand")
    assert "Il n’y a pas de partie" in shown.message.text, "then the user's locale again"
    shown = await lang.ana.slash(lang.table, "lama config language")
    assert "No server language is set" in shown.message.text


@pytest.mark.slow  # twenty whole games
@pytest.mark.parametrize("variant", ["classic", "kadabra", "dice", "tutorial"])
@pytest.mark.parametrize("language", ["en", "fr", "es", "de", "fa"])
async def test_whole_games_fit_discords_limits(lang: Lang, language: str, variant: str) -> None:
    """The fake refuses anything over Discord's limits; the fixture fails on any refusal."""
    await lang.owner.slash(lang.table, "lama config language", language=language)
    await open_game(lang.ana, [], lang.table, variant, ais=5)
    await play_out(lang.fake, lang.table, [lang.ana])
    texts = seen(lang.fake)
    assert texts
    if language != "en":
        assert not foreign_words(texts, language, {"ana", "owner"})
    if language == "fa":
        assert not [d for t in texts for d in latin_digits(t)], "Persian digits only"
        assert not [b for t in texts for b in bare_signs(t)], "Persian signs (LRM, U+2212)"
    if language == "fr":
        assert not [f for t in texts for f in french_spacing(t)], "French spacing"
