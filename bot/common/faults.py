"""Fault points: named places where a test can have the process killed (``SIGKILL``).

``LAMA_FAULT=name`` kills the process the first time :func:`point` is reached with
that name; ``name#n`` the n-th time; ``name@channel`` counts only that channel's
passages; ``*#n`` is the n-th point of any name. Tests use it to kill the bot exactly
between two steps (a commit and the post it owes) rather than hoping a timed kill
lands there; ``LAMA_FAULT_SIGNAL=TERM`` sends ``SIGTERM`` instead (a clean stop
requested at that moment). Unset (always, outside tests), it costs one comparison.
"""

from __future__ import annotations

import os
import signal

_SPEC = os.environ.get("LAMA_FAULT", "")
_SIGNAL = getattr(signal, "SIG" + os.environ.get("LAMA_FAULT_SIGNAL", "KILL"))
_WHAT, _, _COUNT = _SPEC.partition("#")
_NAME, _, _WHERE = _WHAT.partition("@")
_TARGET = int(_COUNT) if _COUNT else 1
_seen = 0


def point(name: str, where: int | None = None) -> None:
    """Kill this process here if ``LAMA_FAULT`` names this point (and this is its turn)."""
    global _seen
    if not _NAME or (_NAME not in ("*", name)) or (_WHERE and str(where) != _WHERE):
        return
    _seen += 1
    if _seen == _TARGET:
        os.kill(os.getpid(), _SIGNAL)
