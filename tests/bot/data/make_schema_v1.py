"""Writes schema_v1.db: a database as the first schema (user_version 1) left it.

Run once, from the repository root, with the code of schema version 1:
``python -m tests.bot.data.make_schema_v1``. The DDL below is a copy of
migration 1, so the file stays what a v1 bot wrote even after the schema moves
on; test_migrations.py opens a copy with the current store.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

from game import Game, player_view, to_dict
from game.ai import find

HERE = Path(__file__).resolve().parent
TARGET = HERE / "schema_v1.db"

GUILD = 900
OTHER_GUILD = 901
CHANNEL = 4242
ANA, BEN, CLEO = 101, 102, 103

SCHEMA_V1 = """
CREATE TABLE games (
    guild_id INTEGER NOT NULL,
    game_id TEXT NOT NULL,
    channel_id INTEGER NOT NULL,
    variant TEXT NOT NULL,
    status TEXT NOT NULL,
    seed TEXT NOT NULL,
    record TEXT NOT NULL,
    seats TEXT NOT NULL,
    started_at REAL NOT NULL,
    ended_at REAL NOT NULL,
    PRIMARY KEY (guild_id, game_id)
);
CREATE TABLE results (
    guild_id INTEGER NOT NULL,
    game_id TEXT NOT NULL,
    seat INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    variant TEXT NOT NULL,
    points INTEGER NOT NULL,
    won INTEGER NOT NULL,
    PRIMARY KEY (guild_id, game_id, seat)
);
CREATE INDEX results_by_user ON results (guild_id, user_id);
CREATE TABLE guild_settings (
    guild_id INTEGER NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (guild_id, key)
);
CREATE TABLE sessions (
    guild_id INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    state TEXT NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (guild_id, channel_id)
);
CREATE TABLE app_state (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
PRAGMA user_version = 1;
"""


def play(game: Game, seed: str, until: int | None = None) -> Game:
    """AIs play every seat (``until``: stop after that many actions)."""
    players = [find("heuristic")(f"{seed}:{i}") for i in range(len(game.players))]
    while not game.finished and (until is None or len(game.history) < until):
        seat = game.to_act
        game.apply(seat, players[seat].choose(player_view(game, seat)))
    return game


def seats(ids: list[int | None], names: list[str]) -> list[dict[str, object]]:
    return [{"user_id": u, "name": n} for u, n in zip(ids, names, strict=True)]


def finished(db: sqlite3.Connection, guild: int, number: int, variant: str,
             ids: list[int | None], names: list[str]) -> None:
    seed = f"v1-{number}"
    game = play(Game(variant, names, {"target": 30}, seed=seed), seed)
    view = player_view(game, None)
    game_id = f"{number:032x}"
    db.execute(
        "INSERT INTO games VALUES (?, ?, ?, ?, 'finished', ?, ?, ?, ?, ?)",
        (guild, game_id, CHANNEL, variant, seed, json.dumps(to_dict(game)),
         json.dumps(seats(ids, names)), 1700000000.0 + number, 1700000600.0 + number),
    )
    for s in view.seats:
        if ids[s.seat] is None:
            continue
        db.execute(
            "INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (guild, game_id, s.seat, ids[s.seat], s.name, variant, s.score,
             int(s.seat in view.winners)),
        )


def running(db: sqlite3.Connection) -> None:
    """A kadabra game between ana and ben, 9 actions in, as Session.snapshot (format 1) saved it."""
    seed = "v1-running"
    names = ["ana", "ben"]
    game = play(Game("kadabra", names, {"target": 20}, seed=seed), seed, until=9)
    state = {
        "format": 1, "guild_id": GUILD, "channel_id": CHANNEL + 1, "status": "playing",
        "host_id": ANA, "options": {"target": 20}, "locale": None, "version": 12,
        "lobby_message_id": None, "table_message_id": None, "game_id": "f" * 32,
        "variant": "kadabra", "seed": seed, "record": to_dict(game),
        "seats": seats([ANA, BEN], names), "started_at": 1700001000.0,
    }
    db.execute("INSERT INTO sessions VALUES (?, ?, ?, ?)",
               (GUILD, CHANNEL + 1, json.dumps(state), 1700001100.0))


def main() -> int:
    TARGET.unlink(missing_ok=True)
    db = sqlite3.connect(TARGET)
    db.executescript(SCHEMA_V1)
    finished(db, GUILD, 1, "classic", [ANA, BEN], ["ana", "ben"])
    finished(db, GUILD, 2, "classic", [ANA, BEN, None], ["ana", "ben", "AI 1"])
    finished(db, GUILD, 3, "dice", [BEN, CLEO], ["ben", "cleo"])
    finished(db, OTHER_GUILD, 4, "classic", [CLEO, None], ["cleo", "AI 1"])
    db.execute("INSERT INTO games VALUES (?, ?, ?, 'kadabra', 'abandoned', 's', ?, ?, 1.0, 2.0)",
               (GUILD, "a" * 32, CHANNEL, json.dumps({"format": "lama-record/1"}),
                json.dumps(seats([ANA], ["ana"]))))
    db.execute("INSERT INTO guild_settings VALUES (?, 'language', 'fr')", (GUILD,))
    db.execute("INSERT INTO guild_settings VALUES (?, 'turn_timeout', '300')", (OTHER_GUILD,))
    db.execute("INSERT INTO app_state VALUES ('command_hash:global', 'v1-hash')")
    running(db)
    db.commit()
    db.execute("VACUUM")
    db.close()
    sys.stdout.write(f"wrote {TARGET}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
