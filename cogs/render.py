"""Player views → message payloads (what a message says, and its buttons; laid out as
Components V2 in one place, cogs/layout.py). Never the full game state."""

from __future__ import annotations

import datetime
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.words.i18n import Translator
from bot.words.markdown import BUTTON_LABEL, FIELD_VALUE, clip
from cogs.buttons import AI_OPS, LOBBY_OPS, LobbyButton, custom_id
from cogs.cards import TOKEN, card_text, cards_text, chips_text, event_text, plain_text
from cogs.layout import Layout, Sheet, layout, rows_of
from game import Card, Event, PlayerView

COLOUR = discord.Colour.from_rgb(222, 170, 60)
MAX_ROW_BUTTONS = 5
MAX_ROWS = 5
SELECT_THRESHOLD = 10  # more discard choices than this: offer a select
LOG_LINES = 5  # the table's last moves
PRIMARY, SECONDARY, SUCCESS, DANGER = 1, 2, 3, 4  # Discord's button styles


class Components:
    """A message's components as Discord's JSON, built directly rather than as discord.ui
    objects, for the messages that change with every move (the hands and the table).

    discord.py sends it as it sends a View (it asks for nothing but what is here) but, being
    "finished", never stores it: no View object, and no 15-minute timeout task for each
    ephemeral hand. The clicks are routed by the bot's click listener (bot/process/clicks.py) to the
    items of cogs/buttons.py, whose templates these custom_ids match.

    Every message the bot draws carries its components so (:meth:`of` for those drawn as
    DynamicItems): a live View holding a DynamicItem would hand its class to discord.py,
    which would then also dispatch its clicks its own way."""

    __discord_ui_view__ = True
    timeout = None

    def __init__(self, rows: Sequence[list[dict[str, Any]]] = ()) -> None:
        self.rows = [row for row in rows if row]

    @classmethod
    def of(cls, view: discord.ui.View) -> Components:
        """The components of ``view`` (items drawn as discord.ui objects), as sent.

        ``view`` is spent: its items are taken out of it, since a View and its items refer to
        each other and every lobby and game end would otherwise leave that cycle (with its
        future) for a full garbage collection (tests/bot/test_let_go.py)."""
        rows = [row["components"] for row in view.to_components()]
        view.clear_items()
        return cls(rows)

    def to_components(self) -> list[dict[str, Any]]:
        return [{"type": 1, "components": row} for row in self.rows]

    def is_finished(self) -> bool:
        return True

    def is_dispatchable(self) -> bool:
        return False

    def has_components_v2(self) -> bool:
        return False


def button(cid: str, label: str, style: int = SECONDARY, emoji: str | None = None
           ) -> dict[str, Any]:
    data: dict[str, Any] = {"type": 2, "style": style, "label": label, "custom_id": cid,
                            "disabled": False}
    if emoji is not None:
        data["emoji"] = {"name": emoji}
    return data


def select(cid: str, options: list[tuple[str, str]], placeholder: str) -> dict[str, Any]:
    return {"type": 3, "custom_id": cid, "placeholder": placeholder, "min_values": 1,
            "max_values": 1, "disabled": False,
            "options": [{"label": label, "value": value, "default": False}
                        for label, value in options]}


NO_PINGS = discord.AllowedMentions(everyone=False, roles=False, replied_user=False, users=False)
"""Most messages' mentions (nobody pinged): one value, never changed (discord.py only reads
it: it merges it into a new one)."""


@dataclass
class Payload:
    """What to send or edit a message to."""

    content: str | None = None
    embed: discord.Embed | Sheet | None = None  # (Sheet: the hands and the table)
    view: discord.ui.View | Components | Layout | None = None
    mention: int | None = None  # the one user this message may ping
    extra: dict[str, Any] = field(default_factory=dict)
    files: list[discord.File] = field(default_factory=list)  # pictures (cogs.pictures), the record
    mentions: list[int] = field(default_factory=list)  # more users it may ping (winners)
    keep_files: bool = False  # an edit keeps the message's files (its picture is unchanged)

    def kwargs(self, *, edit: bool = False) -> dict[str, Any]:
        """For sending (with pictures, their files); ``edit``: for editing a message
        (one posted before the upgrade, as an embed, turns into the V2 layout)."""
        files = {"files": self.files} if self.files else {}
        return {**files, **self._common(edit)}

    def edit_kwargs(self) -> dict[str, Any]:
        """For editing: the attachments are replaced by this payload's files (maybe none),
        or, with ``keep_files``, left as they are (Discord keeps what an edit omits)."""
        files = {} if self.keep_files else {"attachments": self.files}
        return {**files, **self._common(True)}

    def layout(self) -> Layout | None:
        """The message as Components V2 (cogs/layout.py), or None: a plain text message
        (a note, a ping) stays as it is."""
        if self.embed is None:
            return None
        return Layout(layout(self.content, self.embed.to_dict(), rows_of(self.view),
                             [f.filename for f in self.files if f.filename]))

    def _common(self, edit: bool) -> dict[str, Any]:
        pinged = ([self.mention] if self.mention else []) + self.mentions
        mentions = NO_PINGS if not pinged else discord.AllowedMentions(
            everyone=False, roles=False, replied_user=False,
            users=[discord.Object(u) for u in pinged])
        card = self.layout()
        if card is None:
            return {"content": self.content, "embed": self.embed, "view": self.view,
                    "allowed_mentions": mentions}
        cleared = {"content": None, "embed": None} if edit else {}  # (V2 allows neither)
        return {**cleared, "view": card, "allowed_mentions": mentions}


