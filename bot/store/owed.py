"""The records a committed change writes: the change itself (``Write``) and each
message it owes a channel (``Owed``), with the nonces that make a post happen once.
Kept here, below the sessions, because the store saves them; the delivery is
:mod:`bot.sessions.outbox`."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass, field
from typing import Any

STATE = "state"
EVENT = "event"


def new_nonce() -> str:
    """A message nonce (Discord allows 25 characters)."""
    return secrets.token_hex(10)


def derived_nonce(nonce: str, tag: str) -> str:
    """The nonce of a post an item makes in place of the one its own ``nonce`` stands for
    (e.g. that post was deleted: Discord answers its nonce with Unknown Message for minutes).
    The same for every attempt (a crash's retry meets the post made), another per ``tag``."""
    return hashlib.blake2b(f"{nonce}/{tag}".encode(), digest_size=10).hexdigest()


@dataclass
class Owed:
    """One message a committed change owes a channel (``channel_id``: usually the session's
    own; a game in a thread also owes its parent channel a few)."""

    guild_id: int
    channel_id: int
    kind: str
    key: str
    version: int
    body: dict[str, Any] = field(default_factory=dict)
    nonce: str = field(default_factory=new_nonce)
    id: int | None = None  # the outbox row (None: owed by this process only, e.g. a refresh)
    spare: int | None = None  # an older state row being delivered now: not replaced (not saved)
    answering: bool = False  # an interaction of this process shows it (claim): the channel
    # leaves it alone until it is claimed or given back (not saved: after a restart, it is owed)


@dataclass
class Write:
    """One transaction: a session's change and what it owes."""

    guild_id: int
    channel_id: int
    snapshot: dict[str, Any] | None = None  # the whole session; its move rows are folded in
    move: dict[str, Any] | None = None  # one appended row: seat, action, meta
    finish: dict[str, Any] | None = None  # game, results, reason: kept in games/results
    end: bool = False  # the session ends: its row, move rows and owed state items go
    moved_from: int | None = None  # the session left this channel (its game went to a
    # thread): that channel's row, move rows and owed state items go; ``channel_id`` holds it
    owed: list[Owed] = field(default_factory=list)
