"""Shard ranges: which guilds one process serves when the bot runs as several processes.

Discord sends every guild's events and interactions to exactly one shard,
``(guild_id >> 22) % shard_count``; a process connecting a range of shards
therefore sees only those guilds, and must restore, time and sweep only
their sessions (another process owns the rest).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

IDENTIFY_WINDOW = 5.0  # seconds: Discord allows max_concurrency IDENTIFYs per bucket per window


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard Discord routes ``guild_id`` to."""
    return (guild_id >> 22) % shard_count


def parse_shard_ids(text: str) -> tuple[int, ...]:
    """``"0-3"``, ``"4,5,7"`` or ``"0-1,6"``: sorted, without repeats. ValueError if malformed."""
    ids: set[int] = set()
    for part in text.replace(" ", "").split(","):
        if not part:
            raise ValueError(f"empty item in shard ids {text!r}")
        low, dash, high = part.partition("-")
        if not low.isdigit() or (dash and not high.isdigit()):
            raise ValueError(f"shard ids are numbers or ranges like 0-3, not {part!r}")
        first, last = int(low), int(high) if dash else int(low)
        if last < first:
            raise ValueError(f"shard range {part!r} runs backwards")
        ids.update(range(first, last + 1))
    return tuple(sorted(ids))


def format_shard_ids(ids: Iterable[int]) -> str:
    """The inverse of :func:`parse_shard_ids` for a contiguous range (``0-3``) or a list."""
    ids = sorted(ids)
    if ids and ids == list(range(ids[0], ids[-1] + 1)):
        return f"{ids[0]}-{ids[-1]}" if len(ids) > 1 else str(ids[0])
    return ",".join(map(str, ids))


def split_shards(shard_count: int, processes: int) -> list[tuple[int, ...]]:
    """Contiguous, near-equal shard ranges, one per process (the launcher's plan)."""
    if not 1 <= processes <= shard_count:
        raise ValueError(f"need 1 to {shard_count} processes for {shard_count} shards")
    base, extra = divmod(shard_count, processes)
    ranges, start = [], 0
    for index in range(processes):
        size = base + (1 if index < extra else 0)
        ranges.append(tuple(range(start, start + size)))
        start += size
    return ranges


@dataclass(frozen=True)
class ShardPlan:
    """The shards this process connects: ``count`` None lets Discord choose (one process)."""

    count: int | None = None
    ids: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.ids is not None:
            if self.count is None:
                raise ValueError("shard ids need a shard count")
            bad = [i for i in self.ids if not 0 <= i < self.count]
            if bad or not self.ids:
                raise ValueError(f"shard ids must lie in 0-{self.count - 1}")

    def owns(self, guild_id: int) -> bool:
        """Whether this process serves ``guild_id`` (always, when it connects every shard)."""
        if self.count is None or self.ids is None:
            return True
        return shard_of(guild_id, self.count) in self.ids

    def describe(self) -> str:
        if self.count is None:
            return "all shards"
        ids = self.ids if self.ids is not None else range(self.count)
        return f"shards {format_shard_ids(ids)} of {self.count}"


class IdentifyGate:
    """Paces this process's IDENTIFYs: per bucket (``shard_id % max_concurrency``) one per window.

    Replaces discord.py's default hook (a flat 5 s sleep between shards), which would make a
    4-shard process wait 15 s even where Discord allows them all at once.
    """

    def __init__(self, max_concurrency: int, window: float = IDENTIFY_WINDOW,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.max_concurrency = max(1, max_concurrency)
        self.window = window
        self.clock = clock
        self._last: dict[int, float] = {}
        self._lock = asyncio.Lock()

    async def wait(self, shard_id: int) -> None:
        bucket = shard_id % self.max_concurrency
        async with self._lock:
            last = self._last.get(bucket)
            if last is not None:
                delay = last + self.window - self.clock()
                if delay > 0:
                    await asyncio.sleep(delay)
            self._last[bucket] = self.clock()
