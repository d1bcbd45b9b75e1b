"""Opt-in pytest plugin: finds waits on the fake's notifier that outlived their condition.

``fake.notifier.wait_for(check, timeout, what)`` re-checks ``check`` only when the fake wakes
it (a message made, edited, deleted...). A check on state the fake never sees change (the
bot's, a test double's counter) is true long before the next wake, and the wait then passes
only at its timeout: a sleep of ``timeout`` seconds in disguise (two of them cost 10 s and
5 s). Run with this plugin, each wait is shadowed by a poll of its check every 20 ms; a wait
that returned more than 0.2 s after its check first held is reported at the end::

    .venv/bin/python -m pytest -p tests.hidden_waits tests/bot

The fix is to wake the notifier where that state changes (``fake.notifier.notify()``), never
a shorter timeout. Not loaded by default: the shadow polls cost CPU, and
tests/fake/test_notifier.py's cancellation tests see the extra task.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import Any, TypeVar

import pytest

from fakediscord import base

T = TypeVar("T")
POLL = 0.02
LATE = 0.2
FOUND: list[tuple[str, str, float, float]] = []  # (test, what, seconds late, timeout)
REPORTED: list[tuple[str, str, float, float]] = []  # the same, gathered in the main process
_original = base.Notifier.wait_for


async def _shadowed(self: Any, check: Callable[[], T | None], timeout: float, what: str) -> T:
    held_since: list[float] = []

    async def poll() -> None:
        while not held_since:
            try:
                if check() is not None:
                    held_since.append(time.monotonic())
            except Exception:  # (the real wait reports the check's errors)
                return
            await asyncio.sleep(POLL)  # the shadow's sampling period, not synchronisation

    shadow = asyncio.ensure_future(poll())
    try:
        return await _original(self, check, timeout, what)
    finally:
        shadow.cancel()
        if held_since and (late := time.monotonic() - held_since[0]) > LATE:
            FOUND.append((os.environ.get("PYTEST_CURRENT_TEST", "?"), what, late, timeout))


def pytest_configure(config: pytest.Config) -> None:
    base.Notifier.wait_for = _shadowed  # type: ignore[method-assign]


@pytest.hookimpl(trylast=True)  # after the fixtures' teardown: their waits count too
def pytest_runtest_teardown(item: pytest.Item) -> None:
    item.user_properties.extend(("hidden_wait", found) for found in FOUND)  # (its report
    FOUND.clear()  # carries them to the main process from xdist's workers)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "teardown":
        REPORTED.extend(value for key, value in report.user_properties if key == "hidden_wait")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    terminalreporter.section("waits that outlived their condition")
    for test, what, late, timeout in REPORTED:
        terminalreporter.write_line(f"{late:5.1f} s late (timeout {timeout} s): {what} in {test}")
    if not REPORTED:
        terminalreporter.write_line("none")