def short_label(card: Card) -> str:
    """A card in a button label: ``3``, ``2/3⭐``, ``🦙``."""
    return plain_text(card)[1:] if card.numbers else plain_text(card)


def options_text(tr: Translator, view: PlayerView) -> str:
    options = dict(view.options)
    if "rounds" in options:
        return tr.plural("{n} round; highest total wins.", "{n} rounds; highest total wins.",
                         options["rounds"])
    return tr.plural("The game ends when someone reaches {n} point; fewest points wins.",
                     "The game ends when someone reaches {n} points; fewest points wins.",
                     options.get("target", 40))


# ---- lobby ---------------------------------------------------------------------------


def lobby_message(
    tr: Translator, game: str, title: str, host: str, seats: Sequence[tuple[str, bool]],
    options: str, closed: str | None = None,
) -> Payload:
    """The public lobby: seats and (unless ``closed``) Join, Leave, Start, Cancel, and the
    host's Add AI and Remove AI. ``host`` is already escaped (a name or a mention)."""
    lines = [f"{tr.figures(i + 1)}. {'🤖 ' if ai else ''}{tr.name(name)}"
             for i, (name, ai) in enumerate(seats)]
    embed = discord.Embed(title=tr("{title}: new game", title=title), colour=COLOUR)
    embed.description = "\n".join(lines) or tr("Nobody is seated yet.")
    embed.add_field(name=tr("Host"), value=host)
    embed.add_field(name=tr("Rules"), value=options)
    if closed is not None:
        embed.set_footer(text=closed)
        return Payload(embed=embed, view=Components())
    embed.set_footer(text=tr("2 to 6 seats. The host starts the game."))
    labels = {
        "join": (tr("Join"), discord.ButtonStyle.success),
        "leave": (tr("Leave"), discord.ButtonStyle.secondary),
        "start": (tr("Start"), discord.ButtonStyle.primary),
        "cancel": (tr("Cancel"), discord.ButtonStyle.danger),
    }
    view = discord.ui.View(timeout=None)
    for op in LOBBY_OPS:
        label, style = labels[op]
        view.add_item(LobbyButton(game, op, label, style))
    for item in ai_buttons(tr, game):
        view.add_item(item)
    return Payload(embed=embed, view=Components.of(view))


def ai_buttons(tr: Translator, game: str) -> list[LobbyButton]:
    """The host's AI seat controls (second row): Add easy AI, Add AI, Add hard AI, Remove AI."""
    labels = {"easyai": tr("Add easy AI"), "ai": tr("Add AI"), "hardai": tr("Add hard AI"),
              "noai": tr("Remove AI")}
    items = [LobbyButton(game, op, labels[op]) for op in AI_OPS]
    for item in items:
        item.item.row = 1
    return items


# ---- the public table ----------------------------------------------------------------


SEAT_LINES_KEPT = 4096
"""Seat lines remembered (the newest): a seat's line changes only when that seat does or the
turn comes to it or leaves it, so most of a table's lines are those of its last edit."""
_SEAT_LINES: OrderedDict[tuple[object, ...], str] = OrderedDict()


def seat_line(tr: Translator, view: PlayerView, seat: int, ai: bool) -> str:
    """A seat's line on the table (written once per language and what it shows)."""
    s = view.seats[seat]
    key = (tr.language, s, seat == view.to_act, view.uses_chips, ai)
    line = _SEAT_LINES.get(key)
    if line is None:
        line = _SEAT_LINES[key] = _seat_line(tr, view, seat, ai)
        if len(_SEAT_LINES) > SEAT_LINES_KEPT:  # the oldest goes
            _SEAT_LINES.popitem(last=False)
    return line


def _seat_line(tr: Translator, view: PlayerView, seat: int, ai: bool) -> str:
    s = view.seats[seat]
    marker = tr.turn_marker if seat == view.to_act else ("🏳️" if s.quit else "▫️")
    parts = [f"{marker} **{tr.name(s.name)}**{' 🤖' if ai else ''}"]
    if s.tiles is not None:
        parts.append(tr.isolate(tr.figures(cards_text(s.tiles))))
    else:
        parts.append(tr.plural("{n} card", "{n} cards", s.hand_size))
    if view.uses_chips:
        parts.append(tr.isolate(tr.figures(chips_text(s.white, s.black))))
    parts.append(tr.plural("{n} point", "{n} points", s.score))
    if s.holds_token:
        parts.append(TOKEN)
    if s.quit:
        parts.append(tr("quit"))
    return " · ".join(parts)


