"""Components V2 within Discord's limits (cogs/layout.py): the most crowded message counts
its nested components and its text, and what gives way first when a message would not fit."""

from __future__ import annotations

import dataclasses

import pytest

from bot.words.i18n import translator
from cogs.hand_view import LEGEND, hand_message
from cogs.layout import MAX_COMPONENTS, MAX_TEXT, count, layout, text_length
from cogs.render import button
from game import Action, ActionType, Card, PlayerView
from game.rules.kadabra import DECK
from tests.bot.helpers import kadabra_gift_turn

LANGUAGES = ("en", "fr", "es", "de", "fa")


def crowded_kadabra_hand() -> PlayerView:
    """A Kadabra hand at its most crowded: six seats, every card of the deck in hand and
    every one playable, a 1 to give a chip to any of five players (the menu), Draw and Quit,
    long names, chips and the token."""
    names = [f"{'N' * 36}-{i}" for i in range(6)]
    _, view = kadabra_gift_turn(names, 2000)
    me = view.me or 0
    cards = sorted(set(DECK), key=lambda c: c.sort_key)
    one = Card.parse("1")
    legal = [*(Action(ActionType.PLAY, card=c) for c in cards if c is not one),
             *(Action(ActionType.PLAY, card=one, give_to=s) for s in range(6) if s != me),
             Action(ActionType.DRAW), Action(ActionType.QUIT)]
    seats = list(view.seats)
    seats[me] = dataclasses.replace(seats[me], white=9, black=9, holds_token=True)
    return dataclasses.replace(view, hand=tuple(cards + cards), legal=tuple(legal),
                               seats=tuple(seats))


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_most_crowded_hand_fits(language: str) -> None:
    view = crowded_kadabra_hand()
    tr = translator(language)
    payload = hand_message(tr, view, "0123456789abcdef", 999999,
                           tr("You drew {card}: play it or keep it.", card="🟡6"), LEGEND)
    assert payload.embed is not None
    payload.embed.set_image(url="attachment://hand-0123456789ab.png")  # (cogs.pictures)
    card = payload.layout()
    assert card is not None and card.has_components_v2()
    components = card.to_components()
    total = count(components)
    assert total <= MAX_COMPONENTS and text_length(components) <= MAX_TEXT
    assert total == 27, f"{language}: {total} components (the figure docs/ gives)"
    kinds = [c["type"] for c in components[0]["components"]]
    assert kinds[:3] == [10, 12, 14], "text, then the picture, then the buttons under it"
    flat = [c for row in components[0]["components"] if row["type"] == 1
            for c in row["components"]]
    assert any(c["type"] == 3 for c in flat), "the give-a-chip menu is there"
    ids = [c.get("custom_id", "") for c in flat]
    assert any(i.endswith(":draw") for i in ids) and any(i.endswith(":quit") for i in ids)


def test_components_give_way_divider_sections_picture_then_rows() -> None:
    rows = [{"type": 1, "components": [button(f"b{r}:{i}", "x") for i in range(5)]}
            for r in range(7)]  # 42 components of buttons alone
    embed = {"title": "t", "description": "d", "image": {"url": "attachment://p.png"},
             "fields": [{"name": f"f{i}", "value": "v"} for i in range(3)],
             "footer": {"text": "small"}}
    built = layout("turn", embed, rows)
    assert count(built) <= MAX_COMPONENTS
    inner = built[1]["components"]
    assert 14 not in [c["type"] for c in inner], "the divider went first"
    assert 12 not in [c["type"] for c in inner], "then the picture"
    assert inner[-1]["components"][0]["custom_id"] == "b6:0", "the last row (Quit's) stays"
    texts = [c["content"] for c in inner if c["type"] == 10]
    assert texts[0].startswith("### t\nd\n\n**f0**"), "the sections merged into the body"
    fits = layout("turn", embed, rows[:5])
    # the turn line, the container, title and body, 3 sections, picture, footer, divider, rows
    assert count(fits) == 1 + 1 + 1 + 3 + 1 + 1 + 1 + 30 == 39, "all of it fits"


def test_text_gives_way_footer_sections_then_body() -> None:
    embed = {"title": "t", "description": "d" * 3000, "footer": {"text": "f" * 100},
             "fields": [{"name": "a", "value": "v" * 900}, {"name": "b", "value": "w" * 900}]}
    built = layout(None, embed)
    assert text_length(built) <= MAX_TEXT
    texts = [c["content"] for c in built[0]["components"] if c["type"] == 10]
    assert not any(t.startswith("-# ") for t in texts), "the footer went first"
    assert texts[1].startswith("**a**") and len(texts) == 2, "then the last section"
    longer = layout(None, {**embed, "description": "d" * 5000})
    assert text_length(longer) <= MAX_TEXT and longer[0]["components"][0]["content"].endswith("…")
