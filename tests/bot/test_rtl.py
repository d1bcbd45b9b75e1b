"""Right to left (Persian): what points or is signed reads the right way round.

The table's turn marker points at the name of the player to act (◀️ where the line runs right
to left); the sandbox's turn badge finds either (tests/sandbox/test_page_v2.py).
"""

from __future__ import annotations

import pytest

from bot.words.i18n import FSI, LANGUAGES, PDI, RTL, translator
from cogs.render import seat_line, table_message
from game import Game, player_view


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

