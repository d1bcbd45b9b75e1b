"""A game rebuilt from its record and seed goes on exactly as the original would.

This is what lets the bot restore running games after a restart (issue 5):
chance outcomes are a pure function of (seed, round, index), not of a
generator's hidden position.
"""

from __future__ import annotations

import random

import pytest

from game import Game, from_dict, summary, to_dict


def _play(game: Game, chooser: random.Random, steps: int) -> None:
    for _ in range(steps):
        if game.finished:
            return
        legal = game.legal_actions()
        game.apply(game.to_act, legal[chooser.randrange(len(legal))])


@pytest.mark.parametrize("variant", ["classic", "kadabra", "dice", "tutorial"])
@pytest.mark.parametrize("cut", [0, 7, 40, 150])
def test_restored_game_continues_identically(variant: str, cut: int) -> None:
    players = ["ana", "ben", "cleo"]
    original = Game(variant, players, seed="restore-test")
    _play(original, random.Random(1), cut)

    record = from_dict(to_dict(original))
    restored = Game(variant, players, record.options, seed="restore-test", chance=record.rounds)
    for seat, action in record.actions:
        restored.apply(seat, action)
    assert summary(restored) == summary(original)

    _play(original, random.Random(2), 400)
    _play(restored, random.Random(2), 400)
    assert summary(restored) == summary(original)
    assert to_dict(restored) == to_dict(original)
