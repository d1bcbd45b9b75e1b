"""Privacy through the fake Discord and a real SQLite file: ``/lama forget-me`` leaves no
byte of the member behind while the others' games still replay; ``/lama mydata``;
``/lama privacy``; the grace period after leaving a server; the retention of games."""

from __future__ import annotations

import asyncio
import gzip
import json
import sqlite3
from pathlib import Path

from bot.ladder.results import SeatResult
from bot.policies.forgetting import DAY, sweep
from bot.store.privacy import packed
from fakediscord import Member
from game import Game, from_dict, player_view, replay, to_dict
from tests.bot.conftest import World
from tests.bot.forge import forged_buttons
from tests.bot.helpers import answered

NAME = "Zorblaxquux"  # distinctive: found in the file's bytes only if something kept it


async def finished_game(world: World, number: int, people: list[Member]) -> dict[str, object]:
    """A whole game played by the engine, stored as the bot stores a finished game."""
    names = [m.name for m in people]
    game = Game("classic", names, {"target": 8}, seed=number)
    while not game.finished:
        game.apply(game.to_act, game.legal_actions()[0])
    view = player_view(game, None)
    doc = {"game_id": f"{number:032x}", "variant": "classic", "seed": str(number),
           "record": to_dict(game), "started_at": 0.0,
           "seats": [{"user_id": m.id, "name": m.name} for m in people]}
    results = [SeatResult(s.seat, people[s.seat].id, s.name, s.score, s.seat in view.winners)
               for s in view.seats]
    await world.bot.store.finish_game(world.guild.id, world.table.id, doc, results)
    return doc


def file_bytes(path: Path) -> bytes:
    """The database file after its log is copied in and truncated (the log's bytes too)."""
    with sqlite3.connect(path) as conn:
        busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        assert busy == 0
    wal = Path(f"{path}-wal")
    return path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")


def traces(data: bytes, member: Member) -> list[str]:
    found = []
    for label, needle in (("id as text", str(member.id).encode()),
                          ("id big-endian", member.id.to_bytes(8, "big")),
                          ("id little-endian", member.id.to_bytes(8, "little")),
                          ("name", NAME.encode()), ("name (UTF-16)", NAME.encode("utf-16-le"))):
        if needle in data:
            found.append(label)
    return found


async def test_forget_me_leaves_no_byte_and_the_others_games_replay(world: World) -> None:
    zeb = world.guild.add_member(NAME)
    ana, ben = world.ana, world.ben
    db = Path(world.bot.settings.lama_db)
    kept = await finished_game(world, 1, [zeb, ana])
    await finished_game(world, 2, [ana, ben])
    # a running game: zeb hosts, ana joins
    lobby = await answered(await zeb.slash(world.table, "lama start", variant="classic"))
    assert lobby is not None
    await ana.click(lobby, "Join")
    await zeb.click(lobby, "Start")
    session = world.bot.sessions.require(world.table.id)
    assert session.status.value == "playing"
    assert traces(file_bytes(db), zeb), "the test's member is in the file before"

    asked = await zeb.slash(world.table, "lama forget-me")
    assert asked.ephemeral and asked.message is not None
    assert "cannot be undone" in asked.message.text
    yes = next(b.custom_id for b in asked.message.buttons if b.label == "Yes, forget me")
    forged = forged_buttons(world.fake, world.table, [yes])  # zeb's button, clicked by ana
    refused = await ana.click(forged, yes)
    assert refused.ephemeral and refused.message is not None
    assert "Only the member who asked" in refused.message.text
    done = await zeb.click(asked.message, "Yes, forget me")
    assert done.type in (6, 7)
    await world.fake.notifier.wait_for(
        lambda: next((m for m in world.table.messages
                      if "asked lama to forget them" in (m.content or "")), None),
        10, "the table's note")

    seat = session.seats[0]
    assert (seat.user_id, seat.name, seat.is_ai) == (None, "Player 1", True)
    assert session.host_id == ana.id, "hosting passed to the other human"
    assert session.game is not None and session.game.players[0] == "Player 1"
    data = file_bytes(db)
    assert traces(data, zeb) == [], "nothing of the member is left in the file"
    # the others' games are whole and replay; zeb's seat has a neutral name
    stored = await world.bot.store.game(world.guild.id, str(kept["game_id"]))
    assert stored is not None
    assert stored["record"]["players"] == ["Player 1", "ana"]
    result = replay(from_dict(stored["record"]))
    assert result.error is None and result.game.finished
    assert [g.game_id for g in await world.bot.store.player_games(world.guild.id, ana.id)] \
        == [f"{1:032x}", f"{2:032x}"], "ana keeps her results"
    assert await world.bot.store.player_games(world.guild.id, zeb.id) == []
    board = await world.bot.store.standings(world.guild.id, "classic")
    assert {s.user_id for s in board} == {ana.id, ben.id}
    export = await world.bot.store.export_user(zeb.id)
    assert not (export["games"] or export["results"] or export["ratings"] or export["running"])


