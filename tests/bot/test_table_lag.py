"""The table's lag behind a move, through the fake Discord: the table's edit leaves alongside
the open hands following the game, not after them (bot/sessions/sessions.py publish)."""

from __future__ import annotations

import asyncio

from bot.sessions.sessions import Session
from tests.bot.test_liveness import WAIT, Club, club

__all__ = ["club"]  # the fixture, shared with test_liveness.py


async def test_a_moves_table_does_not_wait_for_the_hands_to_follow(club: Club) -> None:
    """While the open hands are still being drawn and edited (held here), the table already
    shows the move: their pictures and round trips are not the table's lag."""
    await club.start_game()
    following, held = asyncio.Event(), asyncio.Event()

    async def slow_hands(session: Session) -> None:
        following.set()
        await held.wait()

    club.bot.sessions.followers.insert(0, slow_hands)
    try:
        await club.ben.slash(club.channel, "lama hand")  # ben's hand follows the game
        await club.act(club.ana, "Draw")
        await asyncio.wait_for(following.wait(), WAIT)
        turn = await club.turn_of(club.ben)  # the table shows ana's move: ben's turn
        assert turn.table is not None and not held.is_set()
    finally:
        held.set()
        club.bot.sessions.followers.remove(slow_hands)
    await club.act(club.ben, "Draw")  # the game goes on
    assert (await club.turn_of(club.ana)).table is not None