def table_message(
    tr: Translator, view: PlayerView, game: str, users: Sequence[int | None],
    recent: Sequence[Event], deadline: float | None = None,
) -> Payload:
    """The public table: everything public, the log, whose turn it is and its deadline.

    It pings nobody (it is edited in place; the ping is its own short message,
    bot/policies/timers.py),
    so its mention of the player to act only names them; posted as a new message it
    notifies the players :func:`notify` is given."""
    embed = Sheet(
        title=tr("{title}: round {n}", title=tr(view.title), n=view.round_no), colour=COLOUR,
        timestamp=datetime.datetime.now(datetime.UTC),  # "as of": edits may be merged
    )
    lines: list[str] = []
    if view.top is not None:
        lines.append(tr("Top card: {card}", card=card_text(view.top)))
    if view.draw_pile is not None:
        lines.append(tr.plural("{n} card left to draw", "{n} cards left to draw", view.draw_pile))
    if view.row is not None:
        lines.append(tr("Llama row: {tiles}", tiles=cards_text(view.row)))
    if view.roll is not None:
        lines.append(tr("Roll: {dice}", dice=cards_text(view.roll)))
    if view.stage is not None:
        white, black = view.stage
        chips = chips_text(white, black)
        lines.append(tr("Magic stage: {chips} (magic show!)", chips=chips) if white + black >= 5
                     else tr("Magic stage: {chips}", chips=chips))
        lines.append(tr("Magic token {token}: in the supply", token=TOKEN)
                     if view.token_holder is None
                     else tr("Magic token {token}: {name}", token=TOKEN,
                             name=tr.name(view.seats[view.token_holder].name)))
    lines.append("")
    lines += [seat_line(tr, view, s.seat, users[s.seat] is None) for s in view.seats]
    embed.description = "\n".join(lines)
    names = tuple(s.name for s in view.seats)
    log: list[str] = []
    for event in reversed(recent):  # the last five that say something
        if len(log) == LOG_LINES:
            break
        if text := log_line(tr, event, names):
            log.insert(0, text)
    if log:
        embed.add_field(name=tr("Last moves"), value=clip("\n".join(log), FIELD_VALUE),
                        inline=False)
    embed.set_footer(text=options_text(tr, view))
    content, mention = None, None
    if view.to_act is not None:
        user = users[view.to_act]
        if user is None:
            content = tr("{name} is thinking…", name=tr.name(view.seats[view.to_act].name))
        else:
            content = tr("<@{user}>, it is your turn.", user=user)
            if deadline is not None:
                content = tr("<@{user}>, it is your turn (the bot plays for you {deadline}).",
                             user=user, deadline=f"<t:{int(deadline)}:R>")
    buttons = Components([[button(custom_id("hand", game), clip(tr("My hand"), BUTTON_LABEL),
                                  PRIMARY, "🃏")]])
    return Payload(content=content, embed=embed, view=buttons, mention=mention)


def notify(tr: Translator, payload: Payload, users: Sequence[int]) -> None:
    """A table posted as a new message tells ``users`` the game is on, below its turn line:
    it pings them (Discord notifies on new messages only, and only the allowed mentions),
    built from ids alone."""
    if not users:
        return
    line = tr("{mentions}: your game is on. Press 🃏 **My hand** to see your hand and play.",
              mentions=" ".join(f"<@{int(u)}>" for u in users))
    # the turn line stays first: whose turn it is reads first (and is the first mention)
    payload.content = line if not payload.content else f"{payload.content}\n{line}"
    payload.mentions = [int(u) for u in users]


LOG_LINES_KEPT = 2048
"""Log lines remembered (the newest): a line is needed for the next few table edits of its
game only, so this covers every game running at once; more only held finished games'
events (up to 20,000 lines held was 10+ MB of a long run's memory)."""
_LOG_LINES: OrderedDict[tuple[str, Event, tuple[str, ...]], str | None] = OrderedDict()


def log_line(tr: Translator, event: Event, names: tuple[str, ...]) -> str | None:
    """An event's line in the table's log: each is shown in up to five table edits, so it is
    written once (per language and names) and kept while it is among the newest."""
    key = (tr.language, event, names)
    if key in _LOG_LINES:
        return _LOG_LINES[key]
    line = _LOG_LINES[key] = event_text(tr, event, names)
    if len(_LOG_LINES) > LOG_LINES_KEPT:  # the oldest goes
        _LOG_LINES.popitem(last=False)
    return line
