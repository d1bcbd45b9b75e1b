"""Round summaries and final standings (public: points and reasons, never a hand)."""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.i18n import Translator
from cogs.buttons import RematchButton
from cogs.cards import colour_text
from cogs.render import COLOUR, Payload
from game import Event, EventKind, PlayerView


def _reason(
    tr: Translator, seat: int, points: int, events: Sequence[Event], before: PlayerView | None,
    after: PlayerView,
) -> str:
    returned = next((e for e in events if e.kind is EventKind.RETURNED_CHIP and e.seat == seat),
                    None)
    if returned is not None:
        return tr("emptied their hand and returned {what}", what=colour_text(tr, returned.card))
    if before is not None and before.token_holder == seat and after.uses_magic:
        return tr("cards left, and 10 for holding the magic token")
    if not after.uses_chips and points > 0:
        return tr("stopped the round on a llama")
    if before is not None and before.seats[seat].hand_size:
        left = before.seats[seat].hand_size
        return tr.plural("{n} card left in hand", "{n} cards left in hand", left)
    return tr("no cards left")


def round_summary(
    tr: Translator, events: Sequence[Event], before: PlayerView | None, after: PlayerView,
    round_no: int,
) -> Payload | None:
    """What each player scored in the round that ``events`` ended, and why."""
    over = next((e for e in events if e.kind is EventKind.ROUND_OVER), None)
    if over is None:
        return None
    embed = discord.Embed(title=tr("Round {n} is over", n=round_no), colour=COLOUR)
    lines = []
    for s in after.seats:
        points = over.points[s.seat]
        sign = f"{points:+d}"
        reason = _reason(tr, s.seat, points, events, before, after)
        lines.append(tr("**{name}**: {points} ({reason}); total {total}",
                        name=s.name, points=sign, reason=reason, total=s.score))
    embed.description = "\n".join(lines)
    return Payload(embed=embed)


def ranking(view: PlayerView) -> list[int]:
    """Seats, best first: fewest points (chip games) or most points (tutorial)."""
    sign = 1 if view.uses_chips else -1
    return sorted(range(len(view.seats)),
                  key=lambda s: (s not in view.winners, sign * view.seats[s].score, s))


def final_standings(
    tr: Translator, view: PlayerView, channel_id: int, game_id: str, users: Sequence[int | None]
) -> Payload:
    """The game's end: standings, winners, and a Rematch button."""
    embed = discord.Embed(title=tr("{title}: final standings", title=tr(view.title)), colour=COLOUR)
    lines = []
    for place, seat in enumerate(ranking(view), start=1):
        s = view.seats[seat]
        crown = " 🏆" if seat in view.winners else ""
        bot = " 🤖" if users[seat] is None else ""
        lines.append(f"{place}. **{tr.isolate(s.name)}**{bot}: "
                     + tr.plural("{n} point", "{n} points", s.score) + crown)
    embed.description = "\n".join(lines)
    winners = tr.join([tr.isolate(view.seats[s].name) for s in view.winners])
    embed.add_field(name=tr("Winners"), value=winners or "—", inline=False)
    buttons = discord.ui.View(timeout=None)
    buttons.add_item(RematchButton(channel_id, game_id, tr("Rematch")))
    return Payload(embed=embed, view=buttons)
