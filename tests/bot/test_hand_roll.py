"""A dice hand says whose roll it shows: "your roll" only to the player who rolled it."""

from __future__ import annotations

import random

from bot.words.i18n import translator
from cogs.hand_view import hand_message
from game import Game, Phase, player_view


def _a_roll_being_resolved() -> Game:
    game = Game("dice", ["ana", "ben", "cleo"], {"target": 40}, seed=11)
    chooser = random.Random(2)
    for _ in range(200):
        if game.state.phase is Phase.RESOLVE:
            return game
        seat = game.to_act
        assert seat is not None
        game.apply(seat, chooser.choice(player_view(game, seat).legal))
    raise AssertionError("no roll was ever waiting to be resolved")


def test_only_the_roller_reads_your_roll() -> None:
    game = _a_roll_being_resolved()
    roller = game.to_act
    assert roller is not None
    waiting = (roller + 1) % 3
    for language in ("en", "de"):
        tr = translator(language)
        yours = tr("Your roll: {dice}", dice="").strip()
        own = hand_message(tr, player_view(game, roller), "0123456789ab", 1).embed
        theirs = hand_message(tr, player_view(game, waiting), "0123456789ab", 1).embed
        assert own is not None and theirs is not None
        assert yours in (own.description or "")
        assert yours not in (theirs.description or "")
        roller_name = player_view(game, waiting).seats[roller].name
        assert tr("{name}'s roll: {dice}", name=roller_name, dice="").strip() in (
            theirs.description or "")
