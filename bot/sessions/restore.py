"""Start-up after a restart or a crash: every stored lobby and game is served again.

The store holds each session as it was after its last accepted action
(saved before the player saw the result), so rebuilding from it loses
nothing a player was shown. :func:`restore_sessions` runs before the gateway
connects, so no click can arrive for a channel the bot has not taken back
yet; :func:`resume` then refreshes each table (through the cogs' refresher)
and lets the AIs whose turn it is play on.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.sessions.persistence import public_history
from bot.sessions.sessions import Session, Sessions, Status

log = logging.getLogger(__name__)


async def restore_sessions(
    sessions: Sessions, owns: Callable[[int], bool] = lambda guild_id: True
) -> list[Session]:
    """Rebuild every stored session of the guilds this process ``owns`` (its shards) and serve
    it; a broken one is logged, kept. Another process serves the other guilds' sessions."""
    restored: list[Session] = []
    await sessions.outbox.load(owns)
    # each row parsed when reached and let go once read: thousands of stored games are never
    # all parsed at once, and later sessions reuse the memory (issue 31)
    for data in await sessions.store.each_running_session():
        if not owns(int(data.get("guild_id") or 0)):
            continue
        where = f"guild {data.get('guild_id')} channel {data.get('channel_id')}"
        try:
            session = Session.restore(sessions, data)
        except Exception:
            # keep the row (nothing is deleted on a hunch); the channel is free meanwhile
            log.exception("could not restore the session of %s; its row is kept", where)
            continue
        if session.status not in (Status.LOBBY, Status.PLAYING):
            log.warning("stored session of %s is %s; not serving it", where, session.status.value)
            continue
        # the table on screen already mentions whoever is to act: refresh it in place
        session.pinged = session.user_to_act()
        session.note_public(public_history(session))
        sessions.adopt(session)
        restored.append(session)
    if restored:
        log.info("restored %d sessions", len(restored))
    return restored


async def resume(sessions: Sessions, restored: list[Session]) -> None:
    """Deliver what the store says is owed, and each restored session's message brought up
    to date (edited, or posted again if it is gone); then wake the AIs."""
    outbox = sessions.outbox
    for session in restored:
        outbox.attach(session)
        outbox.refresh(session, "lobby" if session.status is Status.LOBBY else "table")
    await outbox.deliver_all()
    for session in restored:
        if sessions.get(session.channel_id) is session:
            sessions.ai.wake(session)
