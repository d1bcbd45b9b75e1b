"""A relaxed game over five simulated days (issue 31), through the fake Discord as its players
see it: turns of 24 hours on the manual clock, two restarts of the bot in between, the game
in its own thread (made from the lobby message; restored there after each restart), each turn
mentioned once in the thread, one reminder when a quarter of the turn is left, DMs
to the one player who opted in (at most one per turn; none after Discord's 50007 until they
opt in again), three missed turns handing a seat to an AI and My hand taking it back, and
the standings at the end, in the thread and in the channel, and the thread archived."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from bot import create_bot
from bot.common.clock import ManualClock
from bot.process.client import LamaBot
from fakediscord import FakeDiscord, Member, Message, TextChannel
from fakediscord.threads import Thread
from tests.bot.conftest import make_settings
from tests.bot.helpers import (
    WAIT,
    action_buttons,
    answered,
    card,
    current,
    first_button,
    is_final,
    is_table,
    settled,
)

HOUR = 3600.0
DAY = 24 * HOUR
TURN_NOTE = re.compile(r"^🔔 <@(\d+)>, it is your turn\.")
REMINDER = re.compile(r"^⏰ <@(\d+)>, it is still your turn: a quarter")


def turn_notes(channel: TextChannel) -> list[Message]:
    return [m for m in channel.messages if TURN_NOTE.match(m.content or "")]


def reminders(channel: TextChannel) -> list[Message]:
    return [m for m in channel.messages if REMINDER.match(m.content or "")]


def final_of(channel: TextChannel) -> Message | None:
    return next((m for m in channel.messages if is_final(m)), None)


class Players:
    """The three players of #lama and the bot of the moment."""

    def __init__(self, fake: FakeDiscord, tmp_path: Path) -> None:
        self.fake = fake
        self.settings = make_settings(tmp_path)
        self.clock = ManualClock()
        self.guild = fake.add_guild("Lama Club")
        self.channel = self.guild.add_text_channel("lama")
        self.ana = self.guild.add_member("ana")
        self.ben = self.guild.add_member("ben")
        self.cleo = self.guild.add_member("cleo")
        self.members = {m.id: m for m in (self.ana, self.ben, self.cleo)}
        self.bot: LamaBot | None = None
        self.thread: Thread | None = None  # where the game is played, once started
        self.turns = 0  # turn notes the test has seen (each its own turn)

    def advance(self, seconds: float) -> None:
        """Time passes for the bot and for Discord alike: a hand's token opened before is
        expired for both (the fake refuses an expired token: the bot must not use it)."""
        self.clock.advance(seconds)
        self.fake.clock.advance(seconds)

    @property
    def game(self) -> Thread:
        assert self.thread is not None, "the game has started"
        return self.thread

    def new_bot(self) -> LamaBot:
        self.bot = create_bot(self.settings, clock=self.clock)
        return self.bot

    async def delivered(self) -> None:
        """Everything the game's thread is owed is out (the DMs ride the same queue)."""
        assert self.bot is not None
        await self.bot.sessions.outbox.deliver(self.game.id)

    async def wait(self, check: Callable[[], object | None], what: str) -> object:
        return await self.fake.notifier.wait_for(check, WAIT, what)

    async def next_turn(self) -> Member | None:
        """The next turn's one mention (None: the game is over); exactly one new note."""
        want = self.turns + 1
        await self.wait(lambda: True if len(turn_notes(self.game)) >= want
                        or final_of(self.game) else None, f"turn note {want}")
        await self.delivered()
        notes = turn_notes(self.game)
        if final_of(self.game) is not None and len(notes) < want:
            return None
        assert len(notes) == want, "one mention per turn, never repeated"
        self.turns = want
        note = notes[-1]
        user_id = int(TURN_NOTE.match(note.content or "")[1])  # type: ignore[index]
        assert note.pinged == [user_id], "the mention notifies the player to act only"
        return self.members[user_id]

    async def act(self, member: Member, hurry: bool = False) -> None:
        """``member`` presses My hand (a new hand: the last one's token is long gone) and
        makes one move (``hurry``: ends their round if they can)."""
        turn = current(self.game)
        assert turn is not None and turn.table is not None and turn.user_id == member.id
        hand = (await member.click(turn.table, "My hand")).message
        assert hand is not None and hand.ephemeral and action_buttons(hand)
        custom_id, value = first_button(member, hand)
        ending = [c for c in action_buttons(hand) if c.rsplit(":", 1)[-1] in ("stop", "quit")]
        if hurry and ending:
            custom_id, value = ending[0], None
        result = await (member.click(hand, custom_id) if value is None
                        else member.select(hand, value, custom_id=custom_id))
        hand = await settled(result)
        if any(b.label == "Yes, quit" for b in hand.buttons):
            await settled(await member.click(hand, "Yes, quit"))