async def test_forget_me_answered_no_deletes_nothing(world: World) -> None:
    await finished_game(world, 1, [world.ana, world.ben])
    asked = await answered(await world.ana.slash(world.table, "lama forget-me"))
    assert asked is not None
    answer = await world.ana.click(asked, "No, keep my data")
    assert answer.type == 7 and "Nothing was deleted" in asked.text and not asked.buttons
    assert len(await world.bot.store.player_games(world.guild.id, world.ana.id)) == 1


async def test_mydata_is_a_compressed_file_of_everything_kept(world: World) -> None:
    world.fake.keep_files = True
    await finished_game(world, 1, [world.ana, world.ben])
    reply = await answered(await world.ana.slash(world.table, "lama mydata"))
    assert reply is not None and reply.ephemeral_to is world.ana
    assert [a["filename"] for a in reply.attachments] == ["lama-mydata.json.gz"]
    document = json.loads(gzip.decompress(world.fake.files[int(reply.attachments[0]["id"])]))
    assert document["user_id"] == str(world.ana.id)
    assert [r["game_id"] for r in document["results"]] == [f"{1:032x}"]
    assert document["games"][0]["record"]["players"] == ["ana", "ben"]
    assert "truncated" not in document and "cut" not in reply.text
    french = await answered(await world.cleo.slash(world.table, "lama mydata"))
    assert french is not None and "JSON" in french.text and "Tout ce que" in french.text


def test_mydata_is_cut_below_the_cap_with_a_note() -> None:
    record = {"players": ["a", "b"], "actions": [{"player": "a", "type": "draw",
                                                  "pad": f"{i:08x}" * 40} for i in range(400)]}
    document = {"user_id": "1", "results": [], "ratings": [], "running": [],
                "games": [{"game_id": str(i), "record": record} for i in range(30)]}
    whole, none_left_out = packed(document, cap=10**9)
    assert none_left_out == 0
    blob, left_out = packed(document, cap=len(whole) // 3)
    assert len(blob) <= len(whole) // 3 and left_out > 0
    cut = json.loads(gzip.decompress(blob))
    assert cut["truncated"]["left_out"] == left_out
    assert cut["games"][-1]["record"] is not None, "the newest records are kept"
    assert cut["games"][0]["record"] is None


async def test_privacy_text_in_the_members_language(world: World) -> None:
    reply = await answered(await world.ana.slash(world.table, "lama privacy"))
    assert reply is not None and reply.ephemeral_to is world.ana
    text = reply.text
    assert "/lama forget-me" in text and "/lama mydata" in text
    assert "out of lama's reach" in text and "rotate" in text
    assert "has not given a contact" in text, "the default when no contact is set"
    assert "30 days" in text
    french = await answered(await world.cleo.slash(world.table, "lama privacy"))
    assert french is not None and "Confidentialité" in french.text


async def test_a_server_left_is_deleted_after_the_grace_unless_the_bot_came_back(
        world: World) -> None:
    store, now = world.bot.store, world.clock.now()
    # the bot's on_ready listeners first: the privacy cog's clears the mark of every server
    # the bot is in (it would otherwise clear the one set below, if it ran later)
    await asyncio.gather(*(task for task in asyncio.all_tasks()
                           if task.get_name() == "discord.py: on_ready"))
    await finished_game(world, 1, [world.ana, world.ben])
    other = world.fake.add_guild("Elsewhere")
    await store.set_guild_setting(other.id, "language", "de")
    await store.note_guild_left(world.guild.id, now)
    await store.note_guild_left(other.id, now)
    assert await sweep(store, now + 29 * DAY, 30, None) == {"guilds": 0, "games": 0}
    await store.note_guild_left(other.id, None)  # the bot came back to it in time
    assert await sweep(store, now + 30 * DAY, 30, None) == {"guilds": 1, "games": 0}
    assert await store.player_games(world.guild.id, world.ana.id) == []
    assert await store.guild_setting(other.id, "language") == "de"
    assert await store.left_guilds() == {}


async def test_games_older_than_the_retention_are_pruned(world: World) -> None:
    await finished_game(world, 1, [world.ana, world.ben])
    await finished_game(world, 2, [world.ana, world.ben])
    ended = {g.game_id: g.ended_at
             for g in await world.bot.store.player_games(world.guild.id, world.ana.id)}
    first = ended[f"{1:032x}"]
    db = Path(world.bot.settings.lama_db)
    with sqlite3.connect(db) as conn:  # the first game ended 100 days earlier
        conn.execute("UPDATE games SET ended_at = ? WHERE game_id = ?",
                     (first - 100 * DAY, f"{1:032x}"))
    assert await sweep(world.bot.store, first, 30, None) == {"guilds": 0, "games": 0}
    assert await sweep(world.bot.store, first, 30, 90) == {"guilds": 0, "games": 1}
    left = await world.bot.store.player_games(world.guild.id, world.ana.id)
    assert [g.game_id for g in left] == [f"{2:032x}"]
    assert await world.bot.store.game(world.guild.id, f"{1:032x}") is None
