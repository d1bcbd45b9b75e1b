"""``nonce`` + ``enforce_nonce`` on message creation, as Discord documents it.

With ``enforce_nonce`` true, a nonce the same author used within the last few
minutes returns the message it created then, and no new message is made (a
retried post never shows twice). Without ``enforce_nonce`` the nonce is only
echoed. Kept apart so the server's create handler calls it in one place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .fake import FakeDiscord
    from .messages import Message

NONCE_WINDOW = 300.0  # seconds ("the past few minutes"); measured on the fake's clock
MAX_NONCE = 25  # characters


def enforced_nonce(body: dict[str, Any]) -> str | None:
    """The nonce to enforce, or None (absent, or ``enforce_nonce`` not set)."""
    nonce = body.get("nonce")
    if nonce is None or not body.get("enforce_nonce"):
        return None
    return str(nonce)


def earlier_message(fake: FakeDiscord, author_id: int, nonce: str) -> Message | None:
    """The message ``author_id`` created with ``nonce`` within the window, if any."""
    book: dict[tuple[int, str], tuple[Message, float]] = fake.__dict__.setdefault("_nonces", {})
    found = book.get((author_id, nonce))
    if found is None or fake.clock.monotonic() - found[1] > NONCE_WINDOW:
        return None
    return found[0]


def remember(fake: FakeDiscord, author_id: int, nonce: str, message: Message) -> None:
    book: dict[tuple[int, str], tuple[Message, float]] = fake.__dict__.setdefault("_nonces", {})
    book[(author_id, nonce)] = (message, fake.clock.monotonic())
