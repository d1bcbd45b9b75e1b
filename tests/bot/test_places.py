"""Equal results share a place (1, 2, 2, 4) in the final standings and the leaderboard."""

from __future__ import annotations

import dataclasses
import re

from bot.store.sqlite import SeatResult
from bot.words.i18n import translator
from cogs.endings import final_standings, places
from game import Game, player_view
from tests.bot.conftest import World
from tests.bot.helpers import card


def test_competition_ranking() -> None:
    assert places([1, 2, 2, 3]) == [1, 2, 2, 4]
    assert places([(False, 5), (False, 5), (True, 7)]) == [1, 1, 3]
    assert places([]) == []


def places_shown(text: str) -> list[int]:
    return [int(m) for m in re.findall(r"^(\d+)\. ", text, flags=re.MULTILINE)]


def test_players_who_tie_share_a_place_in_the_final_standings() -> None:
    game = Game("classic", ["ana", "ben", "cleo", "dan"], {"target": 40}, seed=1)
    view = player_view(game, None)
    scores = [12, 20, 20, 31]  # ben and cleo tie for second
    seats = tuple(dataclasses.replace(s, score=p) for s, p in zip(view.seats, scores, strict=True))
    view = dataclasses.replace(view, seats=seats, winners=(0,))
    embed = final_standings(translator("en"), view, "f" * 32, [1, 2, 3, 4]).embed
    assert embed is not None and embed.description is not None
    assert places_shown(embed.description) == [1, 2, 2, 4], embed.description
    assert embed.description.splitlines()[0].endswith("🏆") and not embed.fields, \
        "the winner is crowned in their line, not repeated in a field"


async def test_players_who_tie_share_a_place_on_the_leaderboard(world: World) -> None:
    store = world.bot.store
    players = [(world.ana.id, "ana"), (world.ben.id, "ben"), (world.cleo.id, "cleo")]
    document = {"variant": "classic", "seed": 1, "record": None, "started_at": 0.0,
                "seats": [{"user_id": u, "name": n} for u, n in players]}
    # ana wins both games; ben and cleo lose both with the same points: the same record
    for number in range(2):
        results = [SeatResult(0, world.ana.id, "ana", 5, True),
                   SeatResult(1, world.ben.id, "ben", 20, False),
                   SeatResult(2, world.cleo.id, "cleo", 20, False)]
        await store.finish_game(world.guild.id, world.table.id,
                                {**document, "game_id": f"{number:032x}"}, results)
    board = await world.ana.slash(world.table, "lama leaderboard")
    assert board.message is not None
    description = card(board.message).description or ""
    assert places_shown(description) == [1, 2, 2], description
