"""What lama keeps about a member or a server, handed out or deleted (``/lama mydata``,
``/lama forget-me``, ``python -m bot data ...``, the grace period after leaving a server,
the retention of finished games).

The statements are written once for both databases (bot/store/sql.py's adapters) and run inside
the caller's transaction (bot/store/sql_store.py). Forgetting a member keeps the games they played
replayable for the others: their seat gets a neutral name (:func:`neutral_name`) in the
record, its moves included, and their user id leaves the seat; their result rows and
ratings go. A running game is handed to an AI by the live session first
(bot/policies/forgetting.py); what is left in stored snapshots (a process that is not running, a
cluster's other process) is scrubbed here the same way.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.store.sql import Sql

GUILD_TABLES = ("games", "results", "guild_settings", "sessions", "moves", "outbox", "ratings")
"""Every table whose rows belong to one server (led by ``guild_id``)."""
# app_state key: when the bot left the server (bot/policies/forgetting.py)
LEFT_PREFIX = "guild_left:"
EXPORT_FORMAT = "lama-mydata/1"
UPLOAD_CAP = 8 * 1024 * 1024
"""Bytes a ``mydata`` file may have: below Discord's smallest upload limit (10 MiB)."""


def neutral_name(seat: int, taken: set[str]) -> str:
    """The name a forgotten member's seat shows: ``Player N`` (N: the seat, from 1), made
    unique among the game's other names (a record's names must differ)."""
    base = f"Player {seat + 1}"
    name, n = base, 2
    while name in taken:
        name, n = f"{base} ({n})", n + 1
    return name


def rename_in_record(record: dict[str, Any], seat: int, new: str) -> dict[str, Any]:
    """``record`` (docs/record.md) with seat ``seat`` named ``new`` wherever it is named:
    the players list and the moves (their ``player``, a Kadabra 1's ``give_to``)."""
    players = list(record.get("players") or [])
    if not 0 <= seat < len(players):
        return record
    old = players[seat]
    players[seat] = new
    actions = []
    for action in record.get("actions") or []:
        action = dict(action)
        for key in ("player", "give_to"):
            if action.get(key) == old:
                action[key] = new
        actions.append(action)
    return {**record, "players": players, "actions": actions}


def scrub_seats(seats: list[dict[str, Any]], record: dict[str, Any] | None, user_id: int,
                names: set[str]) -> tuple[list[dict[str, Any]], dict[str, Any] | None] | None:
    """The seats and record with every seat of ``user_id`` neutral (its name added to
    ``names``); None if the user has no seat there."""
    mine = [i for i, s in enumerate(seats) if s.get("user_id") == user_id]
    if not mine:
        return None
    seats = [dict(s) for s in seats]
    for seat in mine:
        names.add(str(seats[seat].get("name", "")))
        taken = {str(s.get("name")) for s in seats} | set((record or {}).get("players") or [])
        neutral = neutral_name(seat, taken)
        seats[seat] = {"user_id": None, "name": neutral, "forgotten": True}
        if record is not None:
            record = rename_in_record(record, seat, neutral)
    return seats, record


def scrub_snapshot(state: dict[str, Any], user_id: int, names: set[str]) -> dict[str, Any] | None:
    """A stored session (bot/sessions/persistence.py's snapshot) without ``user_id``: their seat an
    AI
    with a neutral name, hosting passed on; None if they are not in it."""
    scrubbed = scrub_seats(state.get("seats") or [], state.get("record"), user_id, names)
    if scrubbed is None and state.get("host_id") != user_id:
        return None
    state = dict(state)
    if scrubbed is not None:
        state["seats"], state["record"] = scrubbed
    if state.get("host_id") == user_id:
        state["host_id"] = next((s["user_id"] for s in state.get("seats") or []
                                 if s.get("user_id") is not None), 0)
    return state


def _json(text: Any) -> Any:
    try:
        return json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return None


@dataclass
class Forgotten:
    """What forgetting a member changed (counts, for the operator and the tests)."""

    games: int = 0
    results: int = 0
    ratings: int = 0
    sessions: int = 0
    outbox: int = 0
    prefs: int = 0  # their notification choice (user_prefs)
    names: set[str] = field(default_factory=set)

    def summary(self) -> dict[str, int]:
        return {"games": self.games, "results": self.results, "ratings": self.ratings,
                "sessions": self.sessions, "outbox": self.outbox, "prefs": self.prefs}


