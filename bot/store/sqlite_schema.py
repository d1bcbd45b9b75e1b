"""The SQLite schema, one migration per version (``PRAGMA user_version``)."""

from __future__ import annotations

MIGRATIONS: tuple[str, ...] = (
    # 1: the first schema
    """
    CREATE TABLE games (
        guild_id INTEGER NOT NULL,
        game_id TEXT NOT NULL,
        channel_id INTEGER NOT NULL,
        variant TEXT NOT NULL,
        status TEXT NOT NULL,            -- finished | abandoned
        seed TEXT NOT NULL,
        record TEXT NOT NULL,            -- game.to_dict, replayable
        seats TEXT NOT NULL,             -- [{user_id, name}], user_id null for an AI
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
        state TEXT NOT NULL,             -- the lobby or the running game, see Session.snapshot
        updated_at REAL NOT NULL,
        PRIMARY KEY (guild_id, channel_id)
    );
    CREATE TABLE app_state (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
    # 2: why a game ended (finished | stopped | idle | channel_gone ...). Schema 1 abandoned
    # games only through /lama stop, so its abandoned games were stopped.
    """
    ALTER TABLE games ADD COLUMN end_reason TEXT;
    UPDATE games SET end_reason = CASE status WHEN 'finished' THEN 'finished' ELSE 'stopped' END;
    """,
    # 3: constant work per move. A running session is its snapshot (``sessions.state``, written
    # at lobby and game start, round boundaries and shutdown) plus the append-only ``moves``
    # rows since; each accepted change appends one row. ``outbox`` holds the messages a
    # committed change owes, written in the same transaction (bot/sessions/outbox.py). The ids of
    # the
    # session's messages get their own columns so learning one rewrites no snapshot.
    """
    CREATE TABLE moves (
        id INTEGER PRIMARY KEY,
        guild_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        seat INTEGER,                    -- null: a change without an action (timers, seats)
        action TEXT,                     -- the action's text form (game.Action.parse)
        meta TEXT NOT NULL               -- the session's small state after it (version, timers)
    );
    CREATE INDEX moves_by_channel ON moves (guild_id, channel_id, id);
    CREATE TABLE outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id INTEGER NOT NULL,
        channel_id INTEGER NOT NULL,
        kind TEXT NOT NULL,              -- state (latest wins) | event (each once, in order)
        key TEXT NOT NULL,               -- table | lobby | summary | standings | note
        version INTEGER NOT NULL,
        body TEXT NOT NULL,
        nonce TEXT NOT NULL              -- makes a retried post idempotent on Discord
    );
    CREATE INDEX outbox_by_channel ON outbox (guild_id, channel_id, id);
    ALTER TABLE sessions ADD COLUMN table_message_id INTEGER;
    ALTER TABLE sessions ADD COLUMN lobby_message_id INTEGER;
    """,
    # 4: skill ratings (bot/ladder/ratings.py, bot/store/ladder_queries.py). ``ratings`` holds each
    # player's (and
    # each AI difficulty's, user_id < 0) current OpenSkill rating per guild and rule set;
    # a result row keeps the player's place in that game and their rating after it; a game is
    # ``rated`` once its ratings were applied, in the transaction that stores it. Games
    # finished before this version are rated at start-up, oldest first
    # (bot/store/ladder_queries.py).
    """
    ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE results ADD COLUMN place INTEGER;   -- 1 = won; equal results share
    ALTER TABLE results ADD COLUMN players INTEGER; -- seats in the game
    ALTER TABLE results ADD COLUMN mu REAL;         -- the rating after this game
    ALTER TABLE results ADD COLUMN sigma REAL;
    CREATE TABLE ratings (
        guild_id INTEGER NOT NULL,
        variant TEXT NOT NULL,
        user_id INTEGER NOT NULL,        -- < 0: an AI difficulty (bot/ladder/ratings.py AI_KEYS)
        name TEXT NOT NULL,              -- the latest name it played under
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        games INTEGER NOT NULL,
        PRIMARY KEY (guild_id, variant, user_id)
    );
    CREATE INDEX games_to_rate ON games (ended_at, guild_id, game_id)
        WHERE rated = 0 AND status = 'finished';
    """,
    # 5: games that last days (issue 31). A game's pace (live | relaxed) is kept with it
    # (running: in its snapshot; finished: this column). ``user_prefs`` holds a member's
    # notification choice: ``dm`` on | refused (Discord answered 50007; off: no row).
    """
    ALTER TABLE games ADD COLUMN pace TEXT NOT NULL DEFAULT 'live';
    CREATE TABLE user_prefs (
        user_id INTEGER PRIMARY KEY,
        dm TEXT NOT NULL,
        updated_at REAL NOT NULL
    );
    """,
)
