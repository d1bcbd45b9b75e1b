"""A click is answered only if its component is on the clicked message, at any depth
(bot/process/clicks.py's ``drawn_on``: rows, V2 containers and sections, a section's accessory)."""

from __future__ import annotations

from types import SimpleNamespace as Node

from bot.process.clicks import drawn_on

BUTTON, ROW, SECTION, TEXT, THUMBNAIL, CONTAINER = 2, 1, 9, 10, 11, 17


def button(custom_id: str) -> Node:
    return Node(type=Node(value=BUTTON), custom_id=custom_id)


def message() -> Node:
    """A hand's layout: text, a section with a button beside it, rows of buttons in a card."""
    row = Node(type=Node(value=ROW), children=[button(f"act:{i}") for i in range(5)])
    section = Node(type=Node(value=SECTION), children=[Node(type=Node(value=TEXT))],
                   accessory=button("beside"))
    pictured = Node(type=Node(value=SECTION), children=[], accessory=Node(
        type=Node(value=THUMBNAIL)))
    card = Node(type=Node(value=CONTAINER),
                children=[Node(type=Node(value=TEXT)), pictured, section, row])
    return Node(components=[card, Node(type=Node(value=ROW), children=[button("quit")])])


def test_a_component_is_found_at_any_depth() -> None:
    shown = message()
    assert drawn_on(shown, "act:3", BUTTON)  # a row inside the card
    assert drawn_on(shown, "beside", BUTTON)  # a section's accessory
    assert drawn_on(shown, "quit", BUTTON)  # a top-level row


def test_a_component_not_on_the_message_or_of_another_type_is_refused() -> None:
    shown = message()
    assert not drawn_on(shown, "act:9", BUTTON)
    assert not drawn_on(shown, "act:3", 3)  # the same id as a select menu
    assert not drawn_on(shown, "beside", 3)
    assert not drawn_on(None, "act:3", BUTTON)
    assert not drawn_on(Node(components=[]), "act:3", BUTTON)
