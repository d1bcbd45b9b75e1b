"""Forgetting a member in the games this process runs, and deleting without being asked.

A policy over sessions (like bot/policies/takeover.py): :func:`forget_in_sessions` takes each
session's lock, re-checks it, and commits the change before returning; the store then
removes what is left (bot/store/privacy.py). :func:`housekeeping` is the periodic task, on the
injectable clock, that deletes the data of servers the bot left longer ago than the grace
period, and finished games older than the retention setting.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.common.clock import Clock
from bot.sessions.ai_players import make_player
from bot.sessions.persistence import public_history
from bot.sessions.sessions import Change, Session, Sessions, Status
from bot.store.privacy import neutral_name, rename_in_record
from bot.store.sqlite import Store
from game import Game, from_dict, to_dict

log = logging.getLogger(__name__)

DAY = 86_400.0
SWEEP_EVERY = 3_600.0  # seconds between housekeeping sweeps


@dataclass(frozen=True)
class Left:
    """What forgetting did to one session: a game's seat an AI took, or a lobby left or
    closed (``closed``: the member was its only human, so it went)."""

    session: Session
    playing: bool
    closed: bool = False


def _renamed(game: Game, seat: int, name: str, seed: str) -> Game:
    """The same game, seat ``seat`` named ``name`` (rebuilt from its record, as a restore)."""
    record = from_dict(rename_in_record(to_dict(game), seat, name))
    renamed = Game(record.variant, record.players, record.options, seed=seed,
                   chance=record.rounds)
    for who, action in record.actions:
        renamed.apply(who, action)
    return renamed


def _next_host(session: Session, user_id: int) -> int | None:
    return next((s.user_id for s in session.seats
                 if s.user_id is not None and s.user_id != user_id), None)


async def _forget_in(session: Session, user_id: int) -> Left | None:
    async with session.lock:
        if session.sessions.get(session.channel_id) is not session:
            return None
        seat = session.seat_of(user_id)
        if seat is None and session.host_id != user_id:
            return None
        if session.status is Status.LOBBY:
            if seat is not None:
                del session.seats[seat]
            host = _next_host(session, user_id) if session.host_id == user_id else \
                session.host_id
            if host is None:  # nobody else could start it
                await session.end(None)
                return Left(session, playing=False, closed=True)
            session.host_id = host
            await session._changed(snapshot=True)
            return Left(session, playing=False)
        if session.status is not Status.PLAYING or session.game is None:
            return None
        if session.host_id == user_id:
            session.host_id = _next_host(session, user_id) or 0
        if seat is not None:
            taken = {s.name for i, s in enumerate(session.seats) if i != seat}
            name = neutral_name(seat, taken)
            session.game = _renamed(session.game, seat, name, session.seed)
            session.seats[seat].user_id = None
            session.seats[seat].name = name
            session.seats[seat].away = False
            session.seats[seat].difficulty = None
            session.players[seat] = make_player(f"{session.seed}:{seat}")
            session.timers.timeouts.pop(seat, None)
            session.recent = []
            session.note_public(public_history(session))
            session.pending.append(Change([], note=("forgotten", {"seat": seat})))
        await session._changed(snapshot=True)  # the old snapshot and move rows are replaced
        return Left(session, playing=True)


async def forget_in_sessions(sessions: Sessions, user_id: int) -> list[Left]:
    """``user_id`` leaves every lobby and game this process serves: an AI takes their seat
    in a game at once (under a neutral name), a lobby goes on without them. The caller
    publishes each changed session."""
    left = []
    for session in sessions.served():
        try:
            done = await _forget_in(session, user_id)
        except Exception:
            log.exception("could not hand channel %s's seat to an AI", session.channel_id)
            continue
        if done is not None:
            left.append(done)
    return left


async def sweep(store: Store, now: float, grace_days: float,
                retention_days: float | None) -> dict[str, int]:
    """One round of housekeeping: the data of servers left ``grace_days`` ago or more
    goes; so do games that ended more than ``retention_days`` ago (None: kept)."""
    gone = 0
    for guild_id, left_at in (await store.left_guilds()).items():
        if now - left_at >= grace_days * DAY:
            counts = await store.forget_guild(guild_id)
            log.info("deleted the data of server %s, left %.0f days ago: %s", guild_id,
                     (now - left_at) / DAY, counts)
            gone += 1
    pruned = 0
    if retention_days is not None:
        pruned = await store.prune_games(now - retention_days * DAY)
        if pruned:
            log.info("deleted %d games that ended over %g days ago", pruned, retention_days)
    return {"guilds": gone, "games": pruned}


async def housekeeping(store: Store, clock: Clock, grace_days: float,
                       retention_days: float | None) -> None:
    """Forever: :func:`sweep` now, then every :data:`SWEEP_EVERY` seconds of ``clock``."""
    while True:
        try:
            await sweep(store, clock.now(), grace_days, retention_days)
        except Exception:  # (the next sweep tries again)
            log.exception("housekeeping failed; trying again later")
        await clock.sleep_until(clock.now() + SWEEP_EVERY)
