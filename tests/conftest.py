"""Suite-wide settings: the hypothesis profiles that size the property tests, and the
end-of-run report of Discord's pacing per whole game (tests/bot/conftest.py's ``world``).

``lama`` (the default) plays 40 random games per rule set and property test. Measured by
the line-to-line steps of ``game/`` they take (two draws of 100 games per rule set), the
steps 100 games take are all taken within 10 to 50 games, but for two that only chance
reaches at any count, each tested on purpose elsewhere: the wording of a few refusals of a
misdirected Kadabra 1 (tests/game_ai/test_play.py) and a quitter returning a chip with none
left (tests/game/test_breakdown.py). 100 games cost some 14 s of CPU a run, 40 about 6.
``ci-deep`` plays 1,000, for a nightly or pre-release run:
``pytest --hypothesis-profile ci-deep tests/game/test_properties.py`` (or
``HYPOTHESIS_PROFILE=ci-deep``). Each run draws new games; a failing one is replayed first
on the next run from the ``.hypothesis`` folder.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

# Discord's 3-second rule is wall-clock time: on a loaded machine a correct bot can miss it.
# The rule is tested on the fake's clock (tests/fake/test_fake.py passes 3 s explicitly);
# tests that kill the bot mid-click use 3 s (tests/bot/helpers.py: KILLED_CLICK); everywhere
# else a slow machine must not fail a test (the load benchmark counts answers
# over 3 s on a quiet one).
os.environ.setdefault("FAKEDISCORD_INTERACTION_TIMEOUT", "30")

settings.register_profile("lama", max_examples=40, deadline=None)
settings.register_profile("ci-deep", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "lama"))

@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """``--dist worksteal`` (scripts/test's) with the longest tests first: tests/schedule.py."""
    if config.getvalue("dist") != "worksteal":
        return None
    from tests.schedule import LongestFirst

    return LongestFirst(config, log)  # type: ignore[arg-type]


PACING_REPORT: list[tuple[str, dict[str, object]]] = []
"""Per test run with pacing: what Discord's rate limits did to the bot. Read from the test
reports, which reach this (main) process from pytest-xdist's workers too."""


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "teardown":
        name = report.nodeid.rsplit("::", 1)[-1]
        PACING_REPORT.extend((name, v) for k, v in report.user_properties if k == "pacing")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Per whole game under pacing: 429s, time waited on buckets, lint."""
    if not PACING_REPORT:
        return
    terminalreporter.section("Discord pacing per game")
    for name, stats in PACING_REPORT:
        terminalreporter.write_line(
            f"{name}: {stats['requests']} requests, {stats['429s']} 429s, waited "
            f"{stats['wait_discord_s']} Discord s ({stats['wait_real_s']} real s), "
            f"lint {stats['lint']}, 429s by bucket {stats['by_bucket']}"
        )
