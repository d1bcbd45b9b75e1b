"""The move path's messages as they were built before the CPU work on it (discord.Embed,
its ``to_dict``, every translation filled afresh): the reference that
tests/bot/test_render_same.py holds today's output to, byte for byte.

A verbatim copy of cogs/hand_view.py's and cogs/render.py's hand and table renderers, of
cogs/layout.py's :func:`layout` and of the Translator's filling as of commit f62b7d8;
what did not change since (cards, buttons, the log lines, the legend keys) is imported.
"""
# ruff: noqa

from __future__ import annotations

import datetime
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.words import i18n
from bot.words.i18n import DIGITS, MARKUP, N_, PDI, FSI, Translator, _MENTION, _fields, _isolated
from bot.words.markdown import BUTTON_LABEL, FIELD_VALUE, SELECT_LABEL, SELECT_PLACEHOLDER, clip, escape
from cogs.buttons import act_custom_id, custom_id
from cogs.cards import (BLACK, SYMBOL_EMOJI, TOKEN, WHITE, card_text, cards_text, chips_text,
                        plain_text)
from cogs.hand_view import LEGEND, PLAYING, STYLES, _rows, _symbols, forced_quit
from cogs.layout import rows_of
from cogs.layout import (CONTAINER, FILE, MAX_COMPONENTS, MAX_TEXT, SCHEME, SEPARATOR, gallery,
                         text)
from cogs.render import (COLOUR, DANGER, LOG_LINES, MAX_ROW_BUTTONS, MAX_ROWS, PRIMARY,
                         SECONDARY, SELECT_THRESHOLD, SUCCESS, log_line)
from game import Action, ActionType, Card, Event, Phase, PlayerView


class ReferenceTranslator(Translator):
    """The filling of translations as it was."""

    def figures(self, value: object) -> str:
        if isinstance(value, int | float) and not isinstance(value, bool) and value < 0:
            return self.minus + self.figures(-value)  # (the language's own minus sign)
        text = str(value)
        table = DIGITS.get(self.language)
        if table is None or not any(c.isdigit() for c in text):
            return text
        out, last = [], 0
        for markup in MARKUP.finditer(text):
            out += [text[last:markup.start()].translate(table), markup[0]]
            last = markup.end()
        out.append(text[last:].translate(table))
        return "".join(out)

    def _fill(self, template: str, params: dict[str, object]) -> str:
        names = _fields(template)
        if not names:
            return template
        values = dict(params)
        for name in names:
            if name not in values and name.startswith("cmd_"):
                values[name] = self.command(name[4:].replace("__", " "))
        if self.language in DIGITS:
            values = self._localized(template, values)
        if not self.rtl:
            return template.format(**values)
        text = _isolated(template).format(**values)
        return _MENTION.sub(lambda m: FSI + m[0] + PDI, text)


    def _localized(self, template: str, values: dict[str, object]) -> dict[str, object]:
        """``values`` with their numbers in this language's digits (names and markup kept)."""
        plain = i18n._plain_fields(template)
        return {k: self.figures(v) if k in plain and not isinstance(v, bool) else v
                for k, v in values.items()}


class Layout:
    """A V2 message's components."""

    def __init__(self, components: list[dict[str, Any]]) -> None:
        self.components = components

    def to_components(self) -> list[dict[str, Any]]:
        return self.components

    def has_components_v2(self) -> bool:
        return True