@pytest.mark.slow  # three bots in turn, a whole game
async def test_a_relaxed_game_over_five_days_with_two_restarts(tmp_path: Path) -> None:
    async with FakeDiscord() as fake:
        p = Players(fake, tmp_path)
        ana, ben, cleo, channel, clock = p.ana, p.ben, p.cleo, p.channel, p.clock
        advance = p.advance
        start = clock.now()
        state = {"dm": "on", "dms": 0, "missed": 0, "steps": 0, "miss": False,
                 "hurry": False}

        async def turn() -> Member | None:
            """The next turn; ana's DM checked (her only one, if she wants it)."""
            dms, refused = len(fake.dms.to(ana)), fake.dms.refused
            member = await p.next_turn()
            if member is not None:
                state["steps"] += 1
            if member is ana and state["dm"] == "on" and ana.id in fake.dms.refusing:
                assert fake.dms.refused == refused + 1, "the DM was tried, Discord refused"
                state["dm"] = "refused"
            elif member is ana and state["dm"] == "on":
                assert len(fake.dms.to(ana)) == dms + 1, "one DM at the start of her turn"
                state["dms"] += 1
            assert len(fake.dms.to(ana)) == state["dms"], "no other DM"
            return member

        async def play(member: Member, how: str = "act") -> None:
            if member is cleo and state["miss"] and state["missed"] < 3:
                how = "miss"  # cleo misses three turns in a row
            if how == "late":  # 19 h in: a quarter of the turn is left, one reminder
                before = len(reminders(p.game))
                advance(19 * HOUR)
                await p.wait(lambda: True if len(reminders(p.game)) > before else None,
                             "the reminder")
                await p.delivered()
                assert len(reminders(p.game)) == before + 1
                assert REMINDER.match(reminders(p.game)[-1].content)[1] == str(member.id)  # type: ignore[index]
                await p.act(member)
            elif how == "miss":  # nobody plays for a day: the bot plays for them
                state["missed"] += 1
                advance(DAY)
            else:
                advance(3 * HOUR)
                await p.act(member, hurry=state["hurry"])

        async def down_for(hours: float) -> None:
            """The bot is down while the running turn's reminder falls due; restarted, it
            sends that reminder once and mentions no turn again."""
            reminded, notes = len(reminders(p.game)), len(turn_notes(p.game))
            advance(hours * HOUR)
            await p.wait(lambda: True if len(reminders(p.game)) > reminded else None,
                         "the reminder due while the bot was down")
            await p.delivered()
            assert len(reminders(p.game)) == reminded + 1, "sent once after the restart"
            assert len(turn_notes(p.game)) == notes, "no turn mentioned twice"

        async with fake.run(p.new_bot()):
            await ana.slash(channel, "lama notify", dm="on")
            lobby = await answered(await ana.slash(channel, "lama start", variant="tutorial",
                                                   rounds=2,
                                     pace="relaxed", turn_hours=24))
            assert lobby is not None and "relaxed pace: 24 hours per turn" in lobby.text
            await ben.click(lobby, "Join")
            await cleo.click(lobby, "Join")
            moved = (await ana.click(lobby, "Start")).message
            assert len(p.guild.threads) == 1, "the relaxed game moved to a thread"
            p.thread = thread = p.guild.threads[0]
            assert isinstance(thread, Thread) and thread.id == lobby.id, "made from the lobby"
            assert thread.parent is channel and thread.auto_archive_duration == 10080
            assert moved is not None and f"<#{thread.id}>" in moved.text
            assert p.bot is not None and p.bot.sessions.get(channel.id) is None, (
                "the channel is free for the next lobby")
            while state["steps"] < 8:
                member = await turn()
                assert member is not None
                await play(member, "late" if state["steps"] == 2 else "act")
            games = await answered(await ben.slash(channel, "lama games"))
            assert games is not None and games.ephemeral
            assert f"https://discord.com/channels/{p.guild.id}/{thread.id}" in games.text
            assert f"<#{thread.id}>" in games.text, "the game is listed in its thread"
            assert "<t:" in games.text and ":R>" in games.text
            member = await turn()  # the turn that runs while the bot is down
            assert member is not None
        async with fake.run(p.new_bot(), sync=False):
            restored = p.bot.sessions.get(thread.id)
            assert restored is not None and restored.parent_id == channel.id, "in its thread"
            await down_for(20)
            await play(member)
            fake.dms.refuse(ana)  # ana stops accepting DMs (Discord: 50007)
            state["miss"] = True  # from now on cleo does not play
            while state["steps"] < 20 or state["missed"] < 3:
                member = await turn()
                assert member is not None
                if state["dm"] == "refused":
                    fake.dms.accept(ana)  # she accepts them again, but did not opt in again
                await play(member)
            member = await turn()
            assert member is not None
        assert state["missed"] == 3 and state["dm"] == "refused"
        handed = [m for m in thread.messages if "missed 3 turns in a row" in m.text]
        assert len(handed) == 1 and "cleo" in handed[0].text, "announced in the thread"
        async with fake.run(p.new_bot(), sync=False):
            restored = p.bot.sessions.get(thread.id)
            assert restored is not None and restored.parent_id == channel.id, "in its thread"
            await down_for(20)
            await ana.slash(channel, "lama notify", dm="on")  # she opts in again
            state["dm"] = "on"
            await play(member)
            table = current(thread)
            assert table is not None and table.table is not None
            hand = (await cleo.click(table.table, "My hand")).message  # she takes her seat back
            assert hand is not None and "back in control" in hand.text
            state["hurry"] = True  # the players end their rounds as soon as they can
            while (member := await turn()) is not None:
                await play(member)
            final = await p.wait(lambda: final_of(thread), "the standings")
            assert isinstance(final, Message)
            assert all(name in final.text for name in ("ana", "ben", "cleo"))
            copy = await p.wait(lambda: next((m for m in channel.messages if
                                              f"The game in <#{thread.id}> is over." in m.text),
                                             None), "the standings in the channel")
            assert isinstance(copy, Message) and copy.v2 and final.v2, "the current layout"
            assert card(copy).description and (
                card(copy).description == card(final).description), "the same standings"
            await p.wait(lambda: thread.archived or None, "the thread archived")
            assert not thread.locked
        assert clock.now() - start >= 5 * DAY, (clock.now() - start) / DAY
        # every turn mentioned exactly once: one note per turn the test played, no more
        assert len(turn_notes(p.game)) == p.turns == state["steps"]
        # reminders: the late turn's and the two that fell due during the downtimes; none to
        # a player who had acted
        assert len(reminders(p.game)) == 3
        # DMs: only to ana, at most one per turn, none after 50007 until she opted in again
        assert fake.dms.to(ben) == [] and fake.dms.to(cleo) == []
        assert fake.dms.refused == 1 and len(fake.dms.to(ana)) == state["dms"] >= 3
        for dm in fake.dms.to(ana):
            assert f"https://discord.com/channels/{p.guild.id}/{thread.id}" in dm.content
        # nothing of the game's turns in the channel: it held the lobby and the standings
        assert not turn_notes(channel) and not reminders(channel)
        assert not any(is_table(m) for m in channel.messages)
        assert not fake.failures, fake.failures
        assert not fake.refusals, fake.refusals
