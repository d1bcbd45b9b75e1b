"""Right to left (Persian): what points or is signed reads the right way round.

The table's turn marker points at the name of the player to act (◀️ where the line runs right
to left); the sandbox's turn badge finds either (tests/sandbox/test_page_v2.py). A signed
number keeps its sign on the digits' left in a right-to-left line, isolated or not: Persian
writes a LEFT-TO-RIGHT MARK and the MINUS SIGN (U+2212) before them, as CLDR does (the whole
Persian games of tests/bot/test_i18n_games.py check every message for a bare sign).
"""

from __future__ import annotations

import unicodedata

import pytest

from bot.ladder.ratings import Skill
from bot.ladder.results import Standing
from bot.words.i18n import FSI, LANGUAGES, PDI, RTL, translator
from cogs.ladder_text import standing_line
from cogs.render import seat_line, table_message
from game import Game, player_view
from game.events import SeatScore
from tests.bot.i18n_checks import bare_signs
from tests.bot.test_round_summary import find_round, rendered

LRM, MINUS = "\u200e", "\u2212"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_turn_marker_points_at_the_name(language: str) -> None:
    tr = translator(language)
    view = player_view(Game("classic", ["ana", "ben"], {"target": 40}, seed=1), None)
    assert view.to_act is not None
    name = view.seats[view.to_act].name
    shown = f"{FSI}{name}{PDI}" if language in RTL else name
    marker = "◀️" if language in RTL else "▶️"  # the name is to its left, or to its right
    assert seat_line(tr, view, view.to_act, False).startswith(f"{marker} **{shown}**")
    other = 1 - view.to_act
    assert seat_line(tr, view, other, False).startswith("▫️ ")
    table = table_message(tr, view, "f" * 32, [1, 2], [])
    assert table.embed is not None and table.embed.description is not None
    assert table.embed.description.count(marker) == 1
    assert ("▶️" if language in RTL else "◀️") not in table.embed.description


def test_persian_signs_stay_on_the_left_of_the_digits() -> None:
    fa = translator("fa")
    assert fa.decimal(-2.8) == f"{LRM}{MINUS}۲٫۸"
    assert (fa.signed(3), fa.signed(-2), fa.signed(0)) == (f"{LRM}+۳", f"{LRM}{MINUS}۲",
                                                          f"{LRM}+۰")
    assert fa.figures(-5) == f"{LRM}{MINUS}۵" and fa.figures(5) == "۵"
    assert fa.plural("{n} point", "{n} points", -5).startswith(f"{FSI}{LRM}{MINUS}۵{PDI}")
    assert unicodedata.bidirectional(LRM) == "L", "a strong left-to-right mark"
    assert bare_signs("-۲ +۳ \u2212۴") == ["-۲", "+۳", "\u2212۴"] and not bare_signs(
        fa.decimal(-2.8) + fa.signed(3))


@pytest.mark.parametrize("language", ["en", "fr", "es", "de"])
def test_other_languages_keep_their_hyphen_minus(language: str) -> None:
    tr = translator(language)
    assert (tr.signed(3), tr.signed(-2), tr.figures(-5)) == ("+3", "-2", "-5")
    assert tr.decimal(-2.75) in ("-2.8", "-2,8") and tr.decimal(-0.04) in ("0.0", "0,0")


def test_a_negative_skill_on_the_persian_leaderboard() -> None:
    """The screenshot's "۲٫۸-": ben's skill −2.8 (21.4 − 3 × 8.07)."""
    ben = Standing(2, "ben", games=1, wins=0, points=7, skill=Skill(21.4, 8.067))
    line = standing_line(translator("fa"), 2, ben)
    assert f"{FSI}{LRM}{MINUS}۲٫۸{PDI}" in line and not bare_signs(line), line
    assert "-2.8" in standing_line(translator("en"), 2, ben)


@pytest.mark.parametrize("sign", [-1, 1])
def test_a_persian_round_summary_signs_its_points(sign: int) -> None:
    def wanted(score: SeatScore) -> bool:
        return score.points * sign > 0

    events, after, round_no, seat = find_round("classic", wanted)
    text = rendered("fa", events, after, round_no)
    points = next(s.points for e in events if e.scores for s in e.scores if s.seat == seat)
    shown = translator("fa").signed(points)
    assert shown.startswith(LRM + (MINUS if sign < 0 else "+"))
    assert f"{FSI}{shown}{PDI}" in text.split("\n")[seat] and not bare_signs(text), text
