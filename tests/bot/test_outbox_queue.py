"""The outbox's rules on a real store: a newer state replaces the older, events stay in
order, a delivered item is marked with the next write, a lost channel drops its items."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest

from bot.process.backends import make_store
from bot.sessions.outbox import EVENT, STATE, ChannelGone, Outbox, Owed, Write
from bot.store.sqlite import SqliteStore, Store
from tests.bot.helpers import another_process_writing
from tests.pg import raw

GUILD, CHANNEL, OTHER = 1, 2, 3


def owed(kind: str, key: str, version: int, channel: int = CHANNEL) -> Owed:
    return Owed(GUILD, channel, kind, key, version, {"v": version})


async def rows(db_url: str) -> list[tuple[object, ...]]:
    return await raw(db_url, "SELECT channel_id, kind, key, version FROM outbox ORDER BY id")


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[Store]:
    store = make_store(db_url)  # every test here runs on SQLite and on PostgreSQL
    await store.open()
    yield store
    await store.close()


async def commit(store: Store, outbox: Outbox, *items: Owed, end: bool = False) -> None:
    write = Write(GUILD, items[0].channel_id if items else CHANNEL, owed=list(items), end=end)
    await store.write(write)
    outbox.committed(None, write.channel_id, write.owed, end=end)


async def test_states_are_superseded_and_events_kept_in_order(
    store: Store, db_url: str
) -> None:
    outbox = Outbox(store)
    await commit(store, outbox, owed(STATE, "table", 1))
    await commit(store, outbox, owed(EVENT, "summary", 2), owed(STATE, "table", 2))
    await commit(store, outbox, owed(STATE, "table", 3))
    expected = [(CHANNEL, EVENT, "summary", 2), (CHANNEL, STATE, "table", 3)]
    assert await rows(db_url) == expected, "the latest table, after the summary"
    assert [(q.kind, q.key, q.version) for q in outbox.pending(CHANNEL)] == [
        (k, key, v) for _, k, key, v in expected]
    shown: list[tuple[str, int]] = []

    async def courier(item: Owed, session: object) -> int | None:
        shown.append((item.key, item.version))
        return None

    outbox.courier = courier
    await outbox.deliver(CHANNEL)
    assert shown == [("summary", 2), ("table", 3)]
    assert len(await rows(db_url)) == 2, "marks are not a commit of their own"
    await commit(store, outbox, owed(EVENT, "note", 4, channel=OTHER))
    assert await rows(db_url) == [(OTHER, EVENT, "note", 4)], "they ride on a write"
    fresh = Outbox(store)
    await fresh.load()
    assert [q.key for q in fresh.pending(OTHER)] == ["note"] and not fresh.pending(CHANNEL)
    await outbox.close()


async def test_an_ended_session_voids_its_states_but_not_its_events(
    store: Store, db_url: str
) -> None:
    outbox = Outbox(store)
    await commit(store, outbox, owed(EVENT, "summary", 1), owed(STATE, "table", 1))
    await commit(store, outbox, owed(EVENT, "standings", 2), end=True)
    assert await rows(db_url) == [(CHANNEL, EVENT, "summary", 1),
                                          (CHANNEL, EVENT, "standings", 2)]
    assert [q.key for q in outbox.pending(CHANNEL)] == ["summary", "standings"]


async def test_a_lost_channel_drops_its_items_with_one_log_line(
    store: Store, db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    outbox = Outbox(store)
    await commit(store, outbox, owed(EVENT, "summary", 1), owed(STATE, "table", 1))
    lost: list[int] = []

    async def courier(item: Owed, session: object) -> int | None:
        raise ChannelGone("403 Forbidden (error code: 50001): Missing Access")

    async def gone(channel_id: int, session: object, error: BaseException) -> None:
        lost.append(channel_id)

    outbox.courier, outbox.on_gone = courier, gone
    with caplog.at_level(logging.WARNING, logger="bot.sessions.outbox"):
        await outbox.deliver(CHANNEL)
    assert lost == [CHANNEL] and not outbox.pending(CHANNEL)
    assert len(caplog.records) == 1 and "dropped 2 owed messages" in caplog.text
    await outbox.close()
    assert await rows(db_url) == [], "dropped in the store too"


def failing_once(attempts: list[int]) -> Callable[[Owed, object], Awaitable[int | None]]:
    """A courier whose first delivery fails (Discord answers 503), the later ones succeed;
    each attempt's item version goes into ``attempts``."""

    async def courier(item: Owed, session: object) -> int | None:
        attempts.append(item.version)
        if len(attempts) == 1:
            raise RuntimeError("503 Service Unavailable")
        return None

    return courier


