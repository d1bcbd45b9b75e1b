"""deploy/lama.service, the systemd unit docs/operations.md offers: ``systemd-analyze verify``
accepts it (its paths pointed at this checkout), and it says what the docs promise."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UNIT = ROOT / "deploy" / "lama.service"


def read_unit(text: str) -> dict[str, dict[str, list[str]]]:
    """The unit's sections, each key with every value it was given (keys may repeat)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        assert current is not None and "=" in line, f"not a unit line: {raw!r}"
        key, value = line.split("=", 1)
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def test_the_unit_says_what_the_docs_promise() -> None:
    unit = read_unit(UNIT.read_text(encoding="utf-8"))
    service = unit["Service"]
    assert service["ExecStart"] == ["/opt/lama/.venv/bin/python -m bot"]
    assert service["User"] == ["lama"] and service["Restart"] == ["on-failure"]
    assert service["EnvironmentFile"] == ["/opt/lama/.env"]
    assert service["KillSignal"] == ["SIGTERM"]
    assert service["RestartPreventExitStatus"] == ["2 3"]  # bad settings, refused token
    assert service["StateDirectory"] == ["lama"]
    assert unit["Install"]["WantedBy"] == ["multi-user.target"]
    docs = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    assert "deploy/lama.service" in docs


def test_systemd_accepts_the_unit(tmp_path: Path) -> None:
    """Where systemd is installed: ``systemd-analyze verify`` on the unit, its install paths
    replaced by this checkout's interpreter and a .env file (verify checks they exist)."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:  # (no systemd here: the test above read the unit)
        return
    env = tmp_path / "env"
    env.write_text("DISCORD_TOKEN=x\n", encoding="utf-8")
    text = (UNIT.read_text(encoding="utf-8")
            .replace("/opt/lama/.venv/bin/python", sys.executable)
            .replace("/opt/lama/.env", str(env))
            .replace("/opt/lama", str(tmp_path)))
    unit = tmp_path / "lama.service"
    unit.write_text(text, encoding="utf-8")
    result = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True,
                            timeout=60, check=False)
    problems = [line for line in (result.stdout + result.stderr).splitlines()
                if "lama.service" in line]
    assert result.returncode == 0 and not problems, result.stdout + result.stderr
