"""Starting and stopping the sandbox: Ctrl-C, a terminal or not, its guard against other sites."""

from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests import forkserver
from tests.sandbox.conftest import (
    ADDRESS,
    ROOT,
    START_TIMEOUT,
    alive,
    children,
    free_port,
    read_line,
    sandbox_env,
    start_sandbox,
    stopped_cleanly,
)

pytestmark = pytest.mark.slow  # sandbox and bot processes


def request(url: str, *, method: str = "GET", headers: dict[str, str] | None = None,
            body: dict[str, object] | None = None) -> tuple[int, str]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_only_its_own_page_may_use_it_and_ctrl_c_stops_it_cleanly(tmp_path: Path) -> None:
    sandbox = start_sandbox(tmp_path, "--port", str(free_port()))
    url = sandbox.url
    port = url.rsplit(":", 1)[1]
    status, page = request(url)
    assert status == 200 and "L.A.M.A. sandbox" in page
    assert request(url, headers={"Host": f"evil.example:{port}"})[0] == 403  # DNS rebinding
    act = f"{url}/api/members"
    json_type = {"Content-Type": "application/json"}
    ours = {**json_type, "Origin": url}
    assert request(act, method="POST", headers=json_type, body={"name": "dan"})[0] == 403
    evil = {**json_type, "Origin": "http://evil.example"}
    assert request(act, method="POST", headers=evil, body={"name": "dan"})[0] == 403
    text = {"Content-Type": "text/plain", "Origin": url}
    assert request(act, method="POST", headers=text, body={"name": "dan"})[0] == 415
    status, answer = request(act, method="POST", headers=ours, body={"name": "<b>x</b>"})
    assert status == 400 and "letters" in json.loads(answer)["error"]
    status, answer = request(act, method="POST", headers=ours, body={"name": "dan"})
    assert status == 200 and json.loads(answer)["member"]["name"] == "dan"
    status, answer = request(f"{url}/api/slash", method="POST", headers=ours,
                             body={"member": json.loads(answer)["member"]["id"],
                                   "text": "/lama start variant:chess"})
    assert status == 400 and "classic" in json.loads(answer)["error"]
    stopped_cleanly(sandbox, tmp_path)


def run_bot(tmp_path: Path, *args: str, tty: bool) -> tuple[int, str]:
    """``python -m bot ARGS`` without a token; with `tty`, on a terminal (a pty).

    Returns the exit code and what it wrote (stdout and stderr). On a terminal the process
    is stopped with Ctrl-C once it printed the sandbox's address.
    """
    env = sandbox_env(DISCORD_TOKEN=" ")  # blank beats a .env's token: no token
    command = ("-m", "bot", *args)  # real processes, forked from tests/forkserver.py
    if not tty:
        done = forkserver.run(*command, cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
                              timeout=60)
        return done.returncode, (done.stdout + done.stderr).decode()
    leader, follower = pty.openpty()
    process = forkserver.Popen(*command, cwd=tmp_path, env=env, stdin=follower,
                               stdout=follower, stderr=follower)
    os.close(follower)
    with os.fdopen(leader, "rb", buffering=0) as terminal:
        line = read_line(terminal, START_TIMEOUT, process)  # type: ignore[arg-type]
        bots = children(process.pid)
        if ADDRESS.search(line):  # the sandbox runs: Ctrl-C (a refusal exits by itself)
            assert len(bots) == 1, bots
            process.send_signal(signal.SIGINT)
        code = process.wait(timeout=30)
        assert not any(alive(pid) for pid in bots)
        rest = b""
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                chunk = terminal.read(4096)
            except OSError:  # EIO: the terminal's other side is closed
                break
            if not chunk:
                break
            rest += chunk
    return code, line + rest.decode()


def test_without_a_token_at_a_terminal_scripts_run_starts_the_sandbox(tmp_path: Path) -> None:
    code, out = run_bot(tmp_path, "--sandbox-if-no-token", tty=True)
    lines = out.strip().splitlines()
    assert len(lines) == 1, out
    assert lines[0].startswith("No DISCORD_TOKEN") and ADDRESS.search(lines[0]), out
    assert code == 0


def test_without_a_token_and_no_terminal_it_refuses(tmp_path: Path) -> None:
    code, out = run_bot(tmp_path, "--sandbox-if-no-token", tty=False)
    lines = out.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "DISCORD_TOKEN is not set" in lines[0], out


def test_plain_python_m_bot_refuses_even_at_a_terminal(tmp_path: Path) -> None:
    code, out = run_bot(tmp_path, tty=True)
    lines = out.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "DISCORD_TOKEN is not set" in lines[0], out


def test_scripts_run_without_a_terminal_refuses_in_one_line(tmp_path: Path) -> None:
    env = sandbox_env(DISCORD_TOKEN=" ")
    done = subprocess.run(["bash", str(ROOT / "scripts" / "run")], env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=300)
    lines = done.stderr.decode().strip().splitlines()
    assert done.returncode == 2, done
    assert lines[-1].startswith("DISCORD_TOKEN is not set"), done
    assert b"sandbox" not in done.stdout
