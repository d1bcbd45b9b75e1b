"""A finished game moves the ratings exactly once: ``python -m bot`` killed (SIGKILL) right
after the commit that stored the game, before any message it owed, then started twice more
on the same file, shows the standings once and never rates the game again."""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path

import pytest

from bot.ladder.ratings import Entrant, finishing_places, rate
from fakediscord import FakeDiscord
from tests.bot.helpers import answered, is_final
from tests.bot.test_kill import START, bot_process, sound
from tests.bot.test_outbox import END, play_case


def ratings(db: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT user_id, mu, sigma, games FROM ratings "
                            "ORDER BY user_id").fetchall()


def rated_once(db: Path) -> list[tuple[object, ...]]:
    """The ratings the stored game gives when applied once to newcomers."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT user_id, name, points, won FROM results "
                            "ORDER BY seat").fetchall()
    entrants = [Entrant(u, n, p, bool(w)) for u, n, p, w in rows]
    after = rate(entrants, finishing_places(entrants, lower_score_wins=True), {})
    return sorted((e.key, after[e.key].mu, after[e.key].sigma, 1) for e in entrants)


@pytest.mark.slow  # bot processes killed and started again
async def test_a_game_is_rated_once_though_the_bot_is_killed_after_storing_it(
    tmp_path: Path,
) -> None:
    db, log = tmp_path / "lama.db", tmp_path / "bot.log"
    async with FakeDiscord(token="fake.ladder-test-token") as fake:
        guild = fake.add_guild("Lama Club")
        ana, ben = guild.add_member("ana"), guild.add_member("ben")
        members = {ana.id: ana, ben.id: ben}
        channel = guild.add_text_channel("lama")
        syncs = fake.command_syncs
        async with bot_process(fake, db, log, f"commit:standings@{channel.id}") as first:
            await fake.notifier.wait_for(lambda: True if fake.command_syncs > syncs else None,
                                         START, "the command sync")
            await play_case(fake, END, channel, members, first)  # killed at its fault point
        assert not [m for m in channel.messages if is_final(m)], "nothing shown yet"
        stored = ratings(db)
        assert stored == rated_once(db), "rated in the commit that stored the game"

        async with bot_process(fake, db, log) as second:
            await fake.notifier.wait_for(
                lambda: True if any(is_final(m) for m in channel.messages) else None, START,
                "the owed standings after the restart")
            board = await answered(await ana.slash(channel, "lama leaderboard"))
            assert board is not None
            for user_id, mu, sigma, _ in stored:
                name = members[int(user_id)].name  # type: ignore[call-overload]
                line = next(x for x in board.text.splitlines() if f"**{name}**" in x)
                assert f"skill {mu - 3 * sigma:.1f} ({mu:.1f} ± {sigma:.1f})" in line  # type: ignore[operator]
                assert "of 1 game won" in line
            second.send_signal(signal.SIGKILL)
        assert ratings(db) == stored, "the restart rated nothing again"

        async with bot_process(fake, db, log):
            stats = await answered(await ben.slash(channel, "lama stats"))
            assert stats is not None and "of 1 game won" in stats.text
        assert len([m for m in channel.messages if is_final(m)]) == 1, "shown once"
    assert ratings(db) == stored, "nor did the third start"
    await sound(db)
