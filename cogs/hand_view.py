"""A player's hand as a message: their cards, what they may do, and what its symbols mean.

The hand explains itself: the playing choices come first (buttons, then the menus that
play a card), the other moves (Draw, Skip, Roll…) after them and Quit last, on its own
row; a forced Quit (the only legal move) acts at once, with no question; a one-line
legend names the symbols (⭐, ➕, chips, 🎩) the first time a game shows them to the player.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from bot.words.i18n import N_, Translator
from bot.words.markdown import BUTTON_LABEL, SELECT_LABEL, SELECT_PLACEHOLDER, clip
from cogs.buttons import act_custom_id, custom_id
from cogs.cards import BLACK, SYMBOL_EMOJI, TOKEN, WHITE, card_text, cards_text, chips_text
from cogs.layout import Sheet
from cogs.render import (
    COLOUR,
    DANGER,
    MAX_ROW_BUTTONS,
    MAX_ROWS,
    PRIMARY,
    SECONDARY,
    SELECT_THRESHOLD,
    SUCCESS,
    Components,
    Payload,
    button,
    select,
    short_label,
)
from game import Action, ActionType, Card, Phase, PlayerView
from game.cards import Symbol

PLAYING = (ActionType.PLAY, ActionType.TAKE, ActionType.DISCARD)
"""The moves that choose a card or tile: drawn first."""

LEGEND: dict[str, str] = {
    "star": N_("{star} star card: its player takes the magic token {token}"),
    "plus": N_("{plus} plus card: the next player draws a card"),
    "chips": N_("{white} white chip: 1 point, {black} black chip: 10 points"),
    "token": N_("{token} magic token: 10 more points at the end of the round; "
                "give it back to skip a turn"),
}
"""One part per symbol, in this order; a hand shows the parts for the symbols it shows
that this game has not yet explained to its player (cogs/legend.py)."""


def action_label(tr: Translator, action: Action, counts: Counter[Card]) -> str:
    kind = action.type
    if kind is ActionType.PLAY and action.card is not None:
        n = counts[action.card]
        card = short_label(action.card)
        return tr("Play {card}", card=card) if n < 2 else tr("Play {card} (×{n})", card=card, n=n)
    if kind is ActionType.TAKE and action.card is not None:
        return tr("Take {tile}", tile=short_label(action.card))
    if kind is ActionType.DISCARD:
        return tr("Discard {tiles}", tiles=" ".join(short_label(t) for t in action.tiles))
    message = LABELS.get(kind)
    return str(action) if message is None else tr(message)


LABELS = {
    ActionType.DRAW: N_("Draw"),
    ActionType.QUIT: N_("Quit"),
    ActionType.SKIP: N_("Skip (give back the token)"),
    ActionType.PASS: N_("Pass (keep it)"),
    ActionType.STOP: N_("Stop the round"),
    ActionType.ROLL: N_("Roll the dice"),
}
"""The labels of the moves that name no card (only the one shown is translated)."""


STYLES = {
    ActionType.PLAY: SUCCESS,
    ActionType.DISCARD: SUCCESS,
    ActionType.TAKE: SUCCESS,
    ActionType.DRAW: PRIMARY,
    ActionType.ROLL: PRIMARY,
    ActionType.QUIT: DANGER,
    ActionType.STOP: DANGER,
}


def forced_quit(view: PlayerView) -> bool:
    """Quit is the player's only legal move: nothing to choose, so nothing to confirm."""
    return view.my_turn and len(view.legal) == 1 and view.legal[0].type is ActionType.QUIT


