"""A ping that was answered leaves at most one short trace per round (issue 29): the round's
answered pings share one line without mentions, the latest ping folded into it; the earlier
line (folded already: it mentions nobody) goes. A ping is never deleted while it mentions
anyone (no ghost notification), and a new round starts a line of its own."""

from __future__ import annotations

from bot.policies.timers import NOTIFIED_PING_DELAY
from fakediscord import Message
from tests.bot.helpers import WAIT
from tests.bot.test_liveness import Club, club, is_note

__all__ = ["club"]  # the fixture


def traces(club: Club) -> list[Message]:
    return [m for m in club.channel.messages if not m.deleted and m.content.startswith("⏰")]


async def test_answered_pings_leave_one_line_per_round(club: Club) -> None:
    await club.start_game()  # the post notifies ana and ben; ana plays first
    hand = await club.ben.slash(club.channel, "lama hand")  # ben's hand follows the game
    assert hand.ephemeral
    first = club.channel.wait_for_message(is_note("⏰ <@"))
    club.advance(NOTIFIED_PING_DELAY)  # ana's hand is not open: pinged after the delay
    ana_ping = await first
    assert f"<@{club.ana.id}>" in ana_ping.content
    await club.act(club.ana, "Draw")
    await club.fake.notifier.wait_for(lambda: "played" in ana_ping.content or None, WAIT,
                                      "ana's ping folded")
    assert ana_ping.content == "⏰ ana was pinged, then played."

    second = club.channel.wait_for_message(is_note("⏰ <@"))
    club.advance(60)  # half of ben's 120 s turn: his open hand did not get him to act
    ben_ping = await second
    assert f"<@{club.ben.id}>" in ben_ping.content
    await club.act(club.ben, "Draw")
    await club.fake.notifier.wait_for(
        lambda: True if "Pinged this round" in ben_ping.content and ana_ping.deleted else None,
        WAIT, "ben's ping folded into the round's one line")
    assert ben_ping.content == "⏰ Pinged this round, then played: ana and ben."
    assert [m.id for m in traces(club)] == [ben_ping.id], "one line for the round"
    deleted = [e for e in club.fake.entries if e["kind"] == "rest" and e["method"] == "DELETE"
               and e["path"].endswith(f"/messages/{ana_ping.id}")]
    assert deleted, "the round's earlier line went"
    folds = [e for e in club.fake.entries if e["kind"] == "rest" and e["method"] == "PATCH"
             and e["path"].endswith(f"/messages/{ana_ping.id}")]
    assert folds and "<@" not in folds[-1]["body"]["content"], (
        "deleted only once it mentioned nobody: no ghost ping")

    # round 2: both quit round 1; the next answered ping gets a line of its own
    await club.act(club.ana, "Quit")
    await club.act(club.ben, "Quit")
    third = club.channel.wait_for_message(is_note("⏰ <@"))
    club.advance(60)
    ping = await third
    who = club.ana if f"<@{club.ana.id}>" in ping.content else club.ben
    await club.act(who, "Draw")
    await club.fake.notifier.wait_for(lambda: "played" in ping.content or None, WAIT,
                                      "the round 2 ping folded")
    assert ping.content == f"⏰ {who.name} was pinged, then played."
    assert [m.id for m in traces(club)] == [ben_ping.id, ping.id], "one line per round"
