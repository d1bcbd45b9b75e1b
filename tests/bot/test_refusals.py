"""Refusals: a short ephemeral answer, and nothing changes."""

from __future__ import annotations

from fakediscord import Message
from tests.bot.conftest import World
from tests.bot.helpers import action_buttons, answered, current, settled
from tests.bot.traffic import edits_of, message_body, table_round


async def start_game(world: World, variant: str = "classic") -> Message:
    reply = await world.ana.slash(world.table, "lama start", variant=variant, target=30)
    lobby = reply.message
    assert lobby is not None
    await world.ben.click(lobby, "Join")
    await world.ana.click(lobby, "Start")
    turn = await world.fake.notifier.wait_for(
        lambda: current(world.table), 5, "the table"
    )
    assert turn.table is not None and turn.user_id == world.ana.id
    return turn.table


async def test_lobby_refusals(world: World) -> None:
    reply = await world.ana.slash(world.table, "lama start")
    lobby = reply.message
    assert lobby is not None
    start = await world.ben.click(lobby, "Start")  # ben is not the host
    assert start.ephemeral and "Only the host" in start.message.text
    alone = await world.ana.click(lobby, "Start")
    assert alone.ephemeral and "2 to 6 players" in alone.message.text
    leave = await world.cleo.click(lobby, "Leave")
    assert leave.ephemeral and "ne jouez pas" in leave.message.text  # cleo reads French
    await world.ben.click(lobby, "Join")
    again = await world.ben.click(lobby, "Join")
    assert again.ephemeral and "already seated" in again.message.text
    second = await world.cleo.slash(world.table, "lama start", variant="dice")
    assert second.ephemeral and "déjà en cours" in second.message.text
    cancel = await world.ben.click(lobby, "Cancel")
    assert cancel.ephemeral and "Only the host" in cancel.message.text
    assert "ben" in lobby.text and lobby.buttons, "refusals changed nothing"
    await world.ana.click(lobby, "Cancel")
    assert not lobby.buttons and "Cancelled" in lobby.text
    fresh = await world.cleo.slash(world.table, "lama start", variant="dice")
    assert not fresh.ephemeral, "after a cancel the channel is free again"


async def test_table_refusals(world: World) -> None:
    table = await start_game(world)
    stranger = await world.cleo.click(table, "My hand")
    assert stranger.ephemeral and "ne jouez pas" in stranger.message.text  # French
    command = await world.cleo.slash(world.table, "lama hand")
    assert command.ephemeral and "ne jouez pas" in command.message.text

    waiting = (await world.ben.click(table, "My hand")).message
    assert waiting is not None and "Waiting for ana" in waiting.text
    assert not action_buttons(waiting), "no actions out of turn"

    first = (await world.ana.click(table, "My hand")).message
    second = await answered(await world.ana.slash(world.table, "lama hand"))
    assert first is not None and second is not None
    assert action_buttons(first) == action_buttons(second)
    draw = next(c for c in action_buttons(first) if c.endswith(":draw"))
    done = await world.ana.click(first, draw)
    assert "Waiting for ben" in (await settled(done)).text
    stale = await world.ana.click(second, draw)
    assert stale.type == 7 and "out of date" in stale.message.text
    assert not action_buttons(stale.message)
    # the table follows the game (its edits wait for Discord's limits): it shows ben to act
    turn = await world.fake.notifier.wait_for(
        lambda: t if (t := current(world.table)) and t.user_id == world.ben.id else None,
        5, "the table after ana's draw")
    assert turn.table is not None
    hand_sizes = [line for line in turn.table.text.split("\n") if "**ana**" in line]
    assert "7 cards" in hand_sizes[0], "the stale click drew nothing"