async def forget_user(sql: Sql, user_id: int,
                      channels: Iterable[tuple[int, int]] = ()) -> Forgotten:
    """Remove ``user_id`` and their names from every table (inside the caller's transaction).

    The ``LIKE`` filters only narrow the rows read; each is checked exactly after parsing.
    Owed messages go wherever they mention the user, and in ``channels`` (the sessions the
    caller took them out of) and the stored sessions scrubbed here wherever they name them
    (a name alone is no proof elsewhere: another member may be called the same)."""
    done = Forgotten()
    where = set(channels)
    needle = f"%{int(user_id)}%"
    for row in await sql.rows("SELECT guild_id, game_id, seats, record FROM games "
                              "WHERE seats LIKE ?", needle):
        seats, record = _json(row["seats"]) or [], _json(row["record"])
        scrubbed = scrub_seats(seats, record, user_id, done.names)
        if scrubbed is None:
            continue
        await sql.run("UPDATE games SET seats = ?, record = ? WHERE guild_id = ? AND game_id = ?",
                      json.dumps(scrubbed[0]), json.dumps(scrubbed[1]), row["guild_id"],
                      row["game_id"])
        done.games += 1
    for table in ("results", "ratings"):
        rows = await sql.rows(f"SELECT name FROM {table} WHERE user_id = ?", user_id)
        done.names.update(str(r["name"]) for r in rows)
        await sql.run(f"DELETE FROM {table} WHERE user_id = ?", user_id)
        setattr(done, table, len(rows))
    for row in await sql.rows("SELECT guild_id, channel_id, state FROM sessions "
                              "WHERE state LIKE ?", needle):
        state = _json(row["state"])
        scrubbed_state = (scrub_snapshot(state, user_id, done.names)
                          if isinstance(state, dict) else None)
        if scrubbed_state is None:
            continue
        await sql.run("UPDATE sessions SET state = ? WHERE guild_id = ? AND channel_id = ?",
                      json.dumps(scrubbed_state), row["guild_id"], row["channel_id"])
        where.add((row["guild_id"], row["channel_id"]))
        done.sessions += 1
    # owed messages that mention them (a ping) or name them: they are not shown any more
    gone = {int(r["id"]) for r in await sql.rows("SELECT id FROM outbox WHERE body LIKE ?",
                                                 needle)}
    for guild_id, channel_id in sorted(where):
        for name in sorted(done.names):
            if name:
                gone.update(int(r["id"]) for r in await sql.rows(
                    "SELECT id FROM outbox WHERE guild_id = ? AND channel_id = ? "
                    "AND body LIKE ?", guild_id, channel_id, f"%{_escaped(name)}%"))
    if gone:
        await sql.run_many("DELETE FROM outbox WHERE id = ?", [(i,) for i in sorted(gone)])
    done.outbox = len(gone)
    done.prefs = int(await sql.value("SELECT COUNT(*) FROM user_prefs WHERE user_id = ?",
                                     user_id) or 0)
    await sql.run("DELETE FROM user_prefs WHERE user_id = ?", user_id)
    return done


def _escaped(name: str) -> str:
    """``name`` as it appears inside a JSON string (the outbox bodies), with ``LIKE``'s
    wildcards taken literally enough: ``%`` and ``_`` only widen the match."""
    return json.dumps(name)[1:-1]


