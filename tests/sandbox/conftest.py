"""A ``python -m bot sandbox`` process, and a real headless Chromium to open its page."""

from __future__ import annotations

import os
import re
import selectors
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect, sync_playwright

from fakediscord.fake import TIMEOUT_VARIABLE
from tests import forkserver

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--no-first-run", "--disable-sync",
]
ADDRESS = re.compile(r"http://127\.0\.0\.1:(\d+)")
START_TIMEOUT = 60.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def sandbox_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("LAMA_") and k not in ("DISCORD_TOKEN", TIMEOUT_VARIABLE)}
    env.update(PYTHONPATH=str(ROOT), LAMA_AI_DELAY="0", LAMA_SEED="sandbox-e2e", **extra)
    return env


def read_line(stream: object, timeout: float, process: forkserver.Popen) -> str:
    """The next line of `stream` (the process's stdout), without waiting forever."""
    selector = selectors.DefaultSelector()
    selector.register(stream, selectors.EVENT_READ)  # type: ignore[arg-type]
    deadline = time.monotonic() + timeout
    data = b""
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not selector.select(left):
            raise AssertionError(f"no line from the sandbox within {timeout}s: {data!r}")
        chunk = os.read(stream.fileno(), 4096)  # type: ignore[attr-defined]
        if not chunk:
            raise AssertionError(f"the sandbox exited ({process.wait()}): {data!r}")
        data += chunk
    return data.decode()


@dataclass
class Sandbox:
    process: forkserver.Popen
    url: str
    line: str

    def stop(self) -> int:
        """Ctrl-C, as a person would; the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
        return self.process.wait(timeout=30)


def start_sandbox(tmp_path: Path, *args: str, **env: str) -> Sandbox:
    process = forkserver.Popen(  # real, forked from tests/forkserver.py (its bot: started)
        "-m", "bot", "sandbox", *args, cwd=tmp_path,
        env=sandbox_env(**env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=(tmp_path / "sandbox.err").open("wb"),
    )
    try:
        line = read_line(process.stdout, START_TIMEOUT, process)
    except AssertionError:
        process.kill()
        process.wait()
        raise AssertionError((tmp_path / "sandbox.err").read_text()) from None
    match = ADDRESS.search(line)
    assert match, line
    return Sandbox(process, match[0], line)


@pytest.fixture
def sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    running = start_sandbox(tmp_path, "--port", str(free_port()))
    try:
        yield running
    finally:
        if running.process.poll() is None:
            running.stop()


def children(pid: int) -> list[int]:
    """Processes whose parent is `pid` (from /proc: no extra dependency)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    return state != "Z"


def stopped_cleanly(sandbox: Sandbox, tmp_path: Path) -> None:
    """Ctrl-C: exit 0, nothing more printed, no traceback, and the bot process is gone."""
    bots = children(sandbox.process.pid)
    assert len(bots) == 1, bots
    assert sandbox.stop() == 0
    assert not alive(bots[0])
    assert sandbox.process.stdout is not None
    assert sandbox.process.stdout.read() == b""
    err = (tmp_path / "sandbox.err").read_text()
    assert "Traceback" not in err, err


def require_chromium() -> None:
    """Never a skip: without the browser the end-to-end test fails and says how to fix it."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium package "
            "(as root: apt-get update && apt-get install -y chromium; bash scripts/test "
            "does it when run as root).", pytrace=False,
        )


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One Chromium for a module's tests (each opens its own page): a launch is ~1 s of
    CPU. Torn down before a test of another module runs, as module fixtures are."""
    require_chromium()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


WIDTHS = {"phone": 400, "wide": 1200}
"""The widths each message is pictured at: a phone's and a wide page's."""


def shoot(page: Page, message: Locator, folder: Path, kind: str, lang: str) -> None:
    """The message at each width, once its pictures have loaded."""
    expect(message).to_be_visible()
    message.scroll_into_view_if_needed()
    for width_name, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_function(
            "(m) => [...m.querySelectorAll('img')].every(i => i.complete && i.naturalWidth)",
            arg=message.element_handle(), timeout=20_000)
        message.screenshot(path=str(folder / f"sandbox-{kind}-{lang}-{width_name}.png"))
    page.set_viewport_size({"width": WIDTHS["wide"], "height": 900})
