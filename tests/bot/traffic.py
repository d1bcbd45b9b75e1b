"""What a whole game cost in Discord traffic, counted from the fake's log."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from fakediscord import FakeDiscord, Message, TextChannel

CHANNEL_MESSAGES = re.compile(r"^/channels/\d+/messages$")
CHANNEL_MESSAGE = re.compile(r"^/channels/\d+/messages/\d+$")
WEBHOOK = re.compile(r"^/webhooks/\d+/[^/]+")
ROUND_TITLE = re.compile(r": round (\d+)$")


def message_body(body: object) -> object:
    """The message a request sends: its body, or an interaction's new message (a callback of
    type 4: the Start click answers with the game's first table, cogs/lobby.py)."""
    if isinstance(body, dict) and body.get("type") == 4 and isinstance(body.get("data"), dict):
        return body["data"]
    return body


def table_round(body: object) -> int | None:
    """The round a table message shows (its title ends with ``: round N``: an embed's, or a
    V2 container's first text display's first line, ``### …``); a request's body or an
    interaction's new message."""
    body = message_body(body)
    if not isinstance(body, dict):
        return None
    titles = [str(embed.get("title") or "") for embed in body.get("embeds") or []]
    for top in body.get("components") or []:
        inner = top.get("components") or [] if top.get("type") == 17 else []
        if inner and inner[0].get("type") == 10:
            titles.append(str(inner[0].get("content", "")).split("\n", 1)[0])
    for title in titles:
        match = ROUND_TITLE.search(title)
        if match:
            return int(match[1])
    return None


def edits_of(fake: FakeDiscord, message: Message) -> list[dict[str, Any]]:
    """The bodies of the requests that edited ``message``: through its channel, or through
    the token of the interaction it answered (round 1's table: the Start click's)."""
    tokens = {t for t, inter in fake.tokens.items() if inter.original is message}
    return [e["body"] for e in fake.entries if e["kind"] == "rest" and e["method"] == "PATCH"
            and (e["path"].endswith(f"/messages/{message.id}") or any(
                e["path"].endswith(f"/{t}/messages/@original") for t in tokens))]


def standings(body: object) -> bool:
    """A post of the final standings (it carries the Rematch button)."""
    return isinstance(body, dict) and "lama:v2:rematch:" in str(body.get("components"))


def traffic(fake: FakeDiscord, since: int = 0, channel: TextChannel | None = None
            ) -> dict[str, Any]:
    """Counts over ``fake.entries[since:]``: clicks, My hand clicks (in all and per user),
    channel message creates (a post sent again with its nonce is a *replay*, counted apart:
    Discord answers it with the message the nonce made), edits and deletes in all and per
    round (a message belongs to
    the round of the latest table written before it: a round's summary to that round; the
    final standings are the game's, counted apart; a deleted table to the round it showed),
    webhook (interaction token) writes,
    429s, and the table's lag behind a move (seconds from a click on a hand action to the
    next channel message write, p95, real time). ``channel``: only that channel's clicks and
    messages (several games at once; interaction tokens' writes are then not counted)."""
    counts: dict[str, Any] = {"clicks": 0, "my_hand": 0, "creates": 0, "edits": 0,
                              "deletes": 0, "webhook": 0, "429s": 0, "replays": 0}
    nonces: set[str] = set()  # of the posts so far (a post sent again carries its nonce)
    by_user: Counter[str] = Counter()
    rounds: dict[int, Counter[str]] = {}
    current = 1
    lags: list[float] = []
    waiting: list[float] = []  # times of moves the table has not shown yet
    prefix = f"/channels/{channel.id}/" if channel is not None else "/"
    posts: list[tuple[str, int | None]] = []  # posts awaiting their answer: path, round shown
    tables: dict[str, int] = {}  # a table message's id -> the round it showed
    for entry in fake.entries[since:]:
        kind = entry["kind"]
        if channel is not None and not (
                entry.get("channel") == channel.name if kind == "action"
                else str(entry.get("path", "")).startswith(prefix)):
            continue
        if kind == "action" and "click" in entry:
            counts["clicks"] += 1
            if entry["click"] == "My hand":
                counts["my_hand"] += 1
                by_user[entry["user"]] += 1
            else:
                waiting.append(entry["time"])
        elif kind == "rest":
            method, path = entry["method"], entry["path"]
            shown = table_round(entry.get("body"))
            if shown is not None and method == "POST":
                current = shown
            what = None
            if method == "POST" and CHANNEL_MESSAGES.match(path):
                what = "creates"
            elif method == "PATCH" and CHANNEL_MESSAGE.match(path):
                what = "edits"
            elif method == "DELETE" and CHANNEL_MESSAGE.match(path):
                what = "deletes"
            elif method in ("PATCH", "POST") and WEBHOOK.match(path):
                counts["webhook"] += 1
            body = entry.get("body")
            nonce = body.get("nonce") if isinstance(body, dict) else None
            if what == "creates" and nonce is not None and nonce in nonces:
                what = None  # the same owed message sent again: Discord answers with the
                counts["replays"] += 1  # message its nonce made, nothing new appears
            elif what == "creates" and nonce is not None:
                nonces.add(nonce)
            if what == "creates" and standings(entry.get("body")):
                counts["creates"] += 1
                counts["standings"] = counts.get("standings", 0) + 1  # the game's, not a round's
            elif what is not None:
                counts[what] += 1
                owner = current
                if what == "deletes":  # a table goes in the round it showed (two go at once
                    owner = tables.get(path.rsplit("/", 1)[1], current)  # after a round
                    # that went by unseen: bot/sessions/outbox.py freezes its table)
                rounds.setdefault(owner, Counter())[what] += 1
            if what == "creates":
                posts.append((path, shown))
        elif kind == "rest-answer":
            if entry["method"] == "POST" and CHANNEL_MESSAGES.match(entry["path"]):
                index = next((i for i, (p, _) in enumerate(posts) if p == entry["path"]), None)
                shown = posts.pop(index)[1] if index is not None else None
                answer = entry.get("body")
                if shown is not None and entry["status"] == 200 and isinstance(answer, dict):
                    tables[str(answer.get("id"))] = shown
            if entry["status"] == 429:
                counts["429s"] += 1
            elif entry["method"] in ("POST", "PATCH") and (
                CHANNEL_MESSAGES.match(entry["path"]) or CHANNEL_MESSAGE.match(entry["path"])
            ):
                lags += [entry["time"] - t for t in waiting]
                waiting.clear()
    lags.sort()
    counts["table_lag_p95_s"] = round(lags[int(0.95 * (len(lags) - 1))], 3) if lags else None
    counts["my_hand_by_user"] = dict(by_user)
    counts["per_round"] = {n: dict(c) for n, c in sorted(rounds.items())}
    return counts
