"""A test's wait on the fake ends when it is cancelled, whenever the cancellation comes.

The random-kill test cancels its wait for a bot's IDENTIFY once the bot died; a
cancellation that landed as the fake woke its waiters was swallowed (``asyncio.wait_for``
before Python 3.12), and the test then waited out two minutes with no bot running.
"""

from __future__ import annotations

import asyncio

import pytest

from fakediscord.base import Notifier


@pytest.mark.parametrize("turns", range(6))
async def test_a_cancelled_wait_stops_even_as_the_fake_wakes_it(turns: int) -> None:
    """Every interleaving of "woken" and "cancelled" a few loop turns apart: the waiter
    never checks again after its cancellation (a swallowed one would, and return)."""
    notifier = Notifier()
    checks: list[int] = []

    def check() -> str | None:
        checks.append(len(checks))
        return "checked again after the cancel" if len(checks) > 1 else None

    waiter = asyncio.ensure_future(notifier.wait_for(check, 3600.0, "nothing"))
    while not checks:  # (it is waiting once it has checked once)
        await asyncio.sleep(0)
    notifier.notify()
    for _ in range(turns):  # the cancel comes this many loop turns after the wake-up
        await asyncio.sleep(0)
    if waiter.done():  # woken and checked again before the cancel: not this case
        assert checks == [0, 1]
        return
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
