"""The store's privacy functions on both databases, and ``python -m bot data``: after
forgetting, the member's id and name are in no table (PostgreSQL: after VACUUM FULL, read
from every table; SQLite: not in the file's bytes), the others' records replay."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import asyncpg
import pytest

from bot.__main__ import main
from bot.ladder.results import SeatResult
from bot.process.backends import is_postgres, make_store
from bot.store.postgres import TABLES
from bot.store.sqlite import Store
from game import Game, from_dict, player_view, replay, to_dict

NAME = "Qwixotlamb"
ZEB, ANA = 731_234_567_890_123_456, 731_234_567_890_654_321
GUILD, CHANNEL = 11, 12


async def store_game(store: Store, number: int, people: list[tuple[int, str]]) -> None:
    game = Game("classic", [n for _, n in people], {"target": 8}, seed=number)
    while not game.finished:
        game.apply(game.to_act, game.legal_actions()[0])
    view = player_view(game, None)
    doc = {"game_id": f"{number:032x}", "variant": "classic", "seed": str(number),
           "record": to_dict(game), "started_at": 0.0,
           "seats": [{"user_id": u, "name": n} for u, n in people]}
    await store.finish_game(GUILD, CHANNEL, doc, [
        SeatResult(s.seat, people[s.seat][0], s.name, s.score, s.seat in view.winners)
        for s in view.seats])


async def pg_text(url: str) -> str:
    conn = await asyncpg.connect(url)
    try:
        await conn.execute("VACUUM FULL")
        rows = [await conn.fetch(f"SELECT t::text AS row FROM {table} t") for table in TABLES]
    finally:
        await conn.close()
    return "\n".join(r["row"] for table in rows for r in table)


async def test_forget_user_on_both_databases(db_url: str) -> None:
    store = make_store(db_url)
    await store.open()
    try:
        await store_game(store, 1, [(ZEB, NAME), (ANA, "ana")])
        await store.set_guild_setting(GUILD, "language", "de")
        await store.set_dm_pref(ZEB, "on")  # /lama notify dm:on
        await store.set_dm_pref(ANA, "refused")
        assert (await store.export_user(ZEB))["notifications"]["dm"] == "on"
        done = await store.forget_user(ZEB)
        assert done.summary() == {"games": 1, "results": 1, "ratings": 1, "sessions": 0,
                                  "outbox": 0, "prefs": 1}
        assert await store.dm_prefs() == {ANA: "refused"}, "only the member's choice went"
        assert (await store.export_user(ZEB))["notifications"] == {"dm": "off"}
        kept = await store.game(GUILD, f"{1:032x}")
        assert kept is not None and kept["record"]["players"] == ["Player 1", "ana"]
        result = replay(from_dict(kept["record"]))
        assert result.error is None and result.game.finished
        assert [g.game_id for g in await store.player_games(GUILD, ANA)] == [f"{1:032x}"]
    finally:
        await store.close()
    if is_postgres(db_url):
        text = await pg_text(db_url)
        assert "ana" in text, "the check reads the tables"
        assert str(ZEB) not in text and NAME not in text
    else:
        data = Path(db_url).read_bytes()
        for needle in (str(ZEB).encode(), ZEB.to_bytes(8, "big"), ZEB.to_bytes(8, "little"),
                       NAME.encode()):
            assert needle not in data
        assert str(ANA).encode() in data or ANA.to_bytes(8, "big") in data


def test_the_operators_data_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "lama.db"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LAMA_DB", str(db))

    async def fill() -> None:
        store = make_store(str(db))
        await store.open()
        try:
            await store_game(store, 1, [(ZEB, NAME), (ANA, "ana")])
            await store_game(store, 2, [(ANA, "ana"), (ZEB, NAME)])
            await store.set_dm_pref(ZEB, "on")
        finally:
            await store.close()

    asyncio.run(fill())
    assert main(["data", "export-user", str(ZEB)]) == 0
    export = json.loads(capsys.readouterr().out)
    assert export["user_id"] == str(ZEB) and len(export["games"]) == 2
    assert {r["name"] for r in export["results"]} == {NAME}
    assert export["notifications"]["dm"] == "on", "the DM choice is part of the export"
    assert main(["data", "forget-user", str(ZEB)]) == 0
    forgotten = json.loads(capsys.readouterr().out)
    assert forgotten["results"] == 2 and forgotten["prefs"] == 1
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM results WHERE user_id = ?",
                            (ZEB,)).fetchone() == (0,)
        assert conn.execute("SELECT COUNT(*) FROM results").fetchone() == (2,)
    assert main(["data", "forget-guild", str(GUILD)]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 2
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM games").fetchone() == (0,)
    with pytest.raises(SystemExit):
        main(["data", "forget-user", "not-a-number"])
