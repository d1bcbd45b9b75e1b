"""Cards compare by identity in C: no comparison method written in Python."""

from __future__ import annotations

from game.cards import ALL_CARDS, PLAIN_VALUES, Card, sort_cards

COMPARISONS = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__")


def test_a_card_defines_no_comparison_in_python() -> None:
    """Any one of them would route every ``==`` on a card (``in``, ``index``, ``remove`` on
    a hand, at every turn) through a Python-level slot, several times slower."""
    for name in COMPARISONS:
        assert getattr(Card, name) is getattr(object, name), name


def test_cards_are_equal_only_to_themselves() -> None:
    hand = list(PLAIN_VALUES[:6])
    assert PLAIN_VALUES[6] not in hand
    assert all(card in hand for card in PLAIN_VALUES[:6])
    assert hand.index(PLAIN_VALUES[3]) == 3
    assert Card.parse("2/3") == Card.parse("2/3") and Card.parse("2/3") != Card.parse("2/3*")


def test_the_order_is_the_sort_key() -> None:
    assert list(ALL_CARDS) == sorted(ALL_CARDS, key=lambda card: card.sort_key)
    assert sort_cards(list(reversed(ALL_CARDS))) == list(ALL_CARDS)
    assert [card.token for card in ALL_CARDS[:3]] == ["1", "2", "2*"]
