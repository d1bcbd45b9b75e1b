"""Basics of the fake: permission bits, its error type, clock, snowflakes, change notifier."""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import itertools
import time
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")
M = TypeVar("M")

DISCORD_EPOCH_MS = 1420070400000

# Permission bits (https://discord.com/developers/docs/topics/permissions).
CREATE_INSTANT_INVITE = 1 << 0
KICK_MEMBERS = 1 << 1
BAN_MEMBERS = 1 << 2
ADMINISTRATOR = 1 << 3
MANAGE_CHANNELS = 1 << 4
MANAGE_GUILD = 1 << 5
ADD_REACTIONS = 1 << 6
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
MANAGE_MESSAGES = 1 << 13
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
MENTION_EVERYONE = 1 << 17
USE_EXTERNAL_EMOJIS = 1 << 18
CHANGE_NICKNAME = 1 << 26
MANAGE_ROLES = 1 << 28
USE_APPLICATION_COMMANDS = 1 << 31
MANAGE_THREADS = 1 << 34
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
SEND_MESSAGES_IN_THREADS = 1 << 38
ALL_PERMISSIONS = (1 << 51) - 1

DEFAULT_PERMISSIONS = (
    CREATE_INSTANT_INVITE
    | ADD_REACTIONS
    | VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | MENTION_EVERYONE
    | USE_EXTERNAL_EMOJIS
    | CHANGE_NICKNAME
    | USE_APPLICATION_COMMANDS
    | CREATE_PUBLIC_THREADS
    | CREATE_PRIVATE_THREADS
    | SEND_MESSAGES_IN_THREADS
)


class FakeDiscordError(AssertionError):
    """Raised by the driver when the bot did something Discord (or a user) would not accept."""


class WaitTimeout(FakeDiscordError):
    """A driver wait ran out of time."""


class Clock:
    """The fake's clock: real time plus an offset the test can advance."""

    def __init__(self) -> None:
        self.offset = 0.0

    def advance(self, seconds: float) -> None:
        """Jump the fake's clock forward (token expiry, 3-second rule)."""
        self.offset += seconds

    def monotonic(self) -> float:
        return time.monotonic() + self.offset

    def now_ms(self) -> int:
        return int((time.time() + self.offset) * 1000)

    def iso(self) -> str:
        stamp = dt.datetime.fromtimestamp(self.now_ms() / 1000, tz=dt.UTC)
        return stamp.isoformat()


class Snowflakes:
    """Generates Discord snowflake ids from the fake clock."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._counter = itertools.count(1)

    def next(self) -> int:
        ms = self.clock.now_ms() - DISCORD_EPOCH_MS
        return (ms << 22) | (next(self._counter) & 0x3FFFFF)


class Notifier(Generic[M]):
    """Wakes waiters whenever the fake's state changes; waiters re-check a predicate.

    ``M`` is what it keeps a log of (the fake's messages: ``Notifier[Message]``)."""

    def __init__(self) -> None:
        self._event = asyncio.Event()
        self.events: list[tuple[str, M]] = []

    def notify(self, kind: str = "", message: M | None = None) -> None:
        if message is not None:
            self.events.append((kind, message))
        self._event.set()
        self._event = asyncio.Event()

    async def wait_for(self, check: Callable[[], T | None], timeout: float, what: str) -> T:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = check()
            if result is not None:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise WaitTimeout(f"timed out after {timeout}s waiting for {what}")
            event = self._event
            # (not asyncio.wait_for: before Python 3.12 it swallows a cancellation that comes
            # as the event is set, and a cancelled waiter would then wait out its timeout)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(remaining):
                    await event.wait()
