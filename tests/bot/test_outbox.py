"""What was committed is always shown: ``python -m bot`` killed (SIGKILL) in every window
between a commit and the messages it owes shows them exactly once after a restart.

The kills land on fault points (bot/common/faults.py), not on timing luck. Each case plays in
its own channel; the process that serves case k first recovers case k-1 (one process
per case, all on one database).

One kill per window of the write/deliver protocol: after the commit, before anything is
shown; and after each owed message is shown (``delivered:``: Discord has it, its mark is not
stored yet, so the next process delivers it again and must meet its nonce or edit in place).
A kill at ``deliver:X``, just before X's request, leaves Discord and the store as the point
before it does (the commit, or the previous item's ``delivered:``), so it is not a case
of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import signal
import sqlite3
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import pytest

from fakediscord import FakeDiscord, Member, Message, TextChannel
from tests import forkserver
from tests.bot.helpers import KILLED_CLICK, WAIT, answered, card, current, is_final, is_table
from tests.bot.test_kill import START, STOP, bot_process, sound

END = "end"  # the last move of a game: round summary, finished table, final standings
ROUND = "round"  # a move that ends a round: round summary, the next round's table
LOBBY = "lobby"  # /lama start: the lobby's first message
STARTED = "started"  # the Start click: its answer is the first table; the lobby shows the start
CASES = [
    # the game's end: nothing shown, the summary (an event: its nonce), the finished table
    # (a state: edited in place), the standings (the last event)
    (END, "commit:standings"), (END, "delivered:summary"), (END, "delivered:table#3"),
    (END, "delivered:standings"),
    # mid-round: the points Discord can tell apart (nothing shown, the summary, both)
    (ROUND, "commit:summary"), (ROUND, "delivered:summary"), (ROUND, "delivered:table#3"),
    (LOBBY, "commit:lobby"), (LOBBY, "delivered:lobby"),
    # the start: committed, not answered (the channel posts the table, finding no answer);
    # answered, its mark not stored (the answer is adopted: one table, no post)
    (STARTED, "commit:table"), (STARTED, "delivered:table"),
]
TITLE = re.compile(r": round (\d+)$")


def titled(channel: TextChannel, pattern: str) -> list[Message]:
    return [m for m in channel.messages if re.search(pattern, card(m).title or "")]


def tables(channel: TextChannel) -> list[Message]:
    """Every table message in the channel, live or finished."""
    return [m for m in channel.messages if TITLE.search(card(m).title or "")]


def shown(kind: str, channel: TextChannel) -> bool:
    """The channel shows everything the case owes (a wait predicate)."""
    if kind == LOBBY:
        return bool(titled(channel, "new game$"))
    if kind == STARTED:
        lobby = titled(channel, "new game$")
        return bool(lobby) and not lobby[0].buttons and any(is_table(t) for t in tables(channel))
    if not titled(channel, "^Round 1 is over$"):
        return False
    if kind == END:
        finished = [t for t in tables(channel) if not t.buttons]
        return bool(finished) and any(is_final(m) for m in channel.messages)
    turn = current(channel)
    return turn is not None and turn.table is not None and (card(turn.table).title or "").endswith(
        "round 2") and turn.user_id is not None


def assert_shown_once(kind: str, channel: TextChannel) -> None:
    assert shown(kind, channel), (kind, channel.messages)
    if kind == LOBBY:
        assert len(titled(channel, "new game$")) == 1, channel.messages
        return
    if kind == STARTED:
        [lobby] = titled(channel, "new game$")
        assert not lobby.buttons, "the lobby shows the start"
        assert len(tables(channel)) == 1 and is_table(tables(channel)[0]), channel.messages
        return
    assert len(titled(channel, "^Round 1 is over$")) == 1, channel.messages
    assert len(tables(channel)) == 1, f"one table: {tables(channel)}"
    if kind == END:
        assert len([m for m in channel.messages if is_final(m)]) == 1, channel.messages
        assert not tables(channel)[0].buttons, "the finished table has no buttons"
    else:
        assert not [m for m in channel.messages if is_final(m)]
        assert is_table(tables(channel)[0])


async def until_dead(process: forkserver.Process, work: Awaitable[Any]) -> Any:
    """Run a user's action until it is answered or the bot process died (then None)."""
    task = asyncio.ensure_future(work)
    death = asyncio.ensure_future(process.wait())
    await asyncio.wait({task, death}, return_when=asyncio.FIRST_COMPLETED)
    death.cancel()
    if not task.done():  # the fake gives up on a click nobody answers after its 3 s
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
        return None
    with contextlib.suppress(Exception):
        return await task
    return None


async def quit_turn(fake: FakeDiscord, channel: TextChannel, members: dict[int, Member],
                    process: forkserver.Process, seen: tuple[int, int] | None
                    ) -> tuple[int, int] | None:
    """The player to act quits the round (or the process dies meanwhile)."""
    turn = await fake.notifier.wait_for(
        lambda: t if (t := current(channel)) is not None and t.user_id is not None
        and t.stamp != seen else None, WAIT, "a player's turn")
    member = members[turn.user_id]  # type: ignore[index]
    hand = await until_dead(process, member.click(turn.table, "My hand"))
    if hand is None or process.returncode is not None:
        return None
    asked = await until_dead(process, member.click(hand.message, next(
        b.custom_id for b in hand.message.buttons if b.custom_id.endswith(":quit"))))
    if asked is None or asked.message is None or process.returncode is not None:
        return None
    await until_dead(process, member.click(asked.message, next(  # Quit asks first: yes
        b.custom_id for b in asked.message.buttons
        if ":act:" in b.custom_id and b.custom_id.endswith(":quit"))))
    return turn.stamp


