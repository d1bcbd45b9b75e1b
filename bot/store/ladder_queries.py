"""The ladder's SQL, shared by both backends: rating a finished game, the boards, a player's games.

The statements are written once with ``?`` placeholders and run on SQLite (aiosqlite) or
PostgreSQL (asyncpg), through bot/store/sql.py's adapters. Rating a game is a
read-modify-write of its players' rating rows; it runs inside the transaction that stores the
game (bot/store/sqlite.py, bot/store/postgres.py), marks the game ``rated`` in it, and does nothing
for a
game already rated: each finished game moves the ratings exactly once, whatever is killed or
redone. On SQLite the game's row is written first, so the transaction holds the write lock
before it reads a rating; on PostgreSQL the rating rows are locked (``FOR UPDATE``, in key
order) before they are read.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from bot.ladder.ratings import NEW, Entrant, Skill, ai_key, finishing_places, rate
from bot.ladder.results import PlayedGame, SeatResult, Standing, board_order
from bot.store.sql import Sql
from game import find_rules, from_dict, player_view, replay

log = logging.getLogger(__name__)


def lower_score_wins(variant: str) -> bool:
    try:
        return find_rules(variant).lower_score_wins
    except ValueError:  # a rule set this version does not know: the chip games' way
        return True


# ---- rating a game (inside the transaction that stores it) ----------------------------


async def rate_game(sql: Sql, guild_id: int, game: dict[str, Any],
                    results: Sequence[SeatResult]) -> None:
    """Apply a just-stored finished game to the ratings, unless it was rated before."""
    seats = game.get("seats") or []
    entrants: list[tuple[int | None, Entrant]] = []
    for r in results:
        difficulty = seats[r.seat].get("difficulty") if r.seat < len(seats) else None
        key = r.user_id if r.user_id is not None else ai_key(difficulty)
        entrants.append((r.seat if r.user_id is not None else None,
                         Entrant(key, r.name, r.points, r.won)))
    await _apply(sql, guild_id, game["game_id"], game["variant"], entrants)


async def _apply(sql: Sql, guild_id: int, game_id: str, variant: str,
                 entrants: list[tuple[int | None, Entrant]]) -> None:
    """``entrants``: (the result row's seat, or None for an AI seat; the entrant)."""
    found = await sql.rows("SELECT rated FROM games WHERE guild_id = ? AND game_id = ?",
                           guild_id, game_id)
    if not found or found[0]["rated"]:
        return
    people = [e for _, e in entrants]
    keys = sorted({e.key for e in people})
    names = {e.key: e.name for e in people if e.key > 0}
    await sql.run_many(  # every entrant gets a row (locked below), even a lone one
        "INSERT INTO ratings (guild_id, variant, user_id, name, mu, sigma, games) "
        "VALUES (?, ?, ?, ?, ?, ?, 0) ON CONFLICT (guild_id, variant, user_id) DO NOTHING",
        [(guild_id, variant, key, names.get(key, "AI"), NEW.mu, NEW.sigma) for key in keys])
    marks = ", ".join("?" * len(keys))
    rows = await sql.rows(
        f"SELECT user_id, mu, sigma FROM ratings WHERE guild_id = ? AND variant = ? "
        f"AND user_id IN ({marks}) ORDER BY user_id" + (" FOR UPDATE" if sql.locks_rows else ""),
        guild_id, variant, *keys)
    before = {int(r["user_id"]): Skill(float(r["mu"]), float(r["sigma"])) for r in rows}
    places = finishing_places(people, lower_score_wins(variant))
    after = rate(people, places, before)
    await sql.run_many(
        "UPDATE ratings SET mu = ?, sigma = ?, games = games + 1, "
        "name = CASE WHEN ? = '' THEN name ELSE ? END "
        "WHERE guild_id = ? AND variant = ? AND user_id = ?",
        [(after[k].mu, after[k].sigma, names.get(k, ""), names.get(k, ""), guild_id, variant, k)
         for k in keys])
    await sql.run_many(
        "UPDATE results SET place = ?, players = ?, mu = ?, sigma = ? "
        "WHERE guild_id = ? AND game_id = ? AND seat = ?",
        [(place, len(entrants), after[e.key].mu, after[e.key].sigma, guild_id, game_id, seat)
         for (seat, e), place in zip(entrants, places, strict=True) if seat is not None])
    await sql.run("UPDATE games SET rated = 1 WHERE guild_id = ? AND game_id = ?",
                  guild_id, game_id)


async def rate_pending(sql: Sql) -> int:
    """Rate the finished games stored before ratings existed, oldest first (deterministic:
    the same file always gives the same ratings). Returns how many games were rated."""
    games = await sql.rows(
        "SELECT guild_id, game_id, variant, seats, record FROM games "
        "WHERE rated = 0 AND status = 'finished' ORDER BY ended_at, guild_id, game_id")
    for game in games:
        guild_id, game_id = int(game["guild_id"]), str(game["game_id"])
        rows = await sql.rows(
            "SELECT seat, user_id, name, points, won FROM results "
            "WHERE guild_id = ? AND game_id = ? ORDER BY seat", guild_id, game_id)
        humans = {int(r["seat"]): (int(r["seat"]), Entrant(int(r["user_id"]), str(r["name"]),
                                                           int(r["points"]), bool(r["won"])))
                  for r in rows}
        entrants: list[tuple[int | None, Entrant]] = list(humans.values())
        seats = _json(game["seats"], [])
        final = _final_scores(game["record"])
        if final is not None and len(final[0]) == len(seats):  # the AI seats, from the record
            scores, winners = final
            entrants = [humans.get(seat) or (None, Entrant(
                ai_key(seats[seat].get("difficulty")), "AI", scores[seat], seat in winners))
                for seat in range(len(seats))]
        await _apply(sql, guild_id, game_id, str(game["variant"]), entrants)
    if games:
        log.info("rated %d games stored before ratings existed", len(games))
    return len(games)


def _json(text: Any, default: Any) -> Any:
    try:
        return json.loads(text) if isinstance(text, str) else default
    except ValueError:
        return default


def _final_scores(text: Any) -> tuple[list[int], set[int]] | None:
    """Every seat's final score and the winners, replayed from a stored record (the only
    place an older game kept its AI seats' points); None if it does not replay to the end."""
    try:
        result = replay(from_dict(_json(text, None)))
    except ValueError:
        return None
    game = result.game
    if result.error is not None or not game.finished:
        return None
    view = player_view(game, None)
    return [s.score for s in view.seats], set(view.winners)


# ---- reading ----------------------------------------------------------------------------


async def standings(sql: Sql, guild_id: int, variant: str) -> list[Standing]:
    """The guild's players in ``variant``, best first (bot/ladder/results.py board_order)."""
    rows = await sql.rows(
        "SELECT r.user_id, COUNT(*) AS games, SUM(r.won) AS wins, SUM(r.points) AS points, "
        "MAX(r.name) AS any_name, MAX(k.name) AS name, MAX(k.mu) AS mu, "
        "MAX(k.sigma) AS sigma FROM results r LEFT JOIN ratings k ON k.guild_id = r.guild_id "
        "AND k.variant = r.variant AND k.user_id = r.user_id "
        "WHERE r.guild_id = ? AND r.variant = ? GROUP BY r.user_id", guild_id, variant)
    return board_order([
        Standing(int(r["user_id"]), str(r["name"] or r["any_name"]), int(r["games"]),
                 int(r["wins"]), int(r["points"]),
                 NEW if r["mu"] is None else Skill(float(r["mu"]), float(r["sigma"])))
        for r in rows])


async def played_variants(sql: Sql, guild_id: int) -> dict[str, int]:
    """Finished games per rule set in the guild."""
    rows = await sql.rows(
        "SELECT variant, COUNT(*) AS n FROM games WHERE guild_id = ? AND status = 'finished' "
        "GROUP BY variant", guild_id)
    return {str(r["variant"]): int(r["n"]) for r in rows}


async def player_games(sql: Sql, guild_id: int, user_id: int) -> list[PlayedGame]:
    """Every finished game of the player in the guild, oldest first."""
    rows = await sql.rows(
        "SELECT r.game_id, r.variant, g.ended_at, r.points, r.won, r.place, r.players, r.mu, "
        "r.sigma FROM results r JOIN games g ON g.guild_id = r.guild_id "
        "AND g.game_id = r.game_id WHERE r.guild_id = ? AND r.user_id = ? "
        "ORDER BY g.ended_at, r.game_id", guild_id, user_id)
    return [PlayedGame(str(r["game_id"]), str(r["variant"]), float(r["ended_at"]),
                       int(r["points"]), bool(r["won"]),
                       None if r["place"] is None else int(r["place"]),
                       None if r["players"] is None else int(r["players"]),
                       None if r["mu"] is None else Skill(float(r["mu"]), float(r["sigma"])))
            for r in rows]