async def export_user(sql: Sql, user_id: int) -> dict[str, Any]:
    """Everything stored about ``user_id``, as one JSON-ready document. Running games give
    only the seat (their record would show hidden cards); finished games give the record."""
    needle = f"%{int(user_id)}%"
    games = []
    for row in await sql.rows(
            "SELECT guild_id, game_id, channel_id, variant, status, end_reason, started_at, "
            "ended_at, seats, record FROM games WHERE seats LIKE ? "
            "ORDER BY ended_at, game_id", needle):
        seats = _json(row["seats"]) or []
        mine = [i for i, s in enumerate(seats) if s.get("user_id") == user_id]
        if mine:
            games.append({key: row[key] for key in (
                "guild_id", "game_id", "channel_id", "variant", "status", "end_reason",
                "started_at", "ended_at")} | {"seats": mine, "names": [
                    seats[i].get("name") for i in mine], "record": _json(row["record"])})
    results = [dict(r) for r in await sql.rows(
        "SELECT guild_id, game_id, seat, name, variant, points, won, place, players, mu, sigma "
        "FROM results WHERE user_id = ? ORDER BY guild_id, game_id", user_id)]
    ratings = [dict(r) for r in await sql.rows(
        "SELECT guild_id, variant, name, mu, sigma, games FROM ratings WHERE user_id = ? "
        "ORDER BY guild_id, variant", user_id)]
    running = []
    for row in await sql.rows("SELECT guild_id, channel_id, state FROM sessions "
                              "WHERE state LIKE ?", needle):
        state = _json(row["state"])
        if not isinstance(state, dict):
            continue
        seats = state.get("seats") or []
        mine = [i for i, s in enumerate(seats) if s.get("user_id") == user_id]
        if mine or state.get("host_id") == user_id:
            running.append({"guild_id": row["guild_id"], "channel_id": row["channel_id"],
                            "status": state.get("status"), "variant": state.get("variant"),
                            "host": state.get("host_id") == user_id, "seats": mine,
                            "names": [seats[i].get("name") for i in mine]})
    owed = [{"guild_id": r["guild_id"], "channel_id": r["channel_id"], "key": r["key"],
             "body": _json(r["body"])}
            for r in await sql.rows("SELECT guild_id, channel_id, key, body FROM outbox "
                                    "WHERE body LIKE ? ORDER BY id", needle)]
    prefs = [{"dm": r["dm"], "updated_at": r["updated_at"]} for r in await sql.rows(
        "SELECT dm, updated_at FROM user_prefs WHERE user_id = ?", user_id)]
    return {"format": EXPORT_FORMAT, "user_id": str(user_id), "results": results,
            "ratings": ratings, "games": games, "running": running, "owed_messages": owed,
            "notifications": prefs[0] if prefs else {"dm": "off"}}


def packed(document: Mapping[str, Any], cap: int = UPLOAD_CAP) -> tuple[bytes, int]:
    """``document`` as gzip-compressed JSON of at most ``cap`` bytes: the records of the
    oldest games are left out until it fits, then (should that not do) the oldest entries of
    the lists; ``truncated`` says what, and why. Returns the bytes and how many records or
    entries were left out."""
    data = dict(document)
    data["games"] = [dict(g) for g in data.get("games") or []]
    left_out = 0
    while True:
        if left_out:
            data["truncated"] = {
                "left_out": left_out,
                "why": f"the file must stay under {cap} bytes (Discord's upload limit), so "
                       "the oldest games' records (then the oldest entries) were left out. "
                       "The bot's operator can export everything (python -m bot data "
                       "export-user).",
            }
        blob = gzip.compress(json.dumps(data, ensure_ascii=False, indent=1,
                                        default=str).encode(), mtime=0)
        if len(blob) <= cap:
            return blob, left_out
        with_record = [g for g in data["games"] if g.get("record") is not None]
        if with_record:
            step = max(1, len(with_record) // 4)
            for game in with_record[:step]:
                game["record"] = None
            left_out += step
            continue
        lists = [key for key in ("games", "results", "owed_messages") if data.get(key)]
        if not lists:
            return blob, left_out  # (a bare document is a few hundred bytes)
        for key in lists:  # the newest half of each
            items = data[key]
            cut = (len(items) + 1) // 2
            data[key] = items[cut:]
            left_out += cut


async def forget_guild(sql: Sql, guild_id: int) -> dict[str, int]:
    """Every row of one server, in every table; how many of each went."""
    counts = {}
    for table in GUILD_TABLES:
        counts[table] = int(await sql.value(
            f"SELECT COUNT(*) FROM {table} WHERE guild_id = ?", guild_id) or 0)
        await sql.run(f"DELETE FROM {table} WHERE guild_id = ?", guild_id)
    await sql.run("DELETE FROM app_state WHERE key = ?", f"{LEFT_PREFIX}{guild_id}")
    return counts


async def prune_games(sql: Sql, before: float) -> int:
    """Finished and abandoned games that ended before ``before`` go, with their result rows
    (the ratings they moved stay: a rating is a running total). How many went."""
    rows = await sql.rows("SELECT guild_id, game_id FROM games WHERE ended_at < ?", before)
    keys = [(r["guild_id"], r["game_id"]) for r in rows]
    if keys:
        await sql.run_many("DELETE FROM results WHERE guild_id = ? AND game_id = ?", keys)
        await sql.run_many("DELETE FROM games WHERE guild_id = ? AND game_id = ?", keys)
    return len(keys)


async def left_guilds(sql: Sql) -> dict[int, float]:
    """The servers the bot left, and when (bot/policies/forgetting.py deletes them after a
    grace)."""
    rows = await sql.rows("SELECT key, value FROM app_state WHERE key LIKE ?", f"{LEFT_PREFIX}%")
    return {int(r["key"][len(LEFT_PREFIX):]): float(r["value"]) for r in rows}
