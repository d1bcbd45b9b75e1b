"""The round's table post notifies whoever cannot see the game otherwise (bot/policies/timers.py).

Through the fake Discord on a manual clock: the post's allowed mentions are the humans whose
hand the bot does not follow; a player it notified is pinged after the delay (see
tests/bot/test_liveness.py), one it did not notify at once; a restart between the post being
owed and delivered renders the same mentions (the set is in the session's snapshot).
"""

from __future__ import annotations

from pathlib import Path

from bot import create_bot
from bot.common.clock import ManualClock
from cogs.hands import TOKEN_TTL
from fakediscord import FakeDiscord, Message, TextChannel
from tests.bot.conftest import make_settings
from tests.bot.helpers import card, current
from tests.bot.test_liveness import WAIT, Club, club, is_note, members, table_posts

__all__ = ["club"]  # the fixture, shared with test_liveness.py


def table_of_round(channel: TextChannel, n: int) -> Message | None:
    """The live table if it shows round ``n``."""
    turn = current(channel)
    table = turn.table if turn is not None else None
    if table is None or not (card(table).title or "").endswith(f": round {n}"):
        return None
    return table


async def test_a_hand_that_stops_following_mid_round_is_pinged_at_once(club: Club) -> None:
    """Round 2 starts with both hands open: its post notifies nobody. Once their tokens are
    too old, the player whose turn comes is pinged at once: nothing else told them."""
    await club.start_game(turn_timeout=0)
    await club.act(club.ana, "Quit")
    await club.act(club.ben, "Quit")  # alone in the round, he ends it
    second = await club.fake.notifier.wait_for(lambda: table_of_round(club.channel, 2), WAIT,
                                               "round 2's table")
    assert second.pinged == [], "both hands follow the game: nobody to notify"
    assert "your game is on" not in second.text
    session = club.bot.sessions.get(club.channel.id)
    assert session is not None and session.timers.notified is not None
    assert session.timers.notified["seats"] == []
    turn = current(club.channel)
    assert turn is not None and turn.user_id is not None
    mover, other = ((club.ana, club.ben) if turn.user_id == club.ana.id
                    else (club.ben, club.ana))
    first = club.channel.wait_for_message(is_note(f"⏰ <@{mover.id}>"))
    club.advance(TOKEN_TTL)  # both hands' tokens are too old to follow the game now
    await first  # (the mover's turn: its ping was due after the delay)
    at_once = club.channel.wait_for_message(is_note(f"⏰ <@{other.id}>"))
    await club.act(mover, "Draw")
    note = await at_once  # the clock did not move: pinged at once
    assert note.content == f"⏰ <@{other.id}>, it is your turn."


async def test_a_restart_before_the_round_post_keeps_whom_it_notifies(tmp_path: Path) -> None:
    """Round 2's post is owed (ben's hand follows the game, ana's never opened: it is to
    notify ana) when the bot stops; the restarted bot follows no hand, yet its post notifies
    ana alone: the set was decided when the post was owed, and saved."""
    clock = ManualClock()
    settings = make_settings(tmp_path)
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Lama Club")
        channel = guild.add_text_channel("lama")
        ana, ben, _, _ = members(guild)
        club = Club(fake, create_bot(settings, clock=clock), clock, guild, channel, ana, ben,
                    ana, ana)
        async with fake.run(club.bot):
            await club.start_game()
            await ben.slash(channel, "lama hand")  # ben's hand follows the game
            timed_out = channel.wait_for_message(is_note("ran out of time"))
            club.advance(120)  # ana never looks: the bot quits her round
            await timed_out
            await club.turn_of(ben)
            refused = fake.fail("POST", f"/channels/{channel.id}/messages", status=400,
                                times=None)
            await club.act(ben, "Quit")  # the round ends: its summary and new table are owed
            await fake.notifier.wait_for(lambda: refused.hits or None, WAIT,
                                         "the round's posts refused")
            session = club.bot.sessions.get(channel.id)
            assert session is not None
            seat = next(i for i, s in enumerate(session.seats) if s.user_id == ana.id)
            assert session.timers.notified == {"round": 2, "seats": [seat], "posted": False}
        refused.times = 0  # the channel takes posts again
        club.bot = create_bot(settings, clock=clock)
        async with fake.run(club.bot, sync=False):
            table = await fake.notifier.wait_for(lambda: table_of_round(channel, 2), WAIT,
                                                 "round 2's table")
            assert table.pinged == [ana.id], "the saved set: ana, not ben"
            allowed = table_posts(fake)[-1]["allowed_mentions"]
            assert [int(u) for u in allowed["users"]] == [ana.id] and not allowed["parse"]
            restored = club.bot.sessions.get(channel.id)
            assert restored is not None and restored.timers.notified is not None
            assert restored.timers.notified["seats"] == [seat]
        assert not fake.failures
