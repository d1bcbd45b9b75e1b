"""Round summaries and final standings (public: points and reasons, never a hand)."""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.i18n import N_, Translator
from bot.markdown import BUTTON_LABEL, clip
from cogs.buttons import RematchButton
from cogs.cards import by_chip
from cogs.render import COLOUR, Payload
from game import Event, EventKind, PlayerView

# One whole line per reason (never a reason put into a line): the sentence around a reason
# changes with it in other languages.
RETURNED_LINE = {
    "white": N_("**{name}**: {points} (emptied their hand and returned a white chip); "
                "total {total}"),
    "black": N_("**{name}**: {points} (emptied their hand and returned a black chip); "
                "total {total}"),
    "token": N_("**{name}**: {points} (emptied their hand and returned the magic token); "
                "total {total}"),
    None: N_("**{name}**: {points} (emptied their hand, no chip to return); total {total}"),
}


def _line(
    tr: Translator, seat: int, points: int, total: int, events: Sequence[Event],
    before: PlayerView | None, after: PlayerView,
) -> str:
    """The seat's line of the round summary: name, points, why, new total."""
    params = {"name": tr.name(after.seats[seat].name), "points": f"{points:+d}", "total": total}
    returned = next((e for e in events if e.kind is EventKind.RETURNED_CHIP and e.seat == seat),
                    None)
    if returned is not None:
        return tr(by_chip(RETURNED_LINE, returned.card), **params)
    if before is not None and before.token_holder == seat and after.uses_magic:
        return tr("**{name}**: {points} (cards left, and 10 for holding the magic token); "
                  "total {total}", **params)
    if not after.uses_chips and points > 0:
        return tr("**{name}**: {points} (stopped the round on a llama); total {total}", **params)
    if before is not None and before.seats[seat].hand_size:
        return tr.plural("**{name}**: {points} ({n} card left in hand); total {total}",
                         "**{name}**: {points} ({n} cards left in hand); total {total}",
                         before.seats[seat].hand_size, **params)
    return tr("**{name}**: {points} (no cards left); total {total}", **params)


def round_summary(
    tr: Translator, events: Sequence[Event], before: PlayerView | None, after: PlayerView,
    round_no: int,
) -> Payload | None:
    """What each player scored in the round that ``events`` ended, and why."""
    over = next((e for e in events if e.kind is EventKind.ROUND_OVER), None)
    if over is None:
        return None
    embed = discord.Embed(title=tr("Round {n} is over", n=round_no), colour=COLOUR)
    lines = [_line(tr, s.seat, over.points[s.seat], s.score, events, before, after)
             for s in after.seats]
    embed.description = "\n".join(lines)
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
    """The game's end: standings, winners, and a Rematch button."""
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
    embed.description = "\n".join(lines)
    winners = tr.join([tr.name(view.seats[s].name) for s in view.winners])
    embed.add_field(name=tr("Winners"), value=winners or "—", inline=False)
    buttons = discord.ui.View(timeout=None)
    buttons.add_item(RematchButton(game_id, clip(tr("Rematch"), BUTTON_LABEL)))
    humans = [u for s in view.winners if (u := users[s]) is not None]
    content = "🏆 " + tr.join([f"<@{u}>" for u in humans]) if humans else None
    return Payload(content=content, embed=embed, view=buttons, mentions=humans)
