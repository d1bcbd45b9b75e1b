"""What a whole game cost in Discord traffic, counted from the fake's log."""

from __future__ import annotations

import re
from typing import Any

from fakediscord import FakeDiscord

CHANNEL_MESSAGES = re.compile(r"^/channels/\d+/messages$")
CHANNEL_MESSAGE = re.compile(r"^/channels/\d+/messages/\d+$")
WEBHOOK = re.compile(r"^/webhooks/\d+/[^/]+")


def traffic(fake: FakeDiscord, since: int = 0) -> dict[str, Any]:
    """Counts over ``fake.entries[since:]``: clicks, My hand clicks, channel message creates,
    edits and deletes, webhook (interaction token) edits, 429s, and the table's lag behind a
    move (seconds from a click on a hand action to the next channel message write, p95)."""
    counts: dict[str, Any] = {"clicks": 0, "my_hand": 0, "creates": 0, "edits": 0,
                              "deletes": 0, "webhook": 0, "429s": 0}
    lags: list[float] = []
    waiting: list[float] = []  # times of moves the table has not shown yet
    for entry in fake.entries[since:]:
        kind = entry["kind"]
        if kind == "action" and "click" in entry:
            counts["clicks"] += 1
            if entry["click"] == "My hand":
                counts["my_hand"] += 1
            else:
                waiting.append(entry["time"])
        elif kind == "rest":
            method, path = entry["method"], entry["path"]
            if method == "POST" and CHANNEL_MESSAGES.match(path):
                counts["creates"] += 1
            elif method == "PATCH" and CHANNEL_MESSAGE.match(path):
                counts["edits"] += 1
            elif method == "DELETE" and CHANNEL_MESSAGE.match(path):
                counts["deletes"] += 1
            elif method in ("PATCH", "POST") and WEBHOOK.match(path):
                counts["webhook"] += 1
        elif kind == "rest-answer":
            if entry["status"] == 429:
                counts["429s"] += 1
            elif entry["method"] in ("POST", "PATCH") and (
                CHANNEL_MESSAGES.match(entry["path"]) or CHANNEL_MESSAGE.match(entry["path"])
            ):
                lags += [entry["time"] - t for t in waiting]
                waiting.clear()
    lags.sort()
    counts["table_lag_p95_s"] = round(lags[int(0.95 * (len(lags) - 1))], 3) if lags else None
    return counts
