""":class:`SqlStore`: what the bot keeps, in SQL written once for SQLite and PostgreSQL.

The statements and the bookkeeping of the :class:`bot.store.sqlite.Store` interface live here; a
backend (bot/store/sqlite.py's :class:`SqliteStore`, bot/store/postgres.py's :class:`PgStore`) only
says how
to connect, migrate, read and run a transaction. Both databases hold the same tables with the
same meaning (bot/store/sqlite_schema.py, bot/store/pg_schema.py), so one statement serves both
through the
adapters of bot/store/sql.py.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, TypeVar

from bot.common import faults
from bot.ladder.results import PlayedGame, SeatResult, Standing
from bot.store import ladder_queries as ladder
from bot.store import privacy
from bot.store.owed import STATE, Owed, Write
from bot.store.sql import Sql

END_FINISHED = "finished"
END_STOPPED = "stopped"  # /lama stop
END_IDLE = "idle"  # no human action for bot.timers.IDLE_TTL
END_CHANNEL_GONE = "channel_gone"  # the channel was deleted, or the bot may no longer use it
GAME_COLUMNS = ("guild_id, game_id, channel_id, variant, status, seed, record, seats, "
                "started_at, ended_at, end_reason, pace")

T = TypeVar("T")


class StoreError(RuntimeError):
    """The database cannot be used (for example, written by a newer version)."""


class SqlStore:
    """The :class:`bot.store.sqlite.Store` methods over a backend's connections."""

    def __init__(self) -> None:
        self.bytes_written = 0  # logical bytes handed to the database in writes (benchmarks)
        self._delivered: dict[int, int] = {}  # outbox id -> version shown (not yet committed)
        self._messages: dict[tuple[int, int, str], int] = {}  # (guild, channel, key) -> id

    # ---- what a backend provides -----------------------------------------
    async def _transact(self, work: Callable[[Sql], Awaitable[T]]) -> T:
        """``work`` in one transaction: all of its writes, or (on any error) none of them."""
        raise NotImplementedError

    def _reading(self) -> AbstractAsyncContextManager[Sql]:
        """A connection to read from (committed data)."""
        raise NotImplementedError

    def _is_open(self) -> bool:
        raise NotImplementedError

    async def _counted(self, sql: Sql, work: Callable[[Sql], Awaitable[T]]) -> T:
        """Run ``work`` on ``sql``, adding what it wrote to :attr:`bytes_written`."""
        try:
            return await work(sql)
        finally:
            self.bytes_written += sql.written

    # ---- running sessions ------------------------------------------------
    async def write(self, change: Write) -> None:
        """A session's change and the messages it owes, in one transaction (with the marks)."""
        await self._with_notes(lambda sql, notes: self._write(sql, change, notes))
        faults.point("commit", change.channel_id)
        for item in change.owed:
            faults.point(f"commit:{item.key}", change.channel_id)

    async def _write(self, sql: Sql, change: Write, notes: Notes) -> None:
        g, c = change.guild_id, change.channel_id
        await _write_notes(sql, notes)
        if change.moved_from is not None:  # (a game moved to its thread: the channel is free)
            for table in ("sessions", "moves"):
                await sql.run(f"DELETE FROM {table} WHERE guild_id = ? AND channel_id = ?",
                              g, change.moved_from)
            await sql.run("DELETE FROM outbox WHERE guild_id = ? AND channel_id = ? AND kind = ?",
                          g, change.moved_from, STATE)
        if change.snapshot is not None:
            snap = change.snapshot
            await sql.run(
                "INSERT INTO sessions (guild_id, channel_id, state, updated_at, "
                "table_message_id, lobby_message_id) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (guild_id, channel_id) DO UPDATE SET state = excluded.state, "
                "updated_at = excluded.updated_at, "
                "table_message_id = excluded.table_message_id, "
                "lobby_message_id = excluded.lobby_message_id",
                g, c, json.dumps(snap), time.time(), snap.get("table_message_id"),
                snap.get("lobby_message_id"))
            await sql.run("DELETE FROM moves WHERE guild_id = ? AND channel_id = ?", g, c)
        if change.move is not None:
            move = change.move
            await sql.run("INSERT INTO moves (guild_id, channel_id, seat, action, meta) "
                          "VALUES (?, ?, ?, ?, ?)",
                          g, c, move.get("seat"), move.get("action"), json.dumps(move["meta"]))
        if change.finish is not None:
            await finish(sql, g, c, **change.finish)
        if change.end or change.finish is not None:
            for table in ("sessions", "moves"):
                await sql.run(f"DELETE FROM {table} WHERE guild_id = ? AND channel_id = ?", g, c)
            await sql.run("DELETE FROM outbox WHERE guild_id = ? AND channel_id = ? AND kind = ?",
                          g, c, STATE)
        for item in change.owed:
            where = item.channel_id  # (the session's channel, or a thread game's parent)
            if item.kind == STATE:  # the latest replaces the older (unless being shown)
                await sql.run(
                    "DELETE FROM outbox WHERE guild_id = ? AND channel_id = ? AND kind = ? "
                    f"AND key = ? AND id {sql.distinct} ?", g, where, STATE, item.key,
                    item.spare)
            item.id = await sql.insert(
                "INSERT INTO outbox (guild_id, channel_id, kind, key, version, body, nonce) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                g, where, item.kind, item.key, item.version, json.dumps(item.body), item.nonce)

    def note_delivered(self, item: Owed) -> None:
        """``item`` was shown; the mark is committed with the next write or flush."""
        if item.id is not None:
            self._delivered[item.id] = max(item.version, self._delivered.get(item.id, 0))

    def note_message(self, guild_id: int, channel_id: int, key: str, message_id: int) -> None:
        if key in ("table", "lobby"):
            self._messages[(guild_id, channel_id, key)] = message_id

    async def flush_notes(self) -> None:
        if not (self._delivered or self._messages) or not self._is_open():
            return
        await self._with_notes(_write_notes)

    async def _with_notes(self, work: Callable[[Sql, Notes], Awaitable[None]]) -> None:
        """``work`` in one transaction, carrying the marks noted so far: if the transaction
        does not commit (an error, a cancelled task), the marks wait for the next one."""
        notes = Notes(self._delivered, self._messages)
        self._delivered, self._messages = {}, {}
        try:
            await self._transact(lambda sql: work(sql, notes))
        except BaseException:
            self._delivered = {**notes.delivered, **self._delivered}
            self._messages = {**notes.messages, **self._messages}
            raise

    async def owed(self) -> list[Owed]:
        """Every owed item, oldest first (start-up)."""
        async with self._reading() as sql:
            rows = await sql.rows("SELECT * FROM outbox ORDER BY id")
        return [Owed(r["guild_id"], r["channel_id"], r["kind"], r["key"], r["version"],
                     json.loads(r["body"]), r["nonce"], r["id"]) for r in rows
                if r["id"] not in self._delivered]

    async def save_session(self, guild_id: int, channel_id: int, state: dict[str, Any]) -> None:
        await self.write(Write(guild_id, channel_id, snapshot=state))

    async def drop_session(self, guild_id: int, channel_id: int) -> None:
        await self.write(Write(guild_id, channel_id, end=True))

    async def _sessions_where(self, **keys: int) -> list[dict[str, Any]]:
        """Snapshots with their move rows (``moves``) and message ids folded in."""
        return list(await self._sessions_read(**keys))

    async def _sessions_read(self, **keys: int) -> Iterator[dict[str, Any]]:
        """:meth:`_sessions_where`, each session parsed only when it is reached, its rows let
        go once parsed: thousands of restored games are never all parsed at once."""
        where = " AND ".join(f"{column} = ?" for column in keys)
        where = f"WHERE {where}" if where else ""
        async with self._reading() as sql:
            rows = await sql.rows(
                f"SELECT * FROM sessions {where} ORDER BY guild_id, channel_id", *keys.values())
            moves = await sql.rows(
                f"SELECT guild_id, channel_id, seat, action, meta FROM moves {where} "
                "ORDER BY id", *keys.values())
        by_channel: dict[tuple[int, int], list[Any]] = {}
        for m in moves:
            by_channel.setdefault((m["guild_id"], m["channel_id"]), []).append(m)
        del moves
        rows = list(rows)
        rows.reverse()
        return _parsed(rows, by_channel)

    async def session(self, guild_id: int, channel_id: int) -> dict[str, Any] | None:
        found = await self._sessions_where(guild_id=guild_id, channel_id=channel_id)
        return found[0] if found else None

    async def sessions(self, guild_id: int) -> list[dict[str, Any]]:
        return await self._sessions_where(guild_id=guild_id)

    async def running_sessions(self) -> list[dict[str, Any]]:
        """Every guild's lobbies and running games (what a restarted bot picks up again)."""
        return await self._sessions_where()

    async def each_running_session(self) -> Iterator[dict[str, Any]]:
        """:meth:`running_sessions`, each parsed when it is reached (a restart's memory)."""
        return await self._sessions_read()

    # ---- finished games --------------------------------------------------
    async def finish_game(
        self,
        guild_id: int,
        channel_id: int,
        game: dict[str, Any],
        results: list[SeatResult] | None,
        reason: str | None = None,
    ) -> None:
        """Keep a finished (results given) or abandoned (``None``) game; end its session.

        One transaction; storing the same game again replaces it (idempotent). ``reason``
        says why it ended (default: ``finished`` with results, ``stopped`` without).
        """
        await self.write(Write(guild_id, channel_id, finish={
            "game": game, "results": results, "reason": reason}))

    async def game(self, guild_id: int, game_id: str) -> dict[str, Any] | None:
        async with self._reading() as sql:
            rows = await sql.rows(f"SELECT {GAME_COLUMNS} FROM games "
                                  "WHERE guild_id = ? AND game_id = ?", guild_id, game_id)
        if not rows:
            return None
        result = dict(rows[0])
        result["record"] = json.loads(result["record"])
        result["seats"] = json.loads(result["seats"])
        return result

    async def standings(self, guild_id: int, variant: str) -> list[Standing]:
        """The guild's players in ``variant``, best first by rating
        (bot/store/ladder_queries.py)."""
        async with self._reading() as sql:
            return await ladder.standings(sql, guild_id, variant)

    async def played_variants(self, guild_id: int) -> dict[str, int]:
        async with self._reading() as sql:
            return await ladder.played_variants(sql, guild_id)

    async def player_games(self, guild_id: int, user_id: int) -> list[PlayedGame]:
        async with self._reading() as sql:
            return await ladder.player_games(sql, guild_id, user_id)

    # ---- settings --------------------------------------------------------
    async def guild_setting(self, guild_id: int, key: str) -> str | None:
        async with self._reading() as sql:
            value = await sql.value(
                "SELECT value FROM guild_settings WHERE guild_id = ? AND key = ?", guild_id, key)
        return None if value is None else str(value)

    async def guild_settings(self, key: str) -> dict[int, str]:
        """Every guild's value of ``key`` (read once at start-up into the in-memory cache)."""
        async with self._reading() as sql:
            rows = await sql.rows("SELECT guild_id, value FROM guild_settings WHERE key = ?", key)
        return {int(row["guild_id"]): str(row["value"]) for row in rows}

    async def set_guild_setting(self, guild_id: int, key: str, value: str) -> None:
        await self._transact(lambda sql: sql.run(
            "INSERT INTO guild_settings (guild_id, key, value) VALUES (?, ?, ?) "
            "ON CONFLICT (guild_id, key) DO UPDATE SET value = excluded.value",
            guild_id, key, value))

    # ---- members' notification choices (bot/sessions/user_prefs.py) ----------
    async def dm_prefs(self) -> dict[int, str]:
        """Every member's DM choice (read once at start-up into memory)."""
        async with self._reading() as sql:
            rows = await sql.rows("SELECT user_id, dm FROM user_prefs")
        return {int(row["user_id"]): str(row["dm"]) for row in rows}

    async def dm_pref(self, user_id: int) -> str | None:
        """One member's DM choice as stored now (another process may have changed it)."""
        async with self._reading() as sql:
            value = await sql.value("SELECT dm FROM user_prefs WHERE user_id = ?", user_id)
        return None if value is None else str(value)

    async def set_dm_pref(self, user_id: int, value: str | None) -> None:
        """``on`` or ``refused``; None (off) deletes the row: nothing is kept of an opt-out."""
        if value is None:
            await self._transact(lambda sql: sql.run(
                "DELETE FROM user_prefs WHERE user_id = ?", user_id))
            return
        await self._transact(lambda sql: sql.run(
            "INSERT INTO user_prefs (user_id, dm, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT (user_id) DO UPDATE SET dm = excluded.dm, "
            "updated_at = excluded.updated_at", user_id, value, time.time()))

    async def app_value(self, key: str) -> str | None:
        async with self._reading() as sql:
            value = await sql.value("SELECT value FROM app_state WHERE key = ?", key)
        return None if value is None else str(value)

    async def set_app_value(self, key: str, value: str) -> None:
        await self._transact(lambda sql: sql.run(
            "INSERT INTO app_state (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, value))

    # ---- privacy (bot/store/privacy.py) -----------------------------------------
    async def forget_user(self, user_id: int, channels: list[tuple[int, int]] | None = None
                          ) -> privacy.Forgotten:
        """The member's id and names leave every table (their games stay, seat renamed);
        ``channels``: the sessions they were just taken out of (bot/policies/forgetting.py)."""
        done = await self._transact(
            lambda sql: privacy.forget_user(sql, user_id, channels or ()))
        await self._purge_log()
        return done

    async def export_user(self, user_id: int) -> dict[str, Any]:
        async with self._reading() as sql:
            return await privacy.export_user(sql, user_id)

    async def forget_guild(self, guild_id: int) -> dict[str, int]:
        counts = await self._transact(lambda sql: privacy.forget_guild(sql, guild_id))
        await self._purge_log()
        return counts

    async def prune_games(self, before: float) -> int:
        pruned = await self._transact(lambda sql: privacy.prune_games(sql, before))
        if pruned:
            await self._purge_log()
        return pruned

    async def left_guilds(self) -> dict[int, float]:
        async with self._reading() as sql:
            return await privacy.left_guilds(sql)

    async def note_guild_left(self, guild_id: int, when: float | None) -> None:
        """The bot left the server at ``when`` (None: it is back, nothing is to go)."""
        key = f"{privacy.LEFT_PREFIX}{guild_id}"
        if when is None:
            await self._transact(lambda sql: sql.run("DELETE FROM app_state WHERE key = ?", key))
        else:
            await self.set_app_value(key, repr(float(when)))

    async def _purge_log(self) -> None:
        """Deleted data leaves the database's own log too (SQLite's WAL; PostgreSQL: none)."""


@dataclass(frozen=True)
class Notes:
    """Delivery marks taken for one transaction: outbox id -> version shown, and the message
    ids of tables and lobbies ((guild, channel, key) -> id)."""

    delivered: dict[int, int]
    messages: dict[tuple[int, int, str], int]


async def _write_notes(sql: Sql, notes: Notes) -> None:
    if notes.delivered:  # one call (one trip to the database) for all of them
        await sql.run_many("DELETE FROM outbox WHERE id = ? AND version <= ?",
                           list(notes.delivered.items()))
    for (g, c, key), message_id in notes.messages.items():
        await sql.run(f"UPDATE sessions SET {key}_message_id = ? "
                      "WHERE guild_id = ? AND channel_id = ?", message_id, g, c)


async def finish(
    sql: Sql, guild_id: int, channel_id: int, game: dict[str, Any],
    results: list[SeatResult] | None, reason: str | None = None,
) -> None:
    """The game's row and its human seats' results (inside the caller's transaction), then
    its ratings (once: bot/store/ladder_queries.py). A game played in a thread is kept under
    the channel it was opened in (``parent_id``: its Rematch opens a lobby there)."""
    channel_id = int(game.get("parent_id") or channel_id)
    status = "abandoned" if results is None else "finished"
    reason = reason or (END_STOPPED if results is None else END_FINISHED)
    await sql.run(  # an upsert: storing a game again keeps its ``rated`` mark
        f"INSERT INTO games ({GAME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (guild_id, game_id) DO UPDATE SET channel_id = excluded.channel_id, "
        "variant = excluded.variant, status = excluded.status, seed = excluded.seed, "
        "record = excluded.record, seats = excluded.seats, started_at = excluded.started_at, "
        "ended_at = excluded.ended_at, end_reason = excluded.end_reason, pace = excluded.pace",
        guild_id, game["game_id"], channel_id, game["variant"], status, str(game["seed"]),
        json.dumps(game["record"]), json.dumps(game["seats"]),
        float(game.get("started_at", time.time())), time.time(), reason,
        str(game.get("pace") or "live"))
    await sql.run_many(  # AI seats have no result rows (they are rated)
        "INSERT INTO results (guild_id, game_id, seat, user_id, name, variant, points, won) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, game_id, seat) "
        "DO UPDATE SET user_id = excluded.user_id, name = excluded.name, "
        "variant = excluded.variant, points = excluded.points, won = excluded.won",
        [(guild_id, game["game_id"], r.seat, r.user_id, r.name, game["variant"], r.points,
          int(r.won)) for r in results or [] if r.user_id is not None])
    if results is not None:
        await ladder.rate_game(sql, guild_id, game, results)


def _parsed(rows: list[Any], moves: dict[tuple[int, int], list[Any]]
            ) -> Iterator[dict[str, Any]]:
    """Each session row (``rows`` in reverse order) as :meth:`SqlStore._sessions_where`'s
    dict, with its ``moves``; each row is dropped once parsed."""
    while rows:
        row = rows.pop()
        data = json.loads(row["state"])
        for key in ("table_message_id", "lobby_message_id"):
            if row[key] is not None:
                data[key] = row[key]
        data["moves"] = [
            {"seat": m["seat"], "action": m["action"], "meta": json.loads(m["meta"])}
            for m in moves.pop((row["guild_id"], row["channel_id"]), [])]
        del row
        yield data
