"""A restarted bot serves every lobby and game again; buttons drawn before keep working."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from bot import Settings, create_bot
from bot.process.client import LamaBot
from fakediscord import FakeDiscord, InteractionResult, Member, Message, TextChannel
from tests.bot.conftest import make_settings
from tests.bot.helpers import (
    WAIT,
    Chooser,
    Turn,
    action_buttons,
    answered,
    current,
    first_button,
    is_table,
    play_out,
    settled,
)


async def take_turn(
    fake: FakeDiscord,
    channel: TextChannel,
    members: dict[int, Member],
    choose: Chooser = first_button,
    wait: float = WAIT,
) -> InteractionResult | None:
    """The next human to act opens My hand and makes one move; returns once the table showed
    it (None when the game is over). Stale tables (an AI still moving) are waited out.
    ``wait``: the net for each table change (longer for a process just restarted, whose
    first standings import the chart library: over 10 s at a load of 14 on two cores)."""
    seen: tuple[int, int] | None = None
    while True:
        turn = await fake.notifier.wait_for(changed(channel, seen), wait, "the table to change")
        if turn.final is not None:
            return None
        seen = turn.stamp
        if turn.user_id is None or turn.table is None:
            continue
        member = members[turn.user_id]
        hand = (await member.click(turn.table, "My hand")).message
        assert hand is not None
        if not (action_buttons(hand) or hand.selects):
            continue  # the table was behind: wait for its next state
        custom_id, value = choose(member, hand)
        if value is None:
            result = await member.click(hand, custom_id)
        else:
            result = await member.select(hand, value, custom_id=custom_id)
        hand = await settled(result)
        if any(b.label == "Yes, quit" for b in hand.buttons):  # Quit asks first
            result = await member.click(hand, "Yes, quit")
            await settled(result)
        await fake.notifier.wait_for(changed(channel, seen), wait, "the table to show the move")
        return result


def changed(channel: TextChannel, seen: tuple[int, int] | None) -> Callable[[], Turn | None]:
    """A wait predicate: the table's state, once it is not ``seen`` any more."""
    return lambda: t if (t := current(channel)) is not None and t.stamp != seen else None


def stored_actions(db: Path, channel_id: int | None = None) -> list[tuple[int, str]]:
    """A running game's actions as the database holds them right now: its snapshot's
    record, then the move rows appended since (``(seat, action)``; [] without a game)."""
    import json

    from game import from_dict

    where, params = ("WHERE channel_id = ?", (channel_id,)) if channel_id else ("", ())
    with sqlite3.connect(db) as conn:
        row = conn.execute(f"SELECT channel_id, state FROM sessions {where}", params).fetchone()
        if row is None:
            return []
        moves = conn.execute("SELECT seat, action FROM moves WHERE channel_id = ? ORDER BY id",
                             (row[0],)).fetchall()
    record = json.loads(row[1])["record"]
    if record is None:
        return []
    actions = [(seat, str(action)) for seat, action in from_dict(record).actions]
    return actions + [(seat, action) for seat, action in moves if action is not None]


class Table:
    """A fake Discord with ana and ben in #lama; bots come and go against one database."""

    def __init__(self, fake: FakeDiscord, settings: Settings) -> None:
        self.fake = fake
        self.settings = settings
        self.guild = fake.add_guild("Lama Club")
        self.channel = self.guild.add_text_channel("lama")
        self.ana = self.guild.add_member("ana")
        self.ben = self.guild.add_member("ben")
        self.members = {m.id: m for m in (self.ana, self.ben)}

    def bot(self, **overrides: object) -> LamaBot:
        values = dict(self.settings.model_dump(), **overrides)
        values["discord_token"] = "unused"
        return create_bot(Settings(_env_file=None, **values))  # type: ignore[arg-type]

    async def start_game(self, variant: str = "classic", ai: bool = False) -> None:
        """A game to 1 point: one round (every test's restarts and kills fall in its first
        round; playing more rounds after them proved nothing more and cost most of the time)."""
        lobby = await answered(await self.ana.slash(self.channel, "lama start", variant=variant,
                                                    target=1))
        assert lobby is not None
        await self.ben.click(lobby, "Join")
        if ai:
            await self.ana.click(lobby, "Add AI")
        await self.ana.click(lobby, "Start")


@pytest.fixture
async def club(tmp_path: Path) -> AsyncIterator[Table]:
    async with FakeDiscord() as fake:
        yield Table(fake, make_settings(tmp_path))
        assert not fake.failures, fake.failures
        assert not fake.refusals, fake.refusals


def last_table(channel: TextChannel) -> Message:
    turn = current(channel)
    assert turn is not None and turn.table is not None
    return turn.table