def _rows(items: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    return [items[i:i + MAX_ROW_BUTTONS] for i in range(0, len(items), MAX_ROW_BUTTONS)]


def action_components(tr: Translator, view: PlayerView, game: str, version: int) -> Components:
    """One button per legal action, the playing ones first; then the menus that play (a
    Kadabra 1's recipient, a long list of discards); then the other moves; Quit last."""
    counts = Counter(view.hand if view.seats[view.me or 0].tiles is None else
                     view.seats[view.me or 0].tiles or ())
    gifts = [a for a in view.legal if a.type is ActionType.PLAY and a.give_to is not None]
    discards = [a for a in view.legal if a.type is ActionType.DISCARD]
    as_select = len(discards) > SELECT_THRESHOLD
    rest = [a for a in view.legal if a not in gifts and not (as_select and a in discards)]
    selects: list[dict[str, Any]] = []
    if gifts:
        options = [(clip(tr.plain(view.seats[a.give_to].name), SELECT_LABEL), str(a))
                   for a in gifts if a.give_to is not None]
        card = short_label(gifts[0].card) if gifts[0].card else "1"
        placeholder = clip(tr("Play {card} and give a chip to…", card=card), SELECT_PLACEHOLDER)
        selects.append(select(custom_id("pick", game, version, "gift"), options, placeholder))
    if as_select:
        options = [(clip(action_label(tr, a, counts), SELECT_LABEL), str(a))
                   for a in discards[:25]]
        selects.append(select(custom_id("pick", game, version, "discard"), options,
                              clip(tr("Discard…"), SELECT_PLACEHOLDER)))

    def item(a: Action) -> dict[str, Any]:
        return button(act_custom_id(game, version, str(a)),
                      clip(action_label(tr, a, counts), BUTTON_LABEL),
                      STYLES.get(a.type, SECONDARY))

    playing = [item(a) for a in rest if a.type in PLAYING]
    others = [item(a) for a in rest if a.type not in PLAYING and a.type is not ActionType.QUIT]
    quit_row: list[dict[str, Any]] = []
    if any(a.type is ActionType.QUIT for a in rest):
        quit_row = ([button(act_custom_id(game, version, "quit"),
                            clip(tr("Quit"), BUTTON_LABEL), DANGER)] if forced_quit(view)
                    else [button(custom_id("ask", game, version, "quit"),
                                 clip(tr("Quit"), BUTTON_LABEL))])  # asks first (cogs/table.py)
    other_rows = _rows(others)
    if quit_row and other_rows and len(other_rows[-1]) < MAX_ROW_BUTTONS and (
            len(_rows(playing)) + len(selects) + len(other_rows) + 1 > MAX_ROWS):
        other_rows[-1] += quit_row  # no row to spare: Quit ends the last row instead
        quit_row = []
    room = (MAX_ROWS - len(selects) - len(other_rows) - (1 if quit_row else 0)) * MAX_ROW_BUTTONS
    return Components([*_rows(playing[:room]), *([s] for s in selects), *other_rows, quit_row])


def quit_confirmation(tr: Translator, view: PlayerView, game: str, version: int) -> Payload:
    """The hand asks before Quit (it ends the player's round): Yes, or back to the hand."""
    payload = hand_message(tr, view, game, version,
                           tr("**Quit?** It ends your round: what you hold counts."))
    quit_action = next((a for a in view.legal if a.type is ActionType.QUIT), None)
    row = []
    if quit_action is not None and view.my_turn:
        row.append(button(act_custom_id(game, version, str(quit_action)),
                          clip(tr("Yes, quit"), BUTTON_LABEL), DANGER))
    row.append(button(custom_id("ask", game, version, "back"), clip(tr("Back"), BUTTON_LABEL)))
    payload.view = Components([row])
    return payload


def _symbols(cards: Iterable[Card | None]) -> set[Symbol]:
    return {c.symbol for c in cards if c is not None}


def symbols_shown(view: PlayerView) -> list[str]:
    """The :data:`LEGEND` keys of the symbols :func:`hand_message` shows ``view``'s owner."""
    me = view.seats[view.me or 0]
    shown = _symbols((*view.hand, view.top, view.drawn))
    keys = [key for key, symbol in (("star", Symbol.STAR), ("plus", Symbol.DRAW))
            if symbol in shown]
    if view.uses_chips:
        keys.append("chips")
    if me.holds_token or any(a.type is ActionType.SKIP for a in view.legal):
        keys.append("token")
    return keys


_MARKS = {"star": SYMBOL_EMOJI["*"], "plus": SYMBOL_EMOJI["+"], "token": TOKEN, "white": WHITE,
          "black": BLACK}


def legend_line(tr: Translator, keys: Iterable[str]) -> str | None:
    """One line naming what ``keys``' symbols mean, or None for none (the usual case: a
    symbol is explained once a game)."""
    wanted = set(keys)
    if not wanted:
        return None
    parts = [tr(LEGEND[k], **_MARKS) for k in LEGEND if k in wanted]
    return "ℹ️ " + " · ".join(parts) if parts else None


def hand_message(
    tr: Translator, view: PlayerView, game: str, version: int, note: str | None = None,
    legend: Iterable[str] = (),
) -> Payload:
    """The ephemeral hand of ``view.me``: their cards, the table, their legal actions, and
    the legend of the symbols in ``legend`` (those shown to them for the first time)."""
    me = view.seats[view.me or 0]
    embed = Sheet(title=tr("{name}, your hand", name=tr.name(me.name)), colour=COLOUR)
    lines = []
    if note:
        lines += [note, ""]
    if me.tiles is not None:
        lines.append(tr("Your tiles: {cards}", cards=cards_text(me.tiles)))
        if view.row is not None:
            lines.append(tr("Llama row: {tiles}", tiles=cards_text(view.row)))
        if view.roll is not None and view.my_turn:
            lines.append(tr("Your roll: {dice}", dice=cards_text(view.roll)))
        elif view.roll is not None and view.to_act is not None:
            roller = tr.name(view.seats[view.to_act].name)
            lines.append(tr("{name}'s roll: {dice}", name=roller, dice=cards_text(view.roll)))
    else:
        lines.append(tr("Your hand: {cards}", cards=cards_text(view.hand)))
        if view.top is not None:
            lines.append(tr("Top card: {card}", card=card_text(view.top)))
    if view.uses_chips:
        chips = chips_text(me.white, me.black) + (f" {TOKEN}" if me.holds_token else "")
        lines.append(tr("Your chips: {chips}", chips=tr.isolate(tr.figures(chips))))
    if view.drawn is not None:
        lines.append(tr("You drew {card}: play it or keep it.", card=card_text(view.drawn)))
    if view.finished:
        lines.append(tr("The game is over."))
    elif view.my_turn:
        lines.append(tr("**Your turn.**"))
    elif view.to_act is not None:
        lines.append(tr("Waiting for {name}.", name=tr.name(view.seats[view.to_act].name)))
    if view.phase is Phase.PLAY and view.my_turn and view.hand and view.top is not None:
        playable = {a.card for a in view.legal if a.type is ActionType.PLAY}
        held = [c for c in view.hand if c not in playable]
        if held:
            lines.append(tr("Not playable now: {cards}", cards=cards_text(held)))
    if forced_quit(view):
        lines.append(tr("Quit is your only move now: it ends your round."))
    if (text := legend_line(tr, legend)) is not None:
        lines.append(text)
    embed.description = "\n".join(lines)
    components = (action_components(tr, view, game, version) if view.my_turn
                  else Components())
    return Payload(embed=embed, view=components)
