"""Fault injection rules: 429s, error statuses and delays on matching routes."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass


@dataclass
class Fault:
    """A rule: `method` ("*" for any) and a path glob relative to /api/v10."""

    method: str
    path: str
    kind: str  # "429", "status" or "delay"
    times: int | None = 1
    retry_after: float = 0.1
    is_global: bool = False
    status: int = 500
    seconds: float = 0.0
    hits: int = 0

    def matches(self, method: str, path: str) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        if self.method not in ("*", method.upper()):
            return False
        return fnmatch.fnmatchcase(path, self.path)

    @property
    def exhausted(self) -> bool:
        return self.times is not None and self.hits >= self.times
