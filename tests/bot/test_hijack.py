"""Nobody can hijack a table: buttons act only on the game and channel they were drawn for,
only players start a rematch, only the host seats AIs; forged payloads change nothing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import discord
import pytest

from fakediscord import Message
from tests.bot.conftest import World
from tests.bot.forge import forged_buttons, forged_slash
from tests.bot.helpers import WAIT, action_buttons, answered, current, lobby_closed, play_out


def db_actions(world: World) -> int:
    """How many actions the running games of the store hold."""
    sessions = sqlite3.connect(Path(world.bot.settings.lama_db))
    try:
        rows = sessions.execute("SELECT state FROM sessions").fetchall()
    finally:
        sessions.close()
    return sum(len((json.loads(r[0]).get("record") or {}).get("actions", [])) for r in rows)


async def open_table(world: World) -> Message:
    lobby = await answered(await world.ana.slash(world.table, "lama start", target=30))
    assert lobby is not None
    await world.ben.click(lobby, "Join")
    await world.ana.click(lobby, "Start")
    turn = await world.fake.notifier.wait_for(
        lambda: t if (t := current(world.table)) and t.user_id == world.ana.id else None,
        WAIT, "ana's turn",
    )
    assert turn.table is not None
    return turn.table


async def test_a_hand_kept_from_a_stopped_game_does_nothing_in_the_next(world: World) -> None:
    table = await open_table(world)
    old_hand = (await world.ana.click(table, "My hand")).message
    assert old_hand is not None and action_buttons(old_hand)
    await world.ana.slash(world.table, "lama stop")
    await open_table(world)  # the same players, the same seed: the same version numbers
    before = db_actions(world)
    draw = next(c for c in action_buttons(old_hand) if c.endswith(":draw"))
    reply = await world.ana.click(old_hand, draw)
    assert "out of date" in reply.message.text
    assert db_actions(world) == before, "the old game's button moved nothing in the new one"
    for custom_id in action_buttons(old_hand):
        assert len(custom_id) <= 100


async def test_buttons_of_the_first_format_get_a_clear_answer(world: World) -> None:
    """Buttons posted before the upgrade named the channel; they are answered, never used."""
    lobby = await answered(await world.ana.slash(world.table, "lama start"))
    assert lobby is not None
    channel = world.table.id
    old = forged_buttons(world.fake, world.table, [
        f"lama:v1:lobby:{channel}:join", f"lama:v1:hand:{channel}",
        f"lama:v1:act:{channel}:2:draw", f"lama:v1:rematch:{channel}:{'a' * 32}",
    ])
    for button in old.buttons:
        reply = await world.ben.click(old, button.custom_id)
        assert reply.ephemeral and "out of date" in reply.message.text
        assert "older version" in reply.message.text
    assert "ben" not in lobby.text, "the old Join button seated nobody"


async def test_a_lobby_button_acts_only_in_its_own_channel(world: World) -> None:
    lobby = await answered(await world.ana.slash(world.table, "lama start"))
    assert lobby is not None
    other = world.guild.add_text_channel("other")
    join = next(b.custom_id for b in lobby.buttons if b.custom_id.endswith(":join"))
    copied = forged_buttons(world.fake, other, [join, join.replace(":join", ":start")])
    reply = await world.ben.click(copied, join)
    assert reply.ephemeral and "closed" in reply.message.text
    assert "ben" not in lobby.text and world.bot.sessions.get(other.id) is None
    # and a lobby's button from an earlier lobby of the same channel is closed too
    await world.ana.click(lobby, "Cancel")
    fresh = await answered(await world.ana.slash(world.table, "lama start"))
    assert fresh is not None
    stale = forged_buttons(world.fake, world.table, [join])
    reply = await world.ben.click(stale, join)
    assert reply.ephemeral and "closed" in reply.message.text and "ben" not in fresh.text


async def finished_game(world: World) -> Message:
    lobby = await answered(await world.ana.slash(world.table, "lama start", target=8))
    assert lobby is not None
    await world.ana.click(lobby, "Add AI")
    await world.ana.click(lobby, "Start")
    return await play_out(world.fake, world.table, world.members)


async def test_only_a_player_starts_a_rematch_and_only_joiners_are_seated(world: World) -> None:
    final = await finished_game(world)
    rematch = next(b.custom_id for b in final.buttons if ":rematch:" in b.custom_id)
    refused = await world.ben.click(final, rematch)  # ben never played
    assert refused.ephemeral and "Only a player of that game" in refused.message.text
    assert world.bot.sessions.get(world.table.id) is None, "no lobby was opened"
    other = world.guild.add_text_channel("other")
    copied = forged_buttons(world.fake, other, [rematch])
    elsewhere = await world.ana.click(copied, rematch)
    assert elsewhere.ephemeral and world.bot.sessions.get(other.id) is None
    opened = await world.ana.click(final, rematch)
    lobby = opened.message
    assert lobby is not None and not opened.ephemeral
    session = world.bot.sessions.get(world.table.id)
    assert session is not None and session.host_id == world.ana.id
    assert [s.user_id for s in session.seats] == [world.ana.id], "only the starter is seated"
    await world.ben.click(lobby, "Join")
    assert [s.user_id for s in session.seats] == [world.ana.id, world.ben.id]


async def test_only_the_host_adds_and_removes_ai_seats(world: World) -> None:
    lobby = await answered(await world.ana.slash(world.table, "lama start"))
    assert lobby is not None
    await world.ben.click(lobby, "Join")
    added = await world.ben.click(lobby, "Add AI")
    assert added.ephemeral and "Only the host" in added.message.text
    assert "AI 1" not in lobby.text
    await world.ana.click(lobby, "Add AI")
    await world.ana.click(lobby, "Add AI")
    assert "AI 2" in lobby.text
    removed = await world.ben.click(lobby, "Remove AI")
    assert removed.ephemeral and "Only the host" in removed.message.text
    await world.ana.click(lobby, "Remove AI")
    assert "AI 1" in lobby.text and "AI 2" not in lobby.text
    await world.ana.click(lobby, "Remove AI")
    none_left = await world.ana.click(lobby, "Remove AI")
    assert none_left.ephemeral and "no AI seat" in none_left.message.text


async def test_a_host_who_left_cannot_start(world: World) -> None:
    lobby = await answered(await world.ana.slash(world.table, "lama start"))
    assert lobby is not None
    await world.ana.click(lobby, "Add AI")
    await world.ana.click(lobby, "Leave")
    alone = await world.ana.click(lobby, "Start")  # only an AI seated: ana left
    assert alone.ephemeral and "join it again" in alone.message.text
    await world.ben.click(lobby, "Join")
    await world.cleo.click(lobby, "Join")
    await world.ben.click(lobby, "Leave")
    refused = await world.ana.click(lobby, "Start")
    assert refused.ephemeral and "join it again" in refused.message.text
    await world.ana.click(lobby, "Join")
    started = await world.ana.click(lobby, "Start")
    assert not started.ephemeral, "back in their seat, the host starts"
    await lobby_closed(world.fake, lobby)


async def test_hosting_passes_to_a_seated_player_when_the_host_leaves(world: World) -> None:
    lobby = await answered(await world.ana.slash(world.table, "lama start"))
    assert lobby is not None
    await world.ben.click(lobby, "Join")
    await world.ana.click(lobby, "Leave")
    session = world.bot.sessions.get(world.table.id)
    assert session is not None and session.host_id == world.ben.id
    refused = await world.ana.click(lobby, "Add AI")
    assert refused.ephemeral and "Only the host" in refused.message.text
    await world.ben.click(lobby, "Add AI")
    assert "AI 1" in lobby.text


async def test_a_forged_action_is_not_called_a_move(world: World) -> None:
    table = await open_table(world)
    hand = (await world.ana.click(table, "My hand")).message
    assert hand is not None
    draw = next(c for c in action_buttons(hand) if c.endswith(":draw"))
    garbage = forged_buttons(world.fake, world.table, [draw.replace(":draw", ":xyzzy 9")],
                             to=world.ana)  # a hand's button: it acts only from a hand
    reply = await world.ana.click(garbage, garbage.buttons[0].custom_id)
    assert reply.ephemeral and "not a move" in reply.message.text
    assert "That move is not allowed now" not in reply.message.text


async def test_forged_slash_options_are_refused_and_open_nothing(world: World) -> None:
    cases = [
        ("start", {"variant": "bogus"}, "no rule set called"),
        ("start", {"target": 0}, "target must be a whole number from 1 to 500"),
        ("start", {"target": 501}, "target must be a whole number"),
        ("start", {"target": "many"}, "target must be a whole number"),
        ("start", {"variant": "tutorial", "rounds": 51}, "rounds must be a whole number"),
        ("start", {"turn_timeout": 5}, "A turn timeout is 0"),
        ("start", {"turn_timeout": "soon"}, "A turn timeout is 0"),
        ("rules", {"variant": "bogus"}, "no rule set called"),
        ("leaderboard", {"variant": "bogus"}, "no rule set called"),
        ("config turn_timeout", {"seconds": "x"}, "A turn timeout is 0"),
        ("config language", {"language": "xx"}, "no language"),
        ("stats", {"user": "12345"}, "user must be a member of this server"),
    ]
    for path, options, expected in cases:
        reply = await forged_slash(world.fake, world.ana, world.table, path, **options)
        text = reply.message.text if reply.message else ""
        assert reply.ephemeral and expected in text, (path, options, text)
        assert "That move is not allowed" not in text and "went wrong" not in text
    french = await forged_slash(world.fake, world.cleo, world.table, "start", target=0)
    assert "objectif doit être un nombre entier de 1 à 500" in french.message.text
    assert world.bot.sessions.get(world.table.id) is None and not world.table.messages
    assert await world.bot.store.guild_setting(world.guild.id, "language") is None


async def test_clicks_are_answered_without_rebuilding_the_clicked_view(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each click goes straight from its custom_id to the cog (bot/process/client.py): discord.py's
    own dynamic-item dispatch would rebuild the clicked message's View and every button."""
    rebuilt: list[object] = []
    original = discord.ui.View.from_message.__func__  # type: ignore[attr-defined]

    def counting(cls: type, message: object, **kwargs: object) -> object:
        rebuilt.append(message)
        return original(cls, message, **kwargs)

    monkeypatch.setattr(discord.ui.View, "from_message", classmethod(counting))
    table = await open_table(world)
    hand = (await world.ana.click(table, "My hand")).message
    assert hand is not None
    session = world.bot.sessions.get(world.table.id)
    assert session is not None and session.game is not None
    before = len(session.game.history)
    draw = next(c for c in action_buttons(hand) if c.endswith(":draw"))
    await world.ana.click(hand, draw)
    assert len(session.game.history) == before + 1, "the click's move landed"
    assert rebuilt == []