def layout(content: str | None, embed: dict[str, Any] | None,
           rows: Sequence[dict[str, Any]] = (), files: Sequence[str] = ()
           ) -> list[dict[str, Any]]:
    """``content`` (the turn line), ``embed`` (a rendered message's title, body, sections,
    picture and footer, as :meth:`discord.Embed.to_dict` gives them) and the action
    ``rows``, as one V2 card within Discord's limits (the module docstring). ``files``:
    the names of the message's uploads; those the picture does not show are listed as file
    components (a V2 message shows only the uploads a component references)."""
    embed = embed or {}
    title, body = embed.get("title"), embed.get("description")
    head = "\n".join(x for x in (f"### {title}" if title else None, body) if x)
    fields = [f"**{f['name']}**\n{f['value']}" for f in embed.get("fields", ())]
    footer = (embed.get("footer") or {}).get("text")
    # a footer was shown literally; a text display renders markdown: escaped, line by line
    small = "\n".join(f"-# {escape(line)}" for line in footer.split("\n")) if footer else None
    image = (embed.get("image") or {}).get("url")
    top = content or None
    head, fields, small = _fit_text(top, head, fields, small)
    rows = list(rows)
    shown_files = [{"type": FILE, "file": {"url": f"{SCHEME}{name}"}} for name in files
                   if f"{SCHEME}{name}" != image]
    parts = {"divider": bool(rows), "fields": True, "image": image is not None}

    def build() -> list[dict[str, Any]]:
        inner: list[dict[str, Any]] = []
        if parts["fields"]:
            inner += [text(x) for x in (head, *fields) if x]
        else:
            inner.append(text("\n\n".join(x for x in (head, *fields) if x)))
        if parts["image"] and image is not None:
            inner.append(gallery(image))
        inner += shown_files
        if small:
            inner.append(text(small))
        if rows and parts["divider"]:
            inner.append({"type": SEPARATOR, "divider": True, "spacing": 1})
        inner += rows
        card: dict[str, Any] = {"type": CONTAINER, "components": inner}
        if embed.get("color") is not None:
            card["accent_color"] = embed["color"]
        return ([text(top)] if top else []) + [card]

    def counted(built: list[dict[str, Any]]) -> int:  # (= count(built), without a walk:
        # the container holds leaves and rows, rows hold leaves)
        return (len(built) + len(built[-1]["components"])
                + sum(len(row["components"]) for row in rows))

    built = build()
    for give in ("divider", "fields", "image"):  # what gives way first
        if counted(built) <= MAX_COMPONENTS:
            return built
        parts[give] = False
        built = build()
    while counted(built) > MAX_COMPONENTS and len(rows) > 1:
        del rows[-2]  # (the last row, Quit's, stays)
        built = build()
    return built


def _fit_text(top: str | None, head: str, fields: list[str], small: str | None
              ) -> tuple[str, list[str], str | None]:
    """The texts within :data:`MAX_TEXT` in all: the footer goes first, then the sections
    from the last, then the body is clipped."""
    def total() -> int:
        return sum(len(x) for x in (top, head, *fields, small) if x)

    if total() <= MAX_TEXT:
        return head, fields, small
    small = None
    while fields and total() > MAX_TEXT:
        fields = fields[:-1]
    if total() > MAX_TEXT:
        room = max(MAX_TEXT - (total() - len(head)) - 1, 0)
        head = head[:room] + "…"
    return head, fields, small


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
        """The components of ``view`` (items drawn as discord.ui objects), as sent."""
        return cls([row["components"] for row in view.to_components()])

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


@dataclass
class Payload:
    """What to send or edit a message to."""

    content: str | None = None
    embed: discord.Embed | None = None
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
        users = [discord.Object(u) for u in pinged] if pinged else False
        mentions = discord.AllowedMentions(everyone=False, roles=False, replied_user=False,
                                           users=users)
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


def seat_line(tr: Translator, view: PlayerView, seat: int, ai: bool) -> str:
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
    embed = discord.Embed(
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
    return {
        ActionType.DRAW: tr("Draw"),
        ActionType.QUIT: tr("Quit"),
        ActionType.SKIP: tr("Skip (give back the token)"),
        ActionType.PASS: tr("Pass (keep it)"),
        ActionType.STOP: tr("Stop the round"),
        ActionType.ROLL: tr("Roll the dice"),
    }.get(kind, str(action))


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


def legend_line(tr: Translator, keys: Iterable[str]) -> str | None:
    """One line naming what ``keys``' symbols mean, or None for none."""
    marks = {"star": SYMBOL_EMOJI["*"], "plus": SYMBOL_EMOJI["+"], "token": TOKEN,
             "white": WHITE, "black": BLACK}
    parts = [tr(LEGEND[k], **marks) for k in LEGEND if k in set(keys)]
    return "ℹ️ " + " · ".join(parts) if parts else None


def hand_message(
    tr: Translator, view: PlayerView, game: str, version: int, note: str | None = None,
    legend: Iterable[str] = (),
) -> Payload:
    """The ephemeral hand of ``view.me``: their cards, the table, their legal actions, and
    the legend of the symbols in ``legend`` (those shown to them for the first time)."""
    me = view.seats[view.me or 0]
    embed = discord.Embed(title=tr("{name}, your hand", name=tr.name(me.name)), colour=COLOUR)
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