@pytest.mark.slow  # restarts the bot and plays a whole game
async def test_buttons_posted_before_a_restart_work_after_it(club: Table) -> None:
    fake = club.fake
    async with fake.run(club.bot()):
        await club.start_game()
        for _ in range(3):
            await take_turn(fake, club.channel, club.members)
        table = last_table(club.channel)
        to_act = club.members[current(club.channel).user_id]  # type: ignore[union-attr, index]
        hand = (await to_act.click(table, "My hand")).message  # posted by the first process
        assert hand is not None and action_buttons(hand)
        edits = table.edits
    assert len(stored_actions(Path(club.settings.lama_db))) == 3

    async with fake.run(club.bot(), sync=False):
        await fake.notifier.wait_for(
            lambda: True if table.edits > edits else None, WAIT, "the table to be refreshed"
        )
        assert current(club.channel).table is table, "refreshed in place, not reposted"  # type: ignore[union-attr]
        assert table.buttons and "your turn" in table.text
        clicked = await to_act.click(hand, action_buttons(hand)[0])
        assert await settled(clicked) is hand
        assert len(stored_actions(Path(club.settings.lama_db))) == 4
        final = await play_out(fake, club.channel, club.members)
        assert "ana" in final.text and "ben" in final.text


@pytest.mark.slow  # restarts the bot
async def test_an_ai_turn_resumes_after_a_restart(club: Table) -> None:
    fake = club.fake
    db = Path(club.settings.lama_db)
    async with fake.run(club.bot(lama_ai_delay=600)):  # the AI would think for 10 minutes
        await club.start_game(ai=True)
        while True:
            await take_turn(fake, club.channel, club.members)
            turn = current(club.channel)
            assert turn is not None and turn.final is None
            if turn.user_id is None:
                break  # the AI is to act, and the bot stops now
        waiting = len(stored_actions(db))
    async with fake.run(club.bot(), sync=False):
        await fake.notifier.wait_for(
            lambda: True if len(stored_actions(db)) > waiting else None, WAIT,
            "the AI to play on by itself",
        )
        await play_out(fake, club.channel, club.members)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT status, end_reason FROM games").fetchall() == [
            ("finished", "finished")
        ]


@pytest.mark.slow  # restarts the bot
async def test_a_lobby_is_restored_and_its_buttons_work(club: Table) -> None:
    fake = club.fake
    async with fake.run(club.bot()):
        lobby = await answered(await club.ana.slash(club.channel, "lama start", variant="dice",
                                                    target=1))  # (one round)
        assert lobby is not None
        await club.ben.click(lobby, "Join")
    async with fake.run(club.bot(), sync=False):
        await club.ana.click(lobby, "Add AI")
        assert "AI 1" in lobby.text and "ben" in lobby.text, "ben's seat survived"
        await club.ana.click(lobby, "Start")
        final = await play_out(fake, club.channel, club.members)
        assert "AI 1" in final.text


@pytest.mark.slow  # restarts the bot
async def test_a_deleted_table_is_posted_again(club: Table) -> None:
    fake = club.fake
    bot = club.bot()
    async with fake.run(bot):
        await club.start_game("kadabra")
        first = await fake.notifier.wait_for(
            lambda: t.table if (t := current(club.channel)) else None, WAIT, "the first table"
        )
        edits = first.edits
        await take_turn(fake, club.channel, club.members)
        table = await fake.notifier.wait_for(
            lambda: first if first.edits > edits and len(
                [m for m in club.channel.messages if is_table(m)]) == 1 else None, WAIT,
            "the table to be edited in place",
        )
        await bot.sessions.outbox.deliver(club.channel.id)  # the edit under way is done
    fake.publish_delete(table)  # a moderator cleaned the channel while the bot was away
    async with fake.run(club.bot(), sync=False):
        fresh = await fake.notifier.wait_for(
            lambda: t.table if (t := current(club.channel)) and t.table else None, WAIT,
            "a new table",
        )
        assert fresh is not table and "your turn" in fresh.text
        assert "played" in fresh.text or "drew" in fresh.text, "recent moves are shown again"
        await play_out(fake, club.channel, club.members)
    via = {f"/messages/{table.id}"} | {  # (round 1: the Start click's token, kept over
        f"/{t}/messages/@original" for t, i in fake.tokens.items() if i.original is table}
    gone = [r for r in fake.refusals if r.path.endswith(tuple(via))]  # the restart)
    assert [(r.method, r.code) for r in gone] == [("PATCH", 10008)], "tried the edit once"
    fake.refusals.remove(gone[0])
