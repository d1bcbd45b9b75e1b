"""The fake gateway: HELLO, heartbeats, IDENTIFY/READY/GUILD_CREATE, RESUME, dispatches."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

if TYPE_CHECKING:
    from .model import Guild
    from .state import State

log = logging.getLogger(__name__)

HEARTBEAT_INTERVAL_MS = 41250

INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_MESSAGE_CONTENT = 1 << 15

EVENT_INTENTS = {
    "GUILD_CREATE": INTENT_GUILDS,
    "GUILD_UPDATE": INTENT_GUILDS,
    "GUILD_DELETE": INTENT_GUILDS,
    "GUILD_ROLE_CREATE": INTENT_GUILDS,
    "GUILD_ROLE_UPDATE": INTENT_GUILDS,
    "CHANNEL_CREATE": INTENT_GUILDS,
    "CHANNEL_UPDATE": INTENT_GUILDS,
    "CHANNEL_DELETE": INTENT_GUILDS,
    "GUILD_MEMBER_ADD": INTENT_GUILD_MEMBERS,
    "GUILD_MEMBER_UPDATE": INTENT_GUILD_MEMBERS,
    "GUILD_MEMBER_REMOVE": INTENT_GUILD_MEMBERS,
    "MESSAGE_CREATE": INTENT_GUILD_MESSAGES,
    "MESSAGE_UPDATE": INTENT_GUILD_MESSAGES,
    "MESSAGE_DELETE": INTENT_GUILD_MESSAGES,
}


class _Connection:
    """One websocket plus an ordered writer."""

    def __init__(
        self, ws: web.WebSocketResponse, written: Callable[[dict[str, Any]], None] | None = None
    ) -> None:
        self.ws = ws
        self.written = written  # told of each frame as it goes to the socket
        self.queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.task = asyncio.create_task(self._writer())

    async def _writer(self) -> None:
        while True:
            frame = await self.queue.get()
            try:
                if frame is None:
                    return
                if not self.ws.closed:
                    text = json.dumps(frame)
                    if self.written is not None:
                        self.written(frame)
                    await self.ws.send_str(text)
            except (ConnectionError, RuntimeError) as exc:
                log.debug("gateway send failed: %s", exc)
            finally:
                self.queue.task_done()

    def send(self, frame: dict[str, Any]) -> None:
        self.queue.put_nowait(frame)

    async def stop(self) -> None:
        self.queue.put_nowait(None)
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


@dataclass
class Session:
    """A gateway session; survives disconnects so the client can RESUME."""

    id: str
    intents: int
    shard: tuple[int, int]
    seq: int = 0
    buffer: list[dict[str, Any]] = field(default_factory=list)
    conn: _Connection | None = None

    def wants(self, guild_id: int | None) -> bool:
        if guild_id is None:
            return True
        shard_id, count = self.shard
        return (guild_id >> 22) % count == shard_id

    def push(self, event: str, data: Any) -> None:
        self.seq += 1
        frame = {"op": 0, "t": event, "s": self.seq, "d": data}
        self.buffer.append(frame)
        if self.conn is not None:
            self.conn.send(frame)


class Gateway:
    """Serves /gateway; counts identifies and resumes for the tests."""

    def __init__(self, fake: State) -> None:
        self.fake = fake
        self.sessions: dict[str, Session] = {}
        self.connections: set[_Connection] = set()
        self.identifies = 0
        self.resumes = 0
        self.replayed = 0
        self.connected_once = False
        self._closing: set[asyncio.Task[bool]] = set()

    def shards(self) -> dict[tuple[int, int], int]:
        """``{(shard_id, shard_count): live connections}``: who is connected to which shard."""
        live: dict[tuple[int, int], int] = {}
        for session in self.sessions.values():
            if session.conn is not None:
                live[session.shard] = live.get(session.shard, 0) + 1
        return live

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.fake.port}/gateway"

    # --- dispatching ---------------------------------------------------------------------
    def dispatch_nowait(self, event: str, data: Any, guild_id: int | None = None) -> None:
        """Queue a DISPATCH to every session that should see it (intents, shard)."""
        if guild_id is None and isinstance(data, dict) and "guild_id" in data:
            guild_id = int(data["guild_id"])
        if guild_id is not None and any(g.id == guild_id and not g.bot_in
                                        for g in self.fake.guilds):
            return  # a server the bot left: it hears nothing from there
        needed = EVENT_INTENTS.get(event, 0)
        self.fake.log("gateway", {"event": event, "d": data})
        for session in self.sessions.values():
            if needed and not session.intents & needed:
                continue
            if not session.wants(guild_id):
                continue
            session.push(event, self._filter_content(session, event, data))

    async def dispatch(self, event: str, data: Any, guild_id: int | None = None) -> None:
        """Dispatch and wait until the frames were written to the live sockets."""
        self.dispatch_nowait(event, data, guild_id)
        await self.flush()

    async def flush(self) -> None:
        for session in list(self.sessions.values()):
            if session.conn is not None:
                await session.conn.queue.join()

    def _filter_content(self, session: Session, event: str, data: Any) -> Any:
        if event not in ("MESSAGE_CREATE", "MESSAGE_UPDATE") or session.intents & (
            INTENT_MESSAGE_CONTENT
        ):
            return data
        bot_id = str(self.fake.bot_user.id)
        author = (data.get("author") or {}).get("id")
        mentioned = any(u.get("id") == bot_id for u in data.get("mentions", []))
        if author == bot_id or mentioned:
            return data
        return {**data, "content": "", "embeds": [], "components": [], "attachments": []}

    # --- faults ----------------------------------------------------------------------------
    async def drop(self, code: int = 4000) -> None:
        """Close every live gateway socket with `code` (4000: resumable)."""
        self.fake.log("fault", {"drop_gateway": code})
        for conn in list(self.connections):
            await conn.ws.close(code=code, message=b"fake: connection dropped")

    async def close_all(self) -> None:
        for conn in list(self.connections):
            await conn.ws.close(code=1001)

    def _written(self, frame: dict[str, Any]) -> None:
        """An interaction's frame is going to the bot: the click is sent (``Interaction.sent``)."""
        if frame.get("t") == "INTERACTION_CREATE":
            with contextlib.suppress(KeyError, TypeError, ValueError):
                inter = self.fake.interactions.get(int(frame["d"]["id"]))
                if inter is not None and inter.sent is None:
                    inter.sent = self.fake.clock.monotonic()

    # --- the websocket ---------------------------------------------------------------------
    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        conn = _Connection(ws, self._written)
        self.connections.add(conn)
        session: Session | None = None
        conn.send(
            {"op": 10, "s": None, "t": None, "d": {"heartbeat_interval": HEARTBEAT_INTERVAL_MS}}
        )
        try:
            async for msg in ws:
                if msg.type is not WSMsgType.TEXT:
                    log.warning("gateway got a non-text frame %s", msg.type)
                    continue
                try:
                    frame = json.loads(msg.data)
                    session = self._on_frame(conn, session, frame) or session
                except Exception as exc:
                    log.exception("fake gateway failed on %r", msg.data)
                    self.fake.record_error(f"gateway: {exc!r} on {msg.data!r}")
                    await ws.close(code=4000)
        finally:
            if session is not None and session.conn is conn:
                session.conn = None
            self.connections.discard(conn)
            await conn.stop()
            self.fake.notifier.notify()
        return ws

    def _on_frame(
        self, conn: _Connection, session: Session | None, frame: dict[str, Any]
    ) -> Session | None:
        op, d = frame.get("op"), frame.get("d")
        if op == 1:
            conn.send({"op": 11, "s": None, "t": None, "d": None})
            return None
        self.fake.log("gateway-in", {"op": op, "d": _redact(d)})
        if op == 2:
            return self._identify(conn, d)
        if op == 6:
            return self._resume(conn, d)
        if op == 8 and session is not None:
            self._chunk(session, d)
        elif op not in (3, 4):
            log.info("gateway ignored op %s", op)
        return None

    def _identify(self, conn: _Connection, d: dict[str, Any]) -> Session | None:
        if d.get("token") != self.fake.token:
            self._closing.add(asyncio.create_task(conn.ws.close(code=4004, message=b"bad token")))
            return None
        shard = tuple(d.get("shard") or (0, 1))
        session = Session(secrets.token_hex(16), int(d.get("intents", 0)), (shard[0], shard[1]))
        self.sessions[session.id] = session
        session.conn = conn
        self.identifies += 1
        self.connected_once = True
        guilds = [g for g in self.fake.guilds if g.bot_in and session.wants(g.id)]
        session.push("READY", self._ready(session, guilds))
        for guild in guilds:
            if session.intents & INTENT_GUILDS:
                session.push("GUILD_CREATE", guild.payload())
        self.fake.notifier.notify()
        return session

    def _ready(self, session: Session, guilds: list[Guild]) -> dict[str, Any]:
        user = self.fake.bot_user.payload()
        user.update({"verified": True, "mfa_enabled": False, "flags": 0, "email": None})
        return {
            "v": 10,
            "user": user,
            "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
            "session_id": session.id,
            "session_type": "normal",
            "resume_gateway_url": self.url,
            "shard": list(session.shard),
            "application": {"id": str(self.fake.application_id), "flags": 0},
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": [],
            "user_settings": {},
        }

    def _resume(self, conn: _Connection, d: dict[str, Any]) -> Session | None:
        session = self.sessions.get(d.get("session_id", ""))
        if session is None or d.get("token") != self.fake.token:
            conn.send({"op": 9, "s": None, "t": None, "d": False})
            return None
        last = int(d.get("seq") or 0)
        for frame in session.buffer:
            if frame["s"] > last:
                conn.send(frame)
                self.replayed += 1
        session.conn = conn
        session.push("RESUMED", {})
        self.resumes += 1
        self.fake.notifier.notify()
        return session

    def _chunk(self, session: Session, d: dict[str, Any]) -> None:
        guild_ids = d.get("guild_id")
        ids = guild_ids if isinstance(guild_ids, list) else [guild_ids]
        for gid in ids:
            guild = next((g for g in self.fake.guilds if str(g.id) == str(gid)), None)
            if guild is None:
                continue
            members = guild.members
            if d.get("user_ids"):
                wanted = {str(u) for u in d["user_ids"]}
                members = [m for m in members if str(m.id) in wanted]
            elif d.get("query"):
                members = [m for m in members if m.name.lower().startswith(d["query"].lower())]
            if d.get("limit"):
                members = members[: int(d["limit"])]
            data = {
                "guild_id": str(guild.id),
                "members": [m.payload() for m in members],
                "chunk_index": 0,
                "chunk_count": 1,
                "not_found": [],
            }
            if d.get("nonce") is not None:
                data["nonce"] = d["nonce"]
            session.push("GUILD_MEMBERS_CHUNK", data)


def _redact(d: Any) -> Any:
    if isinstance(d, dict) and "token" in d:
        return {**d, "token": "<token>"}
    return d