async def test_a_failed_delivery_keeps_the_item_and_retries(store: Store) -> None:
    outbox = Outbox(store)
    await commit(store, outbox, owed(EVENT, "summary", 1))
    attempts: list[int] = []
    outbox.courier = failing_once(attempts)
    await outbox.deliver(CHANNEL)
    assert attempts == [1] and [q.key for q in outbox.pending(CHANNEL)] == ["summary"]
    assert CHANNEL in outbox._timers, "a retry is scheduled"
    await outbox.deliver(CHANNEL)  # what the retry does
    assert attempts == [1, 1] and not outbox.pending(CHANNEL)
    await outbox.close()


async def test_a_click_waits_for_the_channels_delivery_task_without_a_second_attempt(
    store: Store,
) -> None:
    """A click's publish starts the channel's delivery task before the hands follow, then
    waits for that task: after its failure the retry comes with its timer, not at once from
    the click; with no task running, what is owed is delivered by the waiting click."""
    outbox = Outbox(store)
    await commit(store, outbox, owed(EVENT, "summary", 1))
    attempts: list[int] = []
    outbox.courier = failing_once(attempts)
    outbox.kick(CHANNEL)
    await outbox.delivered(CHANNEL)
    assert attempts == [1] and CHANNEL in outbox._timers, "one attempt; the retry waits"
    outbox._timers.pop(CHANNEL).cancel()  # (its time has come)
    await commit(store, outbox, owed(EVENT, "note", 2))
    await outbox.delivered(CHANNEL)  # nothing running: delivered here
    assert attempts == [1, 1, 2] and not outbox.pending(CHANNEL)
    await outbox.close()


async def test_marks_carried_by_a_write_that_does_not_commit_wait_for_the_next(
    store: Store, db_url: str
) -> None:
    """A delivery mark rides on the next write; when that write does not commit (an error,
    or its task cancelled: a timer stopped at shutdown), the mark is not lost with it."""
    outbox = Outbox(store)
    shown = [owed(EVENT, "note", 1), owed(EVENT, "note", 2)]
    await commit(store, outbox, *shown)
    outbox.done(shown[0])
    unencodable = Write(GUILD, CHANNEL, move={"seat": 0, "action": "quit", "meta": {object()}})
    with pytest.raises(TypeError):  # fails inside the transaction, after the marks' DELETE
        await store.write(unencodable)
    outbox.done(shown[1])
    # (on SQLite, another process holds the file: the write waits on SQLite's thread, where
    # it can be cancelled before it commits; PostgreSQL's is cancelled where it stands)
    with (another_process_writing(store.path) if isinstance(store, SqliteStore)
          else contextlib.nullcontext()):
        task = asyncio.ensure_future(store.write(Write(GUILD, CHANNEL, end=True)))
        await asyncio.sleep(0)  # the write has begun: its marks are taken
        task.cancel()
        await asyncio.sleep(0)  # the cancellation reached it (SQLite: waiting for the lock)
    with pytest.raises(asyncio.CancelledError):
        await task
    assert len(await rows(db_url)) == 2, "nothing committed yet"
    await store.flush_notes()
    assert await rows(db_url) == [], "both marks were kept for the next commit"


async def test_a_lobby_its_interaction_answers_is_left_to_that_answer(store: Store) -> None:
    """A new lobby is owed with the interaction that will show it; a delivery of the channel
    running meanwhile (the last game's standings still going out) delivers what is before it
    and leaves the lobby alone: posted by the channel too, the channel would show two lobbies
    (before the answer is made, the lookup of the answer finds nothing). The answer claims
    it; an answer that fails gives it back, and the channel then posts it."""
    outbox = Outbox(store)
    standings = owed(EVENT, "standings", 1)
    lobby = owed(STATE, "lobby", 2)
    lobby.answering = True
    await commit(store, outbox, standings, lobby)
    delivered: list[str] = []

    async def courier(item: Owed, session: object) -> int | None:
        delivered.append(item.key)
        return None

    outbox.courier = courier
    await outbox.deliver(CHANNEL)
    assert delivered == ["standings"], "the lobby waits for its interaction's answer"
    claimed = outbox.claim(CHANNEL, "lobby")
    assert claimed is lobby and not outbox.pending(CHANNEL)
    outbox.give_back(claimed)  # the answer failed
    await outbox.deliver(CHANNEL)
    assert delivered == ["standings", "lobby"]
    await outbox.close()
