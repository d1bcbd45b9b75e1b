"""The PostgreSQL schema, one migration per version, numbered as SQLite's
(bot/store/sqlite_schema.py):
the same tables and meaning, with PostgreSQL types (BIGINT ids, BIGSERIAL row order)."""

from __future__ import annotations

PG_MIGRATIONS: tuple[str, ...] = (
    # 1: the first schema (bot/store/sqlite.py's version 1)
    """
    CREATE TABLE games (
        guild_id BIGINT NOT NULL,
        game_id TEXT NOT NULL,
        channel_id BIGINT NOT NULL,
        variant TEXT NOT NULL,
        status TEXT NOT NULL,
        seed TEXT NOT NULL,
        record TEXT NOT NULL,
        seats TEXT NOT NULL,
        started_at DOUBLE PRECISION NOT NULL,
        ended_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (guild_id, game_id)
    );
    CREATE TABLE results (
        id BIGSERIAL UNIQUE,             -- insertion order (SQLite's rowid): the latest name
        guild_id BIGINT NOT NULL,
        game_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        user_id BIGINT NOT NULL,
        name TEXT NOT NULL,
        variant TEXT NOT NULL,
        points INTEGER NOT NULL,
        won INTEGER NOT NULL,
        PRIMARY KEY (guild_id, game_id, seat)
    );
    CREATE INDEX results_by_user ON results (guild_id, user_id);
    CREATE TABLE guild_settings (
        guild_id BIGINT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (guild_id, key)
    );
    CREATE TABLE sessions (
        guild_id BIGINT NOT NULL,
        channel_id BIGINT NOT NULL,
        state TEXT NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (guild_id, channel_id)
    );
    CREATE TABLE app_state (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
    # 2: why a game ended
    """
    ALTER TABLE games ADD COLUMN end_reason TEXT;
    UPDATE games SET end_reason = CASE status WHEN 'finished' THEN 'finished' ELSE 'stopped' END;
    """,
    # 3: snapshots plus append-only move rows, the outbox, message ids
    # (bot/store/sqlite_schema.py's 3)
    """
    CREATE TABLE moves (
        id BIGSERIAL PRIMARY KEY,
        guild_id BIGINT NOT NULL,
        channel_id BIGINT NOT NULL,
        seat INTEGER,
        action TEXT,
        meta TEXT NOT NULL
    );
    CREATE INDEX moves_by_channel ON moves (guild_id, channel_id, id);
    CREATE TABLE outbox (
        id BIGSERIAL PRIMARY KEY,
        guild_id BIGINT NOT NULL,
        channel_id BIGINT NOT NULL,
        kind TEXT NOT NULL,
        key TEXT NOT NULL,
        version INTEGER NOT NULL,
        body TEXT NOT NULL,
        nonce TEXT NOT NULL
    );
    CREATE INDEX outbox_by_channel ON outbox (guild_id, channel_id, id);
    ALTER TABLE sessions ADD COLUMN table_message_id BIGINT;
    ALTER TABLE sessions ADD COLUMN lobby_message_id BIGINT;
    """,
    # 4: skill ratings (bot/store/sqlite_schema.py's 4)
    """
    ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE results ADD COLUMN place INTEGER;
    ALTER TABLE results ADD COLUMN players INTEGER;
    ALTER TABLE results ADD COLUMN mu DOUBLE PRECISION;
    ALTER TABLE results ADD COLUMN sigma DOUBLE PRECISION;
    CREATE TABLE ratings (
        guild_id BIGINT NOT NULL,
        variant TEXT NOT NULL,
        user_id BIGINT NOT NULL,
        name TEXT NOT NULL,
        mu DOUBLE PRECISION NOT NULL,
        sigma DOUBLE PRECISION NOT NULL,
        games INTEGER NOT NULL,
        PRIMARY KEY (guild_id, variant, user_id)
    );
    CREATE INDEX games_to_rate ON games (ended_at, guild_id, game_id)
        WHERE rated = 0 AND status = 'finished';
    """,
    # 5: a game's pace, members' notification choices (bot/store/sqlite_schema.py's 5)
    """
    ALTER TABLE games ADD COLUMN pace TEXT NOT NULL DEFAULT 'live';
    CREATE TABLE user_prefs (
        user_id BIGINT PRIMARY KEY,
        dm TEXT NOT NULL,
        updated_at DOUBLE PRECISION NOT NULL
    );
    """,
)
