"""Pacing like Discord: per-route buckets, the global limit and the invalid-request ban.

Where the numbers come from:

- Headers ``X-RateLimit-Limit/-Remaining/-Reset/-Reset-After/-Bucket`` on every answer,
  ``X-RateLimit-Scope``, ``X-RateLimit-Global``, ``Retry-After`` and the JSON body
  ``{"message", "retry_after", "global"}`` on a 429; buckets keyed by the top-level resource
  (channel, guild, webhook id + token); 50 requests per second for the whole bot, which
  interaction callbacks and interaction-token (webhook) requests do not count against:
  Discord's rate-limit documentation.
- 10,000 answers 401, 403 or 429 within 10 minutes (429s of scope ``shared`` excepted) end in a
  temporary ban by Cloudflare: Discord's developer support article on bots being rate limited.
  The ban is answered 429 without a ``Via`` header and with a text body, which discord.py
  raises as an HTTPException. Its length is not documented; the fake's is ``ban_seconds``.
- Message create, 5 per 5 seconds in one channel: observed by bot libraries, not documented.
  Edits and deletes have their own buckets (observed); their sizes here, like every other
  bucket size, are the fake's choice (Discord publishes no table and says not to hard-code).

The buckets run on a clock ``scale`` times faster than real time (``scale=10``: one real
second is ten Discord seconds). Every duration the fake sends (``Reset-After``,
``retry_after``, ``Reset``) is in real seconds, so the unmodified client waits the scaled time.
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from .wire import json_response

GLOBAL_LIMIT = 50  # per Discord second
INVALID_LIMIT = 10_000
INVALID_WINDOW = 600.0  # 10 minutes, Discord seconds
BAN_SECONDS = 3600.0  # the fake's choice (undocumented)


@dataclass(frozen=True)
class Spec:
    name: str
    limit: int
    window: float  # Discord seconds


def too_many(retry_after: float, *, is_global: bool) -> web.Response:
    """A 429 as Discord sends it: the JSON body, ``Retry-After`` (whole seconds, rounded up),
    ``X-RateLimit-Scope``, ``X-RateLimit-Global`` when global, ``Via`` (it came from the API,
    not from Cloudflare). A per-route one also carries its bucket's headers
    (:func:`bucket_headers`); a global one does not."""
    body = {
        "message": "You are being rate limited.",
        "retry_after": retry_after,
        "global": is_global,
    }
    headers = {
        "Via": "1.1 google",
        "Retry-After": str(max(1, math.ceil(retry_after))),
        "X-RateLimit-Scope": "global" if is_global else "user",
    }
    if is_global:
        headers["X-RateLimit-Global"] = "true"
    return json_response(body, 429, headers)


def bucket_headers(spec: Spec, remaining: int, reset_after: float) -> dict[str, str]:
    """``X-RateLimit-Limit/-Remaining/-Reset/-Reset-After/-Bucket`` (durations in real s)."""
    return {
        "X-RateLimit-Limit": str(spec.limit),
        "X-RateLimit-Remaining": str(remaining),
        "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
        "X-RateLimit-Reset-After": f"{reset_after:.3f}",
        "X-RateLimit-Bucket": hashlib.sha1(spec.name.encode()).hexdigest()[:16],
    }


def injected_429(method: str, path: str, retry_after: float, *, is_global: bool) -> web.Response:
    """A test's 429 (``fake.rate_limit``): the headers of a paced one, its bucket the one
    pacing would put the route in, exhausted until ``retry_after``."""
    response = too_many(retry_after, is_global=is_global)
    if not is_global:
        response.headers.update(bucket_headers(Pacing.spec(method, path), 0, retry_after))
    return response


# (method, path pattern, bucket); the first match wins.
ROUTES: list[tuple[str, re.Pattern[str], Spec]] = [
    ("POST", re.compile(r"^/channels/\d+/messages$"), Spec("message-create", 5, 5.0)),
    ("PATCH", re.compile(r"^/channels/\d+/messages/\d+$"), Spec("message-edit", 5, 5.0)),
    ("DELETE", re.compile(r"^/channels/\d+/messages/\d+$"), Spec("message-delete", 5, 5.0)),
    ("PUT", re.compile(r"^/applications/\d+/(guilds/\d+/)?commands$"), Spec("commands", 5, 20.0)),
    ("*", re.compile(r"^/interactions/\d+/[^/]+/callback$"), Spec("interaction-callback", 5, 1.0)),
    ("*", re.compile(r"^/webhooks/\d+/[^/]+"), Spec("webhook-token", 5, 1.0)),
]
DEFAULT = Spec("route", 50, 1.0)
MAJOR = re.compile(r"^/(channels|guilds)/(\d+)|^/webhooks/(\d+)/([^/]+)|^/interactions/(\d+)")
EXEMPT_FROM_GLOBAL = re.compile(r"^/(interactions|webhooks)/")


class PaceClock:
    """Discord time for the buckets: real monotonic time times ``scale``, plus an offset."""

    def __init__(self, scale: float) -> None:
        self.scale = scale
        self.offset = 0.0
        self._t0 = time.monotonic()

    def now(self) -> float:
        return (time.monotonic() - self._t0) * self.scale + self.offset

    def advance(self, seconds: float) -> None:
        """Jump the buckets' clock forward by ``seconds`` Discord seconds."""
        self.offset += seconds

    def real(self, seconds: float) -> float:
        """Discord seconds as the real seconds the client must wait."""
        return seconds / self.scale


@dataclass
class Bucket:
    spec: Spec
    count: int = 0
    reset_at: float = 0.0
    exhausted_at: float | None = None


