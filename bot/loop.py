"""The event loop ``python -m bot`` runs on: uvloop's when it is installed, else asyncio's.

uvloop (libuv under asyncio's interface) makes the loop itself and its sockets cheaper; the
load benchmark measures what it saves per move (README, "Dependencies, and why"). Nothing
else depends on it: tests and the sandbox run on asyncio's own loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_loop(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``, on uvloop's loop where available (Ctrl-C works the same)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)
