"""The store's contract, run against every backend (SQLite and PostgreSQL, ``db_url``):
schema versions and migration, sessions, results, leaderboard order, settings, and several
processes writing at once."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from bot.ladder.ratings import NEW, Entrant, finishing_places, rate
from bot.process.backends import is_postgres, make_store
from bot.store.postgres import PG_SCHEMA_VERSION
from bot.store.sqlite import SCHEMA_VERSION, SeatResult, Store, StoreError
from tests.pg import raw

GUILD = 10
OTHER_GUILD = 20


def game_doc(game_id: str, variant: str = "classic") -> dict:
    return {"game_id": game_id, "variant": variant, "seed": "7",
            "record": {"format": "lama-record/1"}, "seats": [], "started_at": 0.0}


async def opened(db_url: str) -> Store:
    store = make_store(db_url)
    await store.open()
    return store


def test_both_backends_number_their_schema_alike() -> None:
    assert PG_SCHEMA_VERSION == SCHEMA_VERSION


async def test_a_new_database_is_migrated_to_the_current_version(db_url: str) -> None:
    store = await opened(db_url)
    assert await store.schema_version() == SCHEMA_VERSION
    assert await store.integrity_check() == ["ok"]
    await store.set_app_value("kept", "yes")
    await store.close()
    if not is_postgres(db_url):
        assert (await raw(db_url, "PRAGMA journal_mode"))[0][0] == "wal"
    again = await opened(db_url)  # reopening migrates nothing and loses nothing
    assert await again.schema_version() == SCHEMA_VERSION
    assert await again.app_value("kept") == "yes"
    await again.close()


async def test_other_tables_in_the_database_are_left_alone(db_url: str) -> None:
    await raw(db_url, "CREATE TABLE unrelated (x INTEGER)", "INSERT INTO unrelated VALUES (1)")
    store = await opened(db_url)
    assert await store.schema_version() == SCHEMA_VERSION
    await store.set_guild_setting(GUILD, "language", "fr")
    assert await store.guild_setting(GUILD, "language") == "fr"
    assert await store.guild_setting(OTHER_GUILD, "language") is None
    assert await store.guild_settings("language") == {GUILD: "fr"}
    await store.close()
    assert await raw(db_url, "SELECT x FROM unrelated") == [(1,)]


async def test_a_newer_schema_is_refused(db_url: str) -> None:
    if is_postgres(db_url):
        await raw(db_url, "CREATE TABLE lama_schema (version INTEGER NOT NULL)",
                  f"INSERT INTO lama_schema VALUES ({SCHEMA_VERSION + 1})")
    else:
        await raw(db_url, f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    store = make_store(db_url)
    with pytest.raises(StoreError, match="upgrade the bot"):
        await store.open()
    await store.close()


async def test_sessions_are_kept_per_guild_and_channel(db_url: str) -> None:
    store = await opened(db_url)
    await store.save_session(GUILD, 2, {"guild_id": GUILD, "channel_id": 2, "v": 1})
    await store.save_session(GUILD, 1, {"guild_id": GUILD, "channel_id": 1, "v": 1})
    await store.save_session(OTHER_GUILD, 1, {"guild_id": OTHER_GUILD, "channel_id": 1})
    await store.save_session(GUILD, 2, {"guild_id": GUILD, "channel_id": 2, "v": 2})
    assert [s["channel_id"] for s in await store.sessions(GUILD)] == [1, 2]
    assert (await store.sessions(GUILD))[1]["v"] == 2
    assert len(await store.running_sessions()) == 3
    await store.drop_session(GUILD, 1)
    await store.finish_game(GUILD, 2, game_doc("g"), [SeatResult(0, 5, "ana", 3, True)])
    assert await store.sessions(GUILD) == []
    assert [s["guild_id"] for s in await store.running_sessions()] == [OTHER_GUILD]
    await store.close()


async def test_a_game_stored_twice_counts_once(db_url: str) -> None:
    store = await opened(db_url)
    results = [SeatResult(0, 5, "ana", 3, True), SeatResult(1, 6, "ben", 9, False)]
    await store.finish_game(GUILD, 1, game_doc("g1"), results)
    await store.finish_game(GUILD, 1, game_doc("g1"), results)  # e.g. redone after a crash
    board = await store.standings(GUILD, "classic")
    assert [(s.name, s.games, s.wins) for s in board] == [("ana", 1, 1), ("ben", 1, 0)]
    once = rate([Entrant(5, "ana", 3, True), Entrant(6, "ben", 9, False)], [1, 2], {})
    assert [s.skill for s in board] == [once[5], once[6]], "rated once"
    stored = await store.game(GUILD, "g1")
    assert stored is not None and stored["end_reason"] == "finished"
    assert stored["record"] == {"format": "lama-record/1"}
    await store.close()


async def test_processes_writing_at_once_lose_no_update(db_url: str) -> None:
    """Two stores (as two processes would) finish games and change settings concurrently."""
    first, second = await opened(db_url), await opened(db_url)

    async def play(store: Store, user_id: int, games: int) -> None:
        for i in range(games):
            result = SeatResult(0, user_id, f"p{user_id}", points=i, won=i % 2 == 0)
            await store.finish_game(GUILD, user_id, game_doc(f"{user_id}-{i}"), [result])
            await store.set_guild_setting(GUILD, f"k{user_id}", str(i))

    await asyncio.gather(play(first, 1, 20), play(second, 2, 20), play(first, 3, 20),
                         play(second, 4, 20))
    board = {s.user_id: s for s in await first.standings(GUILD, "classic")}
    assert {u: (s.games, s.wins) for u, s in board.items()} == {u: (20, 10) for u in (1, 2, 3, 4)}
    assert [await second.guild_setting(GUILD, f"k{u}") for u in (1, 2, 3, 4)] == ["19"] * 4
    await first.close()
    await second.close()


async def test_each_rule_set_has_its_own_board_ranked_by_rating(db_url: str) -> None:
    store = await opened(db_url)
    # lucky: 1 game, won. steady: 10 games, 7 won. poor: 6 games, 1 won. All against an AI.
    plays = [("lucky", 1, 1), ("steady", 10, 7), ("poor", 6, 1)]
    number = 0
    for user_id, (name, games, wins) in enumerate(plays, start=1):
        for i in range(games):
            number += 1
            result = SeatResult(0, user_id, name, points=5 * user_id, won=i < wins)
            ai = SeatResult(1, None, "AI 1", points=3, won=i >= wins)
            doc = {**game_doc(f"g{number}"), "seats": [{"user_id": user_id, "name": name},
                                                       {"user_id": None, "name": "AI 1",
                                                        "difficulty": "hard"}]}
            await store.finish_game(GUILD, 1, doc, [result, ai])
    await store.finish_game(GUILD, 1, game_doc("abandoned"), None)
    await store.finish_game(GUILD, 1, game_doc("t1", "tutorial"),
                            [SeatResult(0, 1, "lucky", 30, True), SeatResult(1, 3, "poor", 3,
                                                                             False)])
    await store.finish_game(OTHER_GUILD, 1, game_doc("elsewhere"),
                            [SeatResult(0, 99, "far", 0, True), SeatResult(1, 98, "near", 9,
                                                                            False)])
    board = await store.standings(GUILD, "classic")
    assert [s.name for s in board] == ["steady", "lucky", "poor"]
    steady = board[0]
    assert (steady.games, steady.wins, steady.average_points) == (10, 7, 10.0)
    assert steady.rating > board[1].rating > 0 > board[2].rating
    assert steady.skill.sigma < board[1].skill.sigma < NEW.sigma, "more games, more certain"
    assert board[1].win_rate == 1.0
    tutorial = await store.standings(GUILD, "tutorial")
    assert [(s.name, s.games) for s in tutorial] == [("lucky", 1), ("poor", 1)], \
        "the tutorial's most points win; its board counts only its games"
    assert await store.standings(GUILD, "dice") == []
    assert 99 not in {s.user_id for s in board}, "other guilds' games do not count"
    assert await store.played_variants(GUILD) == {"classic": 17, "tutorial": 1}
    games = await store.player_games(GUILD, 1)
    assert [(g.variant, g.won, g.place, g.players) for g in games] == [
        ("classic", True, 1, 2), ("tutorial", True, 1, 2)]
    assert games[-1].skill == tutorial[0].skill, "a result keeps the rating after it"
    stored = await store.game(GUILD, "abandoned")
    assert stored is not None and stored["status"] == "abandoned"
    ai = await raw(db_url, f"SELECT games FROM ratings WHERE guild_id = {GUILD} "
                   "AND variant = 'classic' AND user_id < 0")
    assert ai == [(17,)], "the hard AI is rated as its own (hidden) row"
    await store.close()


def test_a_finishing_order_rates_winners_up_and_shares_ties() -> None:
    seats = [Entrant(1, "a", 30, False), Entrant(2, "b", 12, True), Entrant(3, "c", 30, False),
             Entrant(4, "d", 40, False)]
    assert finishing_places(seats, lower_score_wins=True) == [2, 1, 2, 4]
    assert finishing_places(seats, lower_score_wins=False) == [3, 1, 3, 2]
    after = rate(seats, [2, 1, 2, 4], {})
    assert after[2].mu > after[1].mu == after[3].mu > after[4].mu
    assert all(s.sigma < NEW.sigma for s in after.values())


async def test_a_version_1_database_is_migrated_without_losing_a_row(db_url: str) -> None:
    from bot.store.pg_schema import PG_MIGRATIONS
    from bot.store.sqlite import MIGRATIONS

    insert = ("INSERT INTO games VALUES (1, 'old', 2, 'classic', 'abandoned', '7', '{}', '[]', "
              "0, 1)")
    if is_postgres(db_url):
        await raw(db_url, PG_MIGRATIONS[0], "CREATE TABLE lama_schema (version INTEGER NOT NULL)",
                  "INSERT INTO lama_schema VALUES (1)", insert)
    else:
        with sqlite3.connect(db_url) as db:
            db.executescript(MIGRATIONS[0] + "PRAGMA user_version = 1;")
            db.execute(insert)
    store = await opened(db_url)
    assert await store.schema_version() == SCHEMA_VERSION
    old = await store.game(1, "old")
    assert old is not None and (old["status"], old["end_reason"]) == ("abandoned", "stopped")
    await store.close()


async def test_a_version_3_database_with_results_gets_its_ratings(db_url: str) -> None:
    """Games kept before ratings existed are rated at start-up, oldest first, once."""
    from bot.store.pg_schema import PG_MIGRATIONS
    from bot.store.sqlite import MIGRATIONS

    def game(number: int, ended: float) -> str:
        return (f"INSERT INTO games VALUES ({GUILD}, 'g{number}', 2, 'classic', 'finished', '7', "
                f"'{{}}', '[]', 0, {ended}, 'finished')")

    def result(number: int, seat: int, user: int, points: int, won: int) -> str:
        return (f"INSERT INTO results (guild_id, game_id, seat, user_id, name, variant, points, "
                f"won) VALUES ({GUILD}, 'g{number}', {seat}, {user}, 'p{user}', 'classic', "
                f"{points}, {won})")

    rows = [game(1, 20.0), game(2, 10.0), result(1, 0, 1, 3, 1), result(1, 1, 2, 9, 0),
            result(2, 0, 1, 20, 0), result(2, 1, 2, 4, 1), result(2, 2, 3, 4, 1)]
    if is_postgres(db_url):
        await raw(db_url, *PG_MIGRATIONS[:3], "CREATE TABLE lama_schema (version INTEGER)",
                  "INSERT INTO lama_schema VALUES (3)", *rows)
    else:
        with sqlite3.connect(db_url) as db:
            db.executescript("".join(MIGRATIONS[:3]) + "PRAGMA user_version = 3;")
            for row in rows:
                db.execute(row)
    store = await opened(db_url)
    board = {s.user_id: s.skill for s in await store.standings(GUILD, "classic")}
    await store.close()
    # g2 ended first: 2 and 3 share the win over 1; then g1: 1 beats 2
    first = rate([Entrant(1, "", 20, False), Entrant(2, "", 4, True), Entrant(3, "", 4, True)],
                 [3, 1, 1], {})
    second = rate([Entrant(1, "", 3, True), Entrant(2, "", 9, False)], [1, 2], first)
    assert board == {1: second[1], 2: second[2], 3: first[3]}
    again = await opened(db_url)  # opened again: nothing rated twice
    assert {s.user_id: s.skill for s in await again.standings(GUILD, "classic")} == board
    assert [(g.place, g.players) for g in await again.player_games(GUILD, 1)] == [(3, 3),
                                                                                 (1, 2)]
    await again.close()


async def test_writes_of_many_channels_at_once_with_their_marks_all_land(db_url: str) -> None:
    """Delivery marks and message ids ride on any write, touching other channels' rows:
    concurrent writes of one process must neither deadlock nor lose a mark."""
    from bot.sessions.outbox import EVENT, Owed, Write

    store = await opened(db_url)
    channels = range(1, 9)
    first = [Owed(GUILD, c, EVENT, "note", 1, {"n": 1}) for c in channels]
    for item in first:
        await store.write(Write(GUILD, item.channel_id, snapshot={"channel_id": item.channel_id},
                                owed=[item]))

    async def busy(channel: int) -> None:
        for n in range(2, 7):
            for item in first:  # marks of every channel, carried by whichever write comes
                store.note_delivered(item)
            for other in channels:  # and the message ids of the other channels
                if other != channel:
                    store.note_message(GUILD, other, "table", 1000 * channel + n)
            await store.write(Write(GUILD, channel, snapshot={"channel_id": channel, "n": n},
                                    owed=[Owed(GUILD, channel, EVENT, "note", n, {"n": n})]))

    await asyncio.gather(*(busy(c) for c in channels))
    await store.flush_notes()
    left = await raw(db_url, "SELECT channel_id, version FROM outbox ORDER BY channel_id, id")
    assert left == [(c, n) for c in channels for n in range(2, 7)], "every first note marked"
    assert [s["n"] for s in await store.sessions(GUILD)] == [6] * len(channels)
    await store.close()


async def test_processes_opening_a_new_database_at_once_migrate_it_once(db_url: str) -> None:
    stores = [make_store(db_url) for _ in range(3)]
    await asyncio.gather(*(s.open() for s in stores))
    assert [await s.schema_version() for s in stores] == [SCHEMA_VERSION] * 3
    await stores[0].set_app_value("one", "1")
    assert await stores[2].app_value("one") == "1"
    for store in stores:
        await store.close()