@dataclass
class Stats:
    """What pacing did to the bot (durations in Discord seconds)."""

    requests: int = 0
    limited: int = 0  # 429s for a route bucket
    global_limited: int = 0
    banned: int = 0  # answers during a ban
    retry_after: float = 0.0  # sum of retry_after given with 429s
    waited: float = 0.0  # estimated pre-emptive waits of the client on exhausted buckets
    by_bucket: dict[str, int] = field(default_factory=dict)

    @property
    def wait(self) -> float:
        return self.retry_after + self.waited


@dataclass
class Ticket:
    """One admitted request, to finish once its answer is known."""

    bucket: Bucket | None
    key: str
    exempt: bool


class Pacing:
    """Rate limiting of the fake's REST answers."""

    def __init__(
        self,
        scale: float = 10.0,
        *,
        invalid_limit: int = INVALID_LIMIT,
        ban_seconds: float = BAN_SECONDS,
        global_limit: int = GLOBAL_LIMIT,
    ) -> None:
        self.clock = PaceClock(scale)
        self.invalid_limit = invalid_limit
        self.ban_seconds = ban_seconds
        self.global_limit = global_limit
        self.buckets: dict[tuple[str, str], Bucket] = {}
        self.recent: deque[float] = deque()
        self.invalid: deque[float] = deque()
        self.banned_until = -math.inf
        self.stats = Stats()

    # --- classification --------------------------------------------------------------------
    @staticmethod
    def spec(method: str, path: str) -> Spec:
        for m, pattern, spec in ROUTES:
            if m in ("*", method) and pattern.match(path):
                return spec
        template = re.sub(r"/\d+", "/{id}", path)
        return Spec(f"{DEFAULT.name}:{method}:{template}", DEFAULT.limit, DEFAULT.window)

    @staticmethod
    def major(path: str) -> str:
        match = MAJOR.match(path)
        if match is None:
            return ""
        return "+".join(g for g in match.groups() if g)

    @staticmethod
    def bucket_id(spec: Spec) -> str:
        return hashlib.sha1(spec.name.encode()).hexdigest()[:16]

    # --- admission ---------------------------------------------------------------------------
    def admit(self, method: str, path: str) -> tuple[web.Response | None, Ticket]:
        """A 429 (or ban) answer if the request may not pass now, and its ticket."""
        now = self.clock.now()
        self.stats.requests += 1
        spec = self.spec(method, path)
        key = (spec.name, self.major(path))
        bucket = self.buckets.setdefault(key, Bucket(spec))
        exempt = bool(EXEMPT_FROM_GLOBAL.match(path))
        ticket = Ticket(bucket, spec.name, exempt)
        if now < self.banned_until:
            self.stats.banned += 1
            return web.Response(status=429, text="error code: 1015"), Ticket(None, "", exempt)
        if now >= bucket.reset_at:
            if bucket.exhausted_at is not None and now - bucket.reset_at < spec.window:
                # The next request came within a window of the reset: the client most likely
                # waited for it (an estimate, at most the time the bucket stayed exhausted).
                self.stats.waited += bucket.reset_at - bucket.exhausted_at
            bucket.count, bucket.reset_at, bucket.exhausted_at = 0, now + spec.window, None
        if not exempt:
            while self.recent and now - self.recent[0] >= 1.0:
                self.recent.popleft()
            if len(self.recent) >= self.global_limit:
                retry = 1.0 - (now - self.recent[0])
                self.stats.global_limited += 1
                return self._too_many(retry, is_global=True, ticket=ticket), ticket
            self.recent.append(now)
        if bucket.count >= spec.limit:
            self.stats.limited += 1
            self.stats.by_bucket[spec.name] = self.stats.by_bucket.get(spec.name, 0) + 1
            return self._too_many(bucket.reset_at - now, is_global=False, ticket=ticket), ticket
        bucket.count += 1
        if bucket.count >= spec.limit:
            bucket.exhausted_at = now
        return None, ticket

    def _too_many(self, retry: float, *, is_global: bool, ticket: Ticket) -> web.Response:
        retry = max(retry, 0.0)
        real = round(self.clock.real(retry), 3)
        self.stats.retry_after += retry
        response = too_many(real, is_global=is_global)
        if not is_global:
            self._headers(response, ticket)
        return response

    # --- answers -----------------------------------------------------------------------------
    def _headers(self, response: web.StreamResponse, ticket: Ticket) -> None:
        bucket = ticket.bucket
        if bucket is None:
            return
        reset_after = self.clock.real(max(bucket.reset_at - self.clock.now(), 0.0))
        remaining = max(bucket.spec.limit - bucket.count, 0)
        response.headers.update(bucket_headers(bucket.spec, remaining, reset_after))

    def finish(self, ticket: Ticket, response: web.StreamResponse) -> None:
        """Add the bucket headers and count invalid requests (401, 403, 429 but shared)."""
        if response.status != 429:
            self._headers(response, ticket)
        if (
            response.status in (401, 403, 429)
            and response.headers.get("X-RateLimit-Scope") != "shared"
        ):
            now = self.clock.now()
            self.invalid.append(now)
            while self.invalid and now - self.invalid[0] >= INVALID_WINDOW:
                self.invalid.popleft()
            if len(self.invalid) >= self.invalid_limit and now >= self.banned_until:
                self.banned_until = now + self.ban_seconds
                self.invalid.clear()

    def summary(self) -> dict[str, Any]:
        s = self.stats
        return {
            "requests": s.requests,
            "429s": s.limited + s.global_limited,
            "wait_discord_s": round(s.wait, 2),
            "wait_real_s": round(self.clock.real(s.wait), 3),
            "by_bucket": dict(s.by_bucket),
        }
