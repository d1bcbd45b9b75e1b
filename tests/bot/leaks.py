"""Checks on everything the bot sent: hands only ever reach their owner."""

from __future__ import annotations

import json
import re
from typing import Any

from cogs.cards import cards_text
from fakediscord import FakeDiscord
from game import Card, from_dict
from game.views import summary

HAND_LINE = re.compile(r"Your (?:hand|tiles): ([^\n]*)")
CALLBACK = re.compile(r"^/interactions/(\d+)/[^/]+/callback$")
WEBHOOK = re.compile(r"^/webhooks/\d+/([^/]+)")
CHANNEL_MESSAGE = re.compile(r"^/channels/\d+/messages(/\d+)?$")
EPHEMERAL = 1 << 6


def hands_over_time(record: dict[str, Any]) -> dict[str, set[str]]:
    """Every hand each player held during the game, rendered as the bot renders it."""
    parsed = from_dict(record)
    game = parsed.new_game()
    seen: dict[str, set[str]] = {name: set() for name in parsed.players}

    def collect() -> None:
        for player in summary(game)["players"]:
            cards = [Card.parse(t) for t in player["hand"]]
            seen[player["name"]].add(cards_text(cards))

    collect()
    for seat, action in parsed.actions:
        game.apply(seat, action)
        collect()
    return seen


def _texts(body: Any) -> str:
    return json.dumps(body, ensure_ascii=False) if body is not None else ""


def _message_body(body: Any) -> dict[str, Any] | None:
    if isinstance(body, dict) and "data" in body and "type" in body:
        return body.get("data") or {}
    return body if isinstance(body, dict) else None


def sent_messages(fake: FakeDiscord) -> list[tuple[str, int | None, str]]:
    """(kind, user id, text) of every message body the bot sent: public or ephemeral."""
    out: list[tuple[str, int | None, str]] = []
    tokens = {inter.token: inter for inter in fake.interactions.values()}
    for entry in fake.entries:
        if entry.get("kind") != "rest" or entry.get("method") not in ("POST", "PATCH"):
            continue
        path, body = entry["path"], entry.get("body")
        if CHANNEL_MESSAGE.match(path):
            out.append(("public", None, _texts(body)))
            continue
        inter = None
        if match := CALLBACK.match(path):
            inter = fake.interactions.get(int(match[1]))
        elif match := WEBHOOK.match(path):
            inter = tokens.get(match[1])
        if inter is None:
            continue
        data = _message_body(body) or {}
        flags = int(data.get("flags") or 0)
        clicked_private = inter.clicked is not None and inter.clicked.ephemeral
        updating = isinstance(body, dict) and body.get("type") == 7
        private = flags & EPHEMERAL or (updating and clicked_private)
        if match and WEBHOOK.match(path) and "@original" in path and inter.original is not None:
            private = private or inter.original.ephemeral
        out.append(("ephemeral" if private else "public", inter.member.id, _texts(data)))
    return out


def check_no_leaks(fake: FakeDiscord, record: dict[str, Any], seat_users: list[int | None],
                   public_tiles: bool) -> int:
    """Public bodies hold no hand; each ephemeral hand is one its reader held. Returns #hands."""
    hands = hands_over_time(record)
    names = record["players"]
    owner = {user: names[seat] for seat, user in enumerate(seat_users) if user is not None}
    multi_card = {h for held in hands.values() for h in held if h.count(" ") >= 1}
    checked = 0
    for kind, user, text in sent_messages(fake):
        lines = HAND_LINE.findall(text)
        if kind == "public":
            assert not lines, f"a hand in a public message: {text[:300]}"
            if not public_tiles:
                leaked = [h for h in multi_card if h in text]
                assert not leaked, f"hand {leaked[0]!r} in a public message: {text[:300]}"
            continue
        for line in lines:
            line = line.split("\\n")[0]
            assert user in owner, f"user {user} saw a hand without a seat"
            assert line in hands[owner[user]], f"{owner[user]} was shown {line!r}, not their hand"
            checked += 1
    return checked
