"""Sessions without Discord: locking, versions, saving every accepted action, restoring."""

from __future__ import annotations

import asyncio
import json

import pytest

from bot.policies.takeover import hand_to_ai
from bot.policies.wiring import make_sessions
from bot.process.backends import make_store
from bot.sessions.errors import NotAllowed, StaleButton
from bot.sessions.outbox import Owed, default_compose
from bot.sessions.sessions import Change, Session, Sessions, Status
from game import EventKind, NotYourTurn, player_view, summary

GUILD, CHANNEL = 1, 2
ANA, BEN = 11, 12


@pytest.fixture
async def sessions(db_url: str):
    store = make_store(db_url)  # every test here runs on SQLite and on PostgreSQL
    await store.open()
    manager = make_sessions(store, ai_delay=0, seed="42")
    yield manager
    await manager.close()
    await store.close()


async def started(sessions: Sessions, variant: str = "kadabra") -> Session:
    session = await sessions.open(GUILD, CHANNEL, (ANA, "ana"), variant, {"target": 20}, None)
    await session.join(BEN, "ben")
    await session.start(ANA)
    return session


async def test_two_clicks_at_once_apply_at_most_one(sessions: Sessions) -> None:
    session = await started(sessions)
    assert session.game is not None
    version = session.version
    legal = [str(a) for a in player_view(session.game, 0).legal]
    results = await asyncio.gather(
        session.act(ANA, version, legal[0]), session.act(ANA, version, legal[-1]),
        return_exceptions=True,
    )
    assert sum(isinstance(r, StaleButton) for r in results) == 1
    assert len(session.game.history) == 1


async def test_out_of_turn_and_not_seated(sessions: Sessions) -> None:
    session = await started(sessions, "classic")
    with pytest.raises(NotYourTurn):
        await session.act(BEN, None, "draw")
    assert session.game is not None and session.game.history == []


async def test_every_action_is_saved_and_restores(sessions: Sessions) -> None:
    session = await started(sessions)
    assert session.game is not None
    for _ in range(12):
        seat = session.game.to_act
        assert seat is not None
        action = str(player_view(session.game, seat).legal[0])
        await session.act([ANA, BEN][seat], session.version, action)
        saved = await sessions.store.sessions(GUILD)
        assert len(saved) == 1, "snapshot + appended rows"
        again = Session.restore(sessions, json.loads(json.dumps(saved[0])))
        assert again.version == session.version and again.game is not None
        assert again.game.history == session.game.history
    data = json.loads(json.dumps((await sessions.store.sessions(GUILD))[0]))
    restored = Session.restore(sessions, data)
    assert restored.status is Status.PLAYING and restored.version == session.version
    assert restored.game is not None
    assert summary(restored.game) == summary(session.game)
    # the restored game draws the same future from the seed
    seat = session.game.to_act
    assert seat is not None
    action = player_view(session.game, seat).legal[-1]
    assert restored.game.apply(seat, action) == session.game.apply(seat, action)


@pytest.mark.slow  # a whole game
async def test_a_game_against_ais_runs_to_the_end(sessions: Sessions) -> None:
    published: list[Change] = []
    over = asyncio.Event()

    def composer(session: Session, changes: list[Change]) -> list[Owed]:
        published.extend(changes)
        if any(e.kind is EventKind.GAME_OVER for c in changes for e in c.events):
            over.set()
        return default_compose(session, changes)

    sessions.outbox.composer = composer
    session = await sessions.open(GUILD, CHANNEL, (ANA, "ana"), "dice", {"target": 10}, None)
    await session.add_ai(ANA)
    await session.add_ai(ANA)
    await session.leave(ANA)
    with pytest.raises(NotAllowed):  # a host who left cannot start their lobby
        await session.start(ANA)
    await session.join(ANA, "ana")
    await session.start(ANA)
    await hand_to_ai(session, ANA)  # /lama leave: an AI plays ana's seat, which counts for her
    await sessions.publish(session)
    await asyncio.wait_for(over.wait(), 20)  # composed inside the last commit
    async with session.lock:
        pass  # that commit is over
    assert session.status is Status.FINISHED and sessions.get(CHANNEL) is None
    assert session.game is not None
    assert len(published) == len(session.game.history) + 2, (
        "the opening, the hand-over, then every action")
    assert [s.user_id for s in await sessions.store.standings(GUILD, "dice")] == [ANA], (
        "AI seats count for nobody; a seat an AI played for ana counts for her")
    stored = await sessions.store.game(GUILD, session.game_id)
    assert stored is not None and stored["status"] == "finished"


def test_ai_seats_use_the_engines_heuristic_player() -> None:
    from bot.policies.ai_runner import RandomLegal, make_player

    player = make_player("7:1")
    assert not isinstance(player, RandomLegal)
    assert type(player).__module__ == "game.ai.heuristic"


async def test_sessions_alone_run_no_policy_and_ais_act_only_when_asked(db_url: str) -> None:
    """Without the policies (bot/policies/wiring.py), sessions start no AI loop and no timer."""
    store = make_store(db_url)
    await store.open()
    alone = Sessions(store, seed="42")
    try:
        session = await alone.open(GUILD, CHANNEL, (ANA, "ana"), "classic", {}, None)
        await session.add_ai(ANA)
        await session.join(BEN, "ben")
        await session.leave(ANA)
        await session.add_ai(BEN)
        await session.start(BEN)
        assert session.ai_to_act() is not None and session.game is not None
        await alone.publish(session)
        names = [t.get_name() for t in asyncio.all_tasks()]
        assert not [n for n in names if n.startswith(("lama-ai-", "lama-timer-"))], names
        assert session.game.history == [] and session.timers.opened_at is None
        assert await session.ai_step()  # the session itself can still let an AI act
        assert len(session.game.history) == 1
    finally:
        await alone.close()
        await store.close()