async def test_stop_needs_host_or_moderator(world: World) -> None:
    table = await start_game(world)
    refused = await world.ben.slash(world.table, "lama stop")
    assert refused.ephemeral and "host or a moderator" in refused.message.text
    game_id = world.bot.sessions.require(world.table.id).game_id
    stopped = await world.mod.slash(world.table, "lama stop")
    assert not stopped.ephemeral and "counts for nobody" in stopped.message.text
    stored = await world.bot.store.game(world.guild.id, game_id)
    assert stored is not None and stored["end_reason"] == "stopped"
    await world.fake.notifier.wait_for(
        lambda: True if not table.buttons else None, 5, "the table to lose its buttons"
    )
    assert "counts for nobody" in table.text
    late = await world.ana.slash(world.table, "lama hand")
    assert late.ephemeral and "no L.A.M.A. game" in late.message.text
    cursor = await world.bot.store.db.execute("SELECT status FROM games")  # type: ignore[attr-defined]
    assert [row[0] for row in await cursor.fetchall()] == ["abandoned"]
    board = await world.ana.slash(world.table, "lama leaderboard")
    assert "No finished games" in board.message.text


async def test_the_table_post_notifies_the_humans_then_its_edits_ping_nobody(
    world: World,
) -> None:
    """Nobody's hand is open at the start: the table's post notifies every human, never the
    AI, and no ping is posted besides. Then it is edited in place all round long, pinging
    nobody (the ping is its own message, bot/policies/timers.py)."""
    lobby = await answered(await world.ana.slash(world.table, "lama start", target=30))
    assert lobby is not None
    await world.ben.click(lobby, "Join")
    await world.ana.click(lobby, "Add AI")
    await world.ana.click(lobby, "Start")
    turn = await world.fake.notifier.wait_for(lambda: current(world.table), 5, "the table")
    assert turn.table is not None
    humans = sorted([world.ana.id, world.ben.id])
    assert sorted(turn.table.pinged) == humans, "the post notified the humans"
    posts = [message_body(e["body"]) for e in world.fake.entries  # (the table: the Start
             if e.get("kind") == "rest" and e.get("method") == "POST"  # click's answer)
             and (e["path"].endswith("/messages") or e["path"].endswith("/callback"))]
    [table] = [p for p in posts if table_round(p) is not None]
    allowed = table["allowed_mentions"]
    assert allowed["parse"] == [] and sorted(int(u) for u in allowed["users"]) == humans
    assert "your game is on" in table["components"][0]["content"], "its turn line"
    assert not any("⏰" in str(p.get("content")) for p in posts), "no ping at the start"
    while turn.user_id not in (world.ana.id, world.ben.id):  # (the AI may play first)
        turn = await world.fake.notifier.wait_for(
            lambda seen=turn.stamp: t if (t := current(world.table)) is not None
            and t.stamp != seen else None, 5, "the table to change")
    member = world.ana if turn.user_id == world.ana.id else world.ben
    assert turn.table is not None
    hand = (await member.click(turn.table, "My hand")).message
    assert hand is not None
    seen = turn.stamp
    await member.click(hand, next(c for c in action_buttons(hand) if ":act:" in c))
    await world.fake.notifier.wait_for(
        lambda: t if (t := current(world.table)) is not None and t.stamp != seen else None,
        5, "the table edited")
    edits = edits_of(world.fake, turn.table)  # (through the Start click's token: round 1)
    assert edits, "the table is edited in place"
    assert all(not e["allowed_mentions"].get("users") for e in edits), "edits ping nobody"


async def test_host_stops_a_lobby(world: World) -> None:
    lobby = await answered(await world.ana.slash(world.table, "lama start", variant="tutorial"))
    assert lobby is not None and lobby.buttons
    stopped = await world.ana.slash(world.table, "lama stop")
    assert not stopped.ephemeral
    await world.fake.notifier.wait_for(
        lambda: True if not lobby.buttons else None, 5, "the lobby to close"
    )
    assert "counts for nobody" in lobby.text
    assert await world.bot.store.sessions(world.guild.id) == []
