"""The move path's messages are the same after its CPU work: the clicker's hand, the next
hand, the quit confirmation and the table, each as discord.py is given it (V2 components,
allowed mentions, attachments) and as the outbox keeps it (the sheet's dict), equal to
those of the reference renderers (tests/bot/render_reference.py: the code as it was) for
states of every rule set, in every language, with and without pictures, chips and tokens,
notes, the legend, and hostile names."""

from __future__ import annotations

from typing import Any

import pytest

from bot.words.i18n import translator
from cogs.cards import event_text
from cogs.hand_view import LEGEND, hand_message, quit_confirmation
from cogs.render import Payload, table_message
from game import Event, PlayerView, ai, player_view, visible_to
from game.events import EventKind
from game.game import Game
from tests.bot import render_reference as ref

LANGUAGES = ("en", "fr", "es", "de", "fa")
VARIANTS = ("classic", "dice", "kadabra", "tutorial")
NAMES = ("Ana", "**bold** _ben_", "دارا", "\u202eevil`|x", "Zoë <@1> #c")
GAME = "3f2a9c1b"
PICTURE = "attachment://hand-0123456789abcdef.png"


def states(variant: str, seats: int, every: int = 3) -> list[tuple[PlayerView, ...]]:
    """Every ``every``-th decision of a random-AI game: the mover's view, the next player's
    view and the public view, with the table's recent events."""
    found: list[Any] = []
    for game_no in range(40):
        if len(found) >= 30:
            break
        found += _states(variant, seats, every, game_no)
    return found


def _states(variant: str, seats: int, every: int, game_no: int) -> list[Any]:
    names = list(NAMES[:seats])
    game = Game(variant, names, seed=f"same:{variant}:{seats}:{game_no}")
    players = [ai.find("random")(f"same:{game_no}:{s}") for s in range(seats)]
    found: list[Any] = []
    recent: list[Event] = []
    step = 0
    while not game.finished and step < 120:
        seat = game.to_act
        events = game.apply(seat, players[seat].choose(player_view(game, seat)))
        for event in visible_to(events, None):
            if event.kind is EventKind.ROUND_STARTED:
                recent = []
            if event.kind not in (EventKind.ROUND_OVER, EventKind.GAME_OVER):
                recent.append(event)
        del recent[:-8]
        step += 1
        if step % every == 0 or game.finished:
            following = game.to_act if game.to_act is not None else seat
            found.append((player_view(game, seat), player_view(game, following),
                          player_view(game, None), tuple(recent), events))
    return found


def wire(kwargs: dict[str, Any]) -> dict[str, Any]:
    """What discord.py is given (the view as its components)."""
    sent = {k: v for k, v in kwargs.items() if k not in ("view", "allowed_mentions")}
    view = kwargs.get("view")
    sent["components"] = None if view is None else view.to_components()
    sent["v2"] = view is not None and view.has_components_v2()
    sent["allowed_mentions"] = kwargs["allowed_mentions"].to_dict()
    return sent


def sheet(payload: Any) -> dict[str, Any]:
    """The outbox's copy (payload_body), its time aside (each render has its own)."""
    data = payload.embed.to_dict()
    data.pop("timestamp", None)
    return data


def same(new: Any, old: Any) -> None:
    assert sheet(new) == sheet(old)
    assert ("timestamp" in new.embed.to_dict()) == ("timestamp" in old.embed.to_dict())
    assert list(new.embed.to_dict()) == list(old.embed.to_dict())  # (keys in the same order)
    assert wire(new.kwargs()) == wire(old.kwargs())
    assert wire(new.kwargs(edit=True)) == wire(old.kwargs(edit=True))
    assert wire(new.edit_kwargs()) == wire(old.edit_kwargs())


def pictured(payload: Any, on: bool) -> Any:
    if on:
        payload.embed.set_image(url=PICTURE)
        payload.keep_files = True
    return payload


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_move_messages_are_the_reference_ones(variant: str, language: str) -> None:
    tr = translator(language)
    old_tr = ref.ReferenceTranslator(language, tr._catalog)
    seats = 4 if variant != "tutorial" else 2
    checked = 0
    for i, (mover, following, public, recent, events) in enumerate(states(variant, seats)):
        names = [s.name for s in public.seats]
        note = "\n".join(event_text(tr, e, names) or "" for e in events) or None
        legend = list(LEGEND)[: i % (len(LEGEND) + 1)]
        on = i % 2 == 0
        for view, text in ((mover, note), (following, None)):
            new = pictured(hand_message(tr, view, GAME, i, text, legend), on)
            old = pictured(ref.hand_message(old_tr, view, GAME, i, text, legend), on)
            same(new, old)
            if view.my_turn:
                same(quit_confirmation(tr, view, GAME, i), ref.quit_confirmation(old_tr, view,
                                                                                 GAME, i))
        users: list[int | None] = [10 ** 17 + s if s % 3 else None for s in range(seats)]
        deadline = 1_900_000_000.5 + i if i % 3 else None
        new_table = table_message(tr, public, GAME, users, recent, deadline)
        old_table = ref.table_message(old_tr, public, GAME, users, recent, deadline)
        same(new_table, old_table)
        new_table.mentions = old_table.mentions = [10 ** 17 + 1]  # (a table posted anew)
        same(new_table, old_table)
        checked += 1
    assert checked >= 10


def test_a_relaxed_footer_and_a_removed_picture_read_as_before() -> None:
    """cogs/table_posts.py appends the pace to the table's footer; cogs/charts.py takes a
    picture and its section away: the sheet does what the embed did."""
    tr = translator("fa")
    _, _, public, recent, _ = states("kadabra", 4)[5]
    new = table_message(tr, public, GAME, [1, 2, 3, 4], recent)
    old = ref.table_message(ref.ReferenceTranslator("fa", tr._catalog), public, GAME,
                            [1, 2, 3, 4], recent)
    for payload in (new, old):
        payload.embed.set_footer(text=f"{payload.embed.footer.text} · x")
        payload.embed.set_image(url=PICTURE)
        payload.embed.add_field(name="chart", value="legend", inline=False)
        assert payload.embed.image and payload.embed.fields
        payload.embed.set_image(url=None)
        payload.embed.remove_field(len(payload.embed.fields) - 1)
        payload.embed.remove_field(99)
        assert not payload.embed.image
    same(new, old)
    assert isinstance(new, Payload)