async def play_case(fake: FakeDiscord, kind: str, channel: TextChannel,
                    members: dict[int, Member], process: forkserver.Process) -> None:
    """Play the case's moves until the fault point kills the process."""
    ana, ben = members.values()
    target = 1 if kind == END else 300
    reply = await until_dead(process, ana.slash(channel, "lama start", target=target))
    if kind == STARTED:
        assert reply is not None
        lobby = await answered(reply)
        await ben.click(lobby, "Join")
        await until_dead(process, ana.click(lobby, "Start"))
    elif kind != LOBBY:
        assert reply is not None
        lobby = await answered(reply)
        await ben.click(lobby, "Join")
        await ana.click(lobby, "Start")
        seen = await quit_turn(fake, channel, members, process, None)
        await quit_turn(fake, channel, members, process, seen)
    await asyncio.wait_for(process.wait(), STOP)
    assert process.returncode == -signal.SIGKILL, "killed at its fault point"


@pytest.mark.slow  # bot processes killed at each point
async def test_killed_between_a_commit_and_its_messages_it_shows_them_exactly_once(
    tmp_path: Path,
) -> None:
    db, log = tmp_path / "lama.db", tmp_path / "bot.log"
    async with FakeDiscord(token="fake.outbox-test-token",
                           interaction_timeout=KILLED_CLICK) as fake:
        guild = fake.add_guild("Lama Club")
        members = {m.id: m for m in (guild.add_member("ana"), guild.add_member("ben"))}
        channels = [guild.add_text_channel(f"case-{i}") for i in range(len(CASES))]
        previous: tuple[str, TextChannel] | None = None
        for (kind, point), channel in zip(CASES, channels, strict=True):
            name, _, count = point.partition("#")
            fault = f"{name}@{channel.id}" + (f"#{count}" if count else "")
            syncs = fake.command_syncs
            async with bot_process(fake, db, log, fault) as process:
                if previous is None:
                    await fake.notifier.wait_for(
                        lambda s=syncs: True if fake.command_syncs > s else None, START,
                        "the command sync")
                else:  # this process first shows what the killed one owed (a repost
                    # retires the older table just after: checked once all is quiet, below);
                    # START: a net for a process just started, not a speed check (at a load
                    # of 12 on two cores, 10 s after identifying was not always enough)
                    await fake.notifier.wait_for(
                        lambda p=previous: True if shown(*p) else None, START,
                        f"{previous[0]} to be shown after the restart")
                await play_case(fake, kind, channel, members, process)
            previous = (kind, channel)
        async with bot_process(fake, db, log) as last:
            await fake.notifier.wait_for(lambda: True if shown(*previous) else None, START,
                                         "the last case to be shown")
            last.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(last.wait(), STOP) == 0, log.read_text()
        for (kind, point), channel in zip(CASES, channels, strict=True):
            assert_shown_once(kind, channel)
            if kind == STARTED:  # answered before the kill: that answer, adopted; else posted
                answer = tables(channel)[0].interaction_metadata
                assert bool(answer) == (point == "delivered:table"), (point, channel.messages)
        assert not fake.failures or all("no answer" in f.reason for f in fake.failures)
    await sound(db)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM outbox").fetchone()[0] == 0, "nothing owed"
        finished = conn.execute("SELECT COUNT(*) FROM games WHERE status = 'finished'")
        assert finished.fetchone()[0] == sum(kind == END for kind, _ in CASES)


async def test_sigterm_lets_the_answer_under_way_finish_and_drops_nothing(tmp_path: Path) -> None:
    db, log = tmp_path / "lama.db", tmp_path / "bot.log"
    async with FakeDiscord(token="fake.sigterm-test-token",
                           interaction_timeout=KILLED_CLICK) as fake:
        guild = fake.add_guild("Lama Club")
        ana, ben = guild.add_member("ana"), guild.add_member("ben")
        channel = guild.add_text_channel("lama")
        syncs = fake.command_syncs
        # SIGTERM arrives right after the first move's commit, before its answer
        async with bot_process(fake, db, log, f"commit:table@{channel.id}#2",
                               LAMA_FAULT_SIGNAL="TERM") as process:
            await fake.notifier.wait_for(lambda: True if fake.command_syncs > syncs else None,
                                         START, "the command sync")
            lobby = await answered(await ana.slash(channel, "lama start", target=300))
            assert lobby is not None
            await ben.click(lobby, "Join")
            await ana.click(lobby, "Start")
            turn = await fake.notifier.wait_for(
                lambda: t if (t := current(channel)) and t.user_id else None, WAIT, "a turn")
            member = {ana.id: ana, ben.id: ben}[turn.user_id]  # type: ignore[index]
            hand = (await member.click(turn.table, "My hand")).message  # type: ignore[arg-type]
            assert hand is not None
            asked = (await member.click(hand, next(
                b.custom_id for b in hand.buttons if b.custom_id.endswith(":quit")))).message
            assert asked is not None  # Quit asks first: yes
            answer = await member.click(asked, next(
                b.custom_id for b in asked.buttons
                if ":act:" in b.custom_id and b.custom_id.endswith(":quit")))
            assert answer.type == 7, "the move under way is answered"
            assert await asyncio.wait_for(process.wait(), STOP) == 0, log.read_text()
        shown = current(channel)
        assert shown is not None and shown.user_id not in (None, turn.user_id), \
            "the table shows the move (the other player's turn)"
        assert "quit" in (shown.table.text if shown.table else "")
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM outbox").fetchone()[0] == 0, "nothing owed"
        assert conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0] == 0, \
            "the running game was folded into one snapshot"
        state = json.loads(conn.execute("SELECT state FROM sessions").fetchone()[0])
    assert len(state["record"]["actions"]) == 1
    await sound(db)
