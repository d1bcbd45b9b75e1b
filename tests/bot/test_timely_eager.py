"""cogs.timely.in_time runs the work in the caller's task until it first waits: an action
that never waits (the engine, then the store's transaction on the loop) is answered without
a task of its own and its turns of the event loop; work that waits goes on in a task, still
shielded from its caller's cancellation, and deferred when slow (tests/bot/test_faults.py)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from cogs.timely import in_time

ANSWERED = SimpleNamespace(response=SimpleNamespace(is_done=lambda: True))  # (never deferred)


async def test_work_that_never_waits_runs_in_the_callers_task() -> None:
    ran_in: list[Any] = []

    async def work() -> int:
        ran_in.append(asyncio.current_task())
        return 7

    before = len(asyncio.all_tasks())
    assert await in_time(ANSWERED, work()) == 7  # type: ignore[arg-type]
    assert ran_in == [asyncio.current_task()]
    assert len(asyncio.all_tasks()) == before, "no task started for it"


async def test_an_error_before_any_wait_is_raised_to_the_caller() -> None:
    async def work() -> None:
        raise LookupError("stale")

    with pytest.raises(LookupError, match="stale"):
        await in_time(ANSWERED, work())  # type: ignore[arg-type]


async def test_work_that_waits_gets_what_it_waited_for_errors_included() -> None:
    loop = asyncio.get_running_loop()
    value, failing = loop.create_future(), loop.create_future()
    steps: list[Any] = []

    async def work() -> str:
        steps.append(("first", asyncio.current_task()))
        got = await value
        try:
            await failing
        except KeyError as error:
            steps.append(("caught", error.args[0]))
        steps.append(("rest", asyncio.current_task()))
        return f"{got}!"

    caller = asyncio.current_task()
    loop.call_soon(value.set_result, "drawn")
    loop.call_soon(lambda: loop.call_soon(failing.set_exception, KeyError("gone")))
    assert await in_time(ANSWERED, work()) == "drawn!"  # type: ignore[arg-type]
    assert steps[0] == ("first", caller), "started in the caller's task"
    assert steps[1] == ("caught", "gone")
    assert steps[2][0] == "rest" and steps[2][1] is not caller, "went on in a task of its own"


async def test_work_that_waits_is_not_cut_short_by_its_callers_cancellation() -> None:
    gate, started = asyncio.Event(), asyncio.Event()
    done: list[str] = []

    async def work() -> None:
        done.append("applied")
        started.set()
        await gate.wait()
        done.append("saved")

    caller = asyncio.ensure_future(in_time(ANSWERED, work()))  # type: ignore[arg-type]
    await started.wait()
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    rest = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    gate.set()
    await asyncio.wait(rest)
    assert done == ["applied", "saved"], "the work finished though its caller was cancelled"
