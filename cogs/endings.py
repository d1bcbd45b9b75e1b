"""Round summaries and final standings.

A round's summary is public: each player's points and the reasons the rules engine gave
(``Event.scores``), including the values their scoring counted, as players show their
cards when counting at a table (docs/rules.md, "What a round's summary says"). Nothing
here works out why: a new reason is a new item kind in the engine and a sentence here.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby

import discord

from bot.words.i18n import N_, Translator
from bot.words.markdown import BUTTON_LABEL, clip
from cogs.buttons import RematchButton
from cogs.cards import LLAMA, VALUE_EMOJI, by_chip
from cogs.render import COLOUR, Components, Payload
from game import Event, EventKind, PlayerView
from game.events import ScoreKind, SeatScore

# One whole line per reason (never a reason put into a line): the sentence around a reason
# changes with it in other languages. ``{values}`` is a sum of emoji and figures, the same
# in every language ("🟡3 + 🔵5 + 🦙10").
RETURNED_LINE = {
    "white": N_("**{name}**: {points} (emptied their hand and returned a white chip); "
                "total {total}"),
    "black": N_("**{name}**: {points} (emptied their hand and returned a black chip); "
                "total {total}"),
    None: N_("**{name}**: {points} (emptied their hand, no chip to return); total {total}"),
}
RETURNED_TOKEN_LINE = {
    "white": N_("**{name}**: {points} (emptied their hand and returned a white chip, then "
                "took a black chip for the magic token); total {total}"),
    "black": N_("**{name}**: {points} (emptied their hand and returned a black chip, then "
                "took a black chip for the magic token); total {total}"),
    None: N_("**{name}**: {points} (emptied their hand with no chip to return, then took a "
             "black chip for the magic token); total {total}"),
}
CARDS_LEFT = N_("**{name}**: {points} (cards left: {values}); total {total}")
CARDS_LEFT_TOKEN = N_("**{name}**: {points} (cards left: {values}, and a black chip for the "
                      "magic token); total {total}")
TILES_LEFT = N_("**{name}**: {points} (tiles left: {values}); total {total}")
BUSTED = N_("**{name}**: {points} (took the rest of the llama row; tiles left: {values}); "
            "total {total}")
CARDS_MINUS = N_("**{name}**: {points} (minus the cards left: {values}); total {total}")
STOPPED = N_("**{name}**: {points} (stopped the round on a llama); total {total}")
NO_CARDS = N_("**{name}**: {points} (no cards left); total {total}")
NO_TILES = N_("**{name}**: {points} (no tiles left); total {total}")
COUNTED = (ScoreKind.VALUE, ScoreKind.LLAMAS, ScoreKind.CARD)


def values_text(score: SeatScore) -> str:
    """The counted values as a sum: each value's emoji and the points it counted for; the
    same card counted again and again (the tutorial counts every card) as ``3×🔵5``."""
    parts = [f"{LLAMA if item.value == 'L' else VALUE_EMOJI[int(item.value or 0)]}"
             f"{abs(item.points)}"
             for item in score.items if item.kind in COUNTED and item.value is not None]
    grouped = []
    for part, same in groupby(parts):
        count = len(list(same))
        grouped.append(f"{count}×{part}" if count > 1 else part)
    return " + ".join(grouped) or "0"


def reason(score: SeatScore) -> str:
    """The msgid that says why ``score`` came about, read from its items alone."""
    returned = score.of(ScoreKind.RETURNED)
    token = bool(score.of(ScoreKind.TOKEN))
    if returned:
        return by_chip(RETURNED_TOKEN_LINE if token else RETURNED_LINE, returned[0].chip)
    if score.of(ScoreKind.STOPPED):
        return STOPPED
    if score.of(ScoreKind.CARD):
        return CARDS_MINUS
    if score.of(ScoreKind.BUSTED):
        return BUSTED
    if token:
        return CARDS_LEFT_TOKEN
    if score.of(ScoreKind.VALUE) or score.of(ScoreKind.LLAMAS):
        return TILES_LEFT if score.tiles else CARDS_LEFT
    return NO_TILES if score.tiles else NO_CARDS


def _line(tr: Translator, score: SeatScore, total: int, after: PlayerView) -> str:
    """The seat's line of the round summary: name, points, why (the engine's breakdown),
    new total."""
    return tr(reason(score), name=tr.name(after.seats[score.seat].name),
              points=tr.signed(score.points), values=values_text(score), total=total)


def round_summary(
    tr: Translator, events: Sequence[Event], before: PlayerView | None, after: PlayerView,
    round_no: int,
) -> Payload | None:
    """What each player scored in the round that ``events`` ended, and why: the engine's
    breakdown, rendered (``before`` is not needed: nothing is worked out here)."""
    over = next((e for e in events if e.kind is EventKind.ROUND_OVER), None)
    if over is None:
        return None
    embed = discord.Embed(title=tr("Round {n} is over", n=round_no), colour=COLOUR)
    embed.description = "\n".join(
        _line(tr, score, after.seats[score.seat].score, after) for score in over.scores)
    return Payload(embed=embed)


def _result(view: PlayerView, seat: int) -> tuple[bool, int]:
    """What places a seat: winning, then fewest points (chip games) or most (tutorial)."""
    sign = 1 if view.uses_chips else -1
    return seat not in view.winners, sign * view.seats[seat].score


def ranking(view: PlayerView) -> list[int]:
    """Seats, best first; equal results keep seat order."""
    return sorted(range(len(view.seats)), key=lambda s: (_result(view, s), s))


def places(results: Sequence[object]) -> list[int]:
    """Competition ranking of results already sorted best first: equal ones share a place
    and the next place skips (1, 2, 2, 4)."""
    out: list[int] = []
    for index, result in enumerate(results):
        out.append(out[-1] if index and result == results[index - 1] else index + 1)
    return out


def final_standings(
    tr: Translator, view: PlayerView, game_id: str, users: Sequence[int | None]
) -> Payload:
    """The game's end: standings (the winners crowned in their lines, and mentioned above
    when human), and a Rematch button."""
    embed = discord.Embed(title=tr("{title}: final standings", title=tr(view.title)), colour=COLOUR)
    lines = []
    order = ranking(view)
    for place, seat in zip(places([_result(view, s) for s in order]), order, strict=True):
        s = view.seats[seat]
        crown = " 🏆" if seat in view.winners else ""
        bot = " 🤖" if users[seat] is None else ""
        lines.append(tr.plural("{place}. **{name}**{bot}: {n} point{crown}",
                               "{place}. **{name}**{bot}: {n} points{crown}", s.score,
                               place=place, name=tr.name(s.name), bot=bot, crown=crown))
    embed.description = "\n".join(lines)  # the winners' lines carry the 🏆: no field repeats them
    buttons = discord.ui.View(timeout=None)
    buttons.add_item(RematchButton(game_id, clip(tr("Rematch"), BUTTON_LABEL)))
    humans = [u for s in view.winners if (u := users[s]) is not None]
    content = "🏆 " + tr.join([f"<@{u}>" for u in humans]) if humans else None
    return Payload(content=content, embed=embed, view=Components.of(buttons), mentions=humans)
