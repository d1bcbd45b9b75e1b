"""The leaderboard's and ``/lama stats``' texts, and what the stats chart draws.

Every sentence is whole (a record is never put into another sentence), in the reader's
language; names are escaped; dates are Discord timestamps, which every reader's client
shows in their own language and time zone.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.ladder.ratings import Skill
from bot.ladder.results import PlayedGame, Standing
from bot.pictures.chart import SEAT_EMOJI
from bot.words.i18n import N_, Translator
from bot.words.markdown import EMBED_TITLE, FIELD_VALUE, clip
from cogs.endings import places
from cogs.render import COLOUR
from game import find_rules, variant_names

PAGE_SIZE = 10  # rows per leaderboard page
RECENT = 5  # games listed under "Recent games"
CHART_GAMES = 20  # games the stats chart draws
CHART_FILE = "ratings.png"


def result(s: Standing) -> tuple[float]:
    """What orders the board (the store sorts by it): equal ratings share a place."""
    return (round(s.rating, 6),)


SKILL_MEANING = N_(
    "Skill: how well a player finishes against the others at the table (AI seats too), "
    "counted cautiously as the estimate minus 3 × its uncertainty (in brackets: estimate ± "
    "uncertainty). Everyone starts at 0.")
"""What "skill" means, under the board and the stats: the numbers stay for who wants them,
the words say what they are (OpenSkill's ordinal μ − 3σ, bot/ladder/ratings.py)."""


def _skill(tr: Translator, skill: Skill) -> dict[str, str]:
    return {"skill": tr.decimal(skill.ordinal), "estimate": tr.decimal(skill.mu),
            "uncertainty": tr.decimal(skill.sigma)}


def standing_line(tr: Translator, rank: int, s: Standing) -> str:
    return tr.plural(
        "{rank}. **{name}**: skill {skill} ({estimate} ± {uncertainty}), {wins} of {n} game "
        "won, {avg} points per game",
        "{rank}. **{name}**: skill {skill} ({estimate} ± {uncertainty}), {wins} of {n} games "
        "won, {avg} points per game",
        s.games, rank=rank, name=tr.name(s.name), wins=s.wins,
        avg=tr.decimal(s.average_points), **_skill(tr, s.skill))


def board_lines(tr: Translator, standings: Sequence[Standing], page: int) -> list[str]:
    """Page ``page`` (from 0) of the board, its places counted over the whole board."""
    numbers = places([result(s) for s in standings])
    start = page * PAGE_SIZE
    shown = zip(numbers[start:start + PAGE_SIZE], standings[start:start + PAGE_SIZE],
                strict=True)
    return [standing_line(tr, p, s) for p, s in shown]


def variant_line(tr: Translator, variant: str, board: Sequence[Standing], user_id: int
                 ) -> str | None:
    """The player's line for one rule set: their rank on its board, skill, record. A board's
    position is a "rank"; "place" is only ever a place in one game (:func:`game_line`)."""
    numbers = places([result(s) for s in board])
    found = next(((p, s) for p, s in zip(numbers, board, strict=True) if s.user_id == user_id),
                 None)
    if found is None:
        return None
    rank, s = found
    return tr.plural(
        "**{variant}**: rank {rank} of {players} on the leaderboard, skill {skill} ({estimate} "
        "± {uncertainty}), {wins} of {n} game won ({rate}%), {avg} points per game",
        "**{variant}**: rank {rank} of {players} on the leaderboard, skill {skill} ({estimate} "
        "± {uncertainty}), {wins} of {n} games won ({rate}%), {avg} points per game",
        s.games, variant=tr(find_rules(variant).title), rank=rank, players=len(board),
        wins=s.wins, rate=round(100 * s.win_rate), avg=tr.decimal(s.average_points),
        **_skill(tr, s.skill))


def game_line(tr: Translator, game: PlayedGame) -> str:
    """``<date> Classic: place 2 of 4, 17 points`` (🏆 when won): the place this player
    finished in that game, among its players."""
    date = f"<t:{int(game.ended_at)}:d>"
    title = tr(find_rules(game.variant).title)
    if game.place is None or game.players is None:
        line = tr.plural("{date} {variant}: {n} point", "{date} {variant}: {n} points",
                         game.points, date=date, variant=title)
    else:
        line = tr.plural("{date} {variant}: place {place} of {players}, {n} point",
                         "{date} {variant}: place {place} of {players}, {n} points",
                         game.points, date=date, variant=title, place=game.place,
                         players=game.players)
    return line + (" 🏆" if game.won else "")


def best_game(games: Sequence[PlayedGame]) -> PlayedGame | None:
    """The best place, among the most players, with the best points, latest first."""
    def key(g: PlayedGame) -> tuple[int, int, int, float]:
        lower = find_rules(g.variant).lower_score_wins
        return (g.place or 99, -(g.players or 0), g.points if lower else -g.points,
                -g.ended_at)

    return min(games, key=key, default=None)


def rule_sets() -> list[str]:
    """The rule sets in one fixed order (the registry's depends on which module was
    imported first): the chart's colours, the stats lines, the default board's ties."""
    return sorted(variant_names())


def colour_of(variant: str) -> int:
    names = rule_sets()
    return names.index(variant) if variant in names else len(names)


def chart_series(games: Sequence[PlayedGame]
                 ) -> list[tuple[int, list[tuple[int, float, bool]]]]:
    """The chart's lines: per rule set, (game number, skill after it, won), over the
    player's last :data:`CHART_GAMES` rated games."""
    recent = [g for g in games if g.skill is not None][-CHART_GAMES:]
    lines: dict[str, list[tuple[int, float, bool]]] = {}
    for number, g in enumerate(recent, start=1):
        assert g.skill is not None
        lines.setdefault(g.variant, []).append((number, g.skill.ordinal, g.won))
    return [(colour_of(v), points) for v, points in sorted(lines.items(),
                                                          key=lambda i: colour_of(i[0]))]


def stats_embed(tr: Translator, name: str, games: Sequence[PlayedGame],
                boards: dict[str, Sequence[Standing]], user_id: int) -> discord.Embed:
    """``/lama stats``: per rule set, recent games, best game, and the chart's legend."""
    title = tr("{name}'s record", name=tr.name(name))
    embed = discord.Embed(title=clip(title, EMBED_TITLE), colour=COLOUR)
    if not games:
        embed.description = tr("No finished games yet.")
        return embed
    lines = [line for v, board in boards.items()
             if (line := variant_line(tr, v, board, user_id)) is not None]
    embed.description = "\n".join(lines)
    embed.set_footer(text=tr(SKILL_MEANING))
    embed.add_field(name=tr("Recent games"), inline=False, value=clip(
        "\n".join(game_line(tr, g) for g in reversed(games[-RECENT:])), FIELD_VALUE))
    best = best_game(games)
    if best is not None:
        embed.add_field(name=tr("Best game"), value=clip(game_line(tr, best), FIELD_VALUE),
                        inline=False)
    return embed


def chart_games(series: Sequence[tuple[int, Sequence[tuple[int, float, bool]]]]) -> int:
    """How many games the chart draws (they are numbered 1.. across its lines)."""
    return max((x for _, points in series for x, _, _ in points), default=0)


def chart_alt(tr: Translator, name: str,
              series: Sequence[tuple[int, Sequence[tuple[int, float, bool]]]]) -> str:
    """The chart's description, with what its axes show."""
    return tr.plural(
        "A line chart of {name}'s skill (up) after {n} game (across).",
        "A line chart of {name}'s skill (up) after each of their last {n} games (across, "
        "oldest first).", chart_games(series), name=name)


def add_chart_legend(tr: Translator, embed: discord.Embed,
                     series: Sequence[tuple[int, Sequence[tuple[int, float, bool]]]]) -> None:
    """The chart's colours and axes named in the reader's language: the picture has no
    words (matplotlib would not shape Persian), so the message beside it says them."""
    colours = {c for c, _ in series}
    legend = [f"{SEAT_EMOJI[colour_of(v) % len(SEAT_EMOJI)]} {tr(find_rules(v).title)}"
              for v in rule_sets() if colour_of(v) in colours]
    legend.append(tr.plural("Across: {n} game; up: skill after it.",
                            "Across: the last {n} games, oldest first; up: skill after each.",
                            chart_games(series)))
    legend.append(tr("★ a game won; the dashed line is a newcomer's skill (0)."))
    embed.add_field(name=tr("Skill after each recent game"),
                    value=clip("\n".join(legend), FIELD_VALUE), inline=False)
