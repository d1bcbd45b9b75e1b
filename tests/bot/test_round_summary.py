"""Round summaries render the engine's breakdown (cogs/endings.py), in every language.

The rounds come from the engine itself: seeded games are played until a round ends the
way a case needs (the token's holder emptying their hand; a bust in dice), then the
summary of that very round is rendered, in several languages. Through the fake Discord,
two players click moves planned from the bot's seed so that the first round ends that way,
and the channel's summary says so; a whole dice game shows every round's breakdown.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import discord
import pytest

from bot.words.i18n import FSI, LANGUAGES, PDI, translator
from cogs.endings import round_summary
from fakediscord import Member, Message
from game import Action, ActionType, Event, EventKind, Game, PlayerView, from_dict, player_view
from game.events import ScoreKind, SeatScore
from tests.bot.conftest import World
from tests.bot.helpers import answered, card, first_button, play_out

NAMES = ["ana", "ben", "cleo"]


def find_round(variant: str, wanted: Callable[[SeatScore], bool]) -> tuple[list[Event],
                                                                         PlayerView, int, int]:
    """The first seeded round (random players) in which some seat's breakdown is
    ``wanted``: its events, the spectator's view after it, the round number and the seat."""
    for game_no in range(500):
        options = {"rounds": 8} if variant == "tutorial" else {"target": 60}
        game = Game(variant, NAMES, options, seed=f"summary:{game_no}")
        chooser = random.Random(game_no)
        while not game.finished:
            legal = game.legal_actions()
            quits = [a for a in legal if a.type.value == "quit"]
            others = [a for a in legal if a not in quits] or quits
            round_no = game.state.round_no
            events = game.apply(game.to_act, chooser.choice(others))  # type: ignore[arg-type]
            over = next((e for e in events if e.kind is EventKind.ROUND_OVER), None)
            if over is not None:
                seat = next((s.seat for s in over.scores if wanted(s)), None)
                if seat is not None:
                    return events, player_view(game, None), round_no, seat
    raise AssertionError(f"no {variant} round of the kind wanted in 500 games")


def line_of(text: str, seat: int) -> str:
    """A seat's line (one per seat, in seat order: names may be isolated in Persian)."""
    lines = text.split("\n")
    assert len(lines) == len(NAMES), text
    return lines[seat]


def rendered(language: str, events: list[Event], after: PlayerView, round_no: int) -> str:
    payload = round_summary(translator(language), events, None, after, round_no)
    assert payload is not None and isinstance(payload.embed, discord.Embed)
    return payload.embed.description or ""


def token_emptied(score: SeatScore) -> bool:
    return bool(score.of(ScoreKind.RETURNED) and score.of(ScoreKind.TOKEN))


def test_kadabra_an_emptied_hand_with_the_magic_token() -> None:
    """The +10 is the token's black chip, after a returned chip: the line says both."""
    events, after, round_no, seat = find_round("kadabra", token_emptied)
    over = next(e for e in events if e.kind is EventKind.ROUND_OVER)
    score = over.scores[seat]
    chip = score.of(ScoreKind.RETURNED)[0].chip
    points = over.points[seat]
    assert points == 10 - {"white": 1, "black": 10, None: 0}[chip]
    name = NAMES[seat]
    english = line_of(rendered("en", events, after, round_no), seat)
    returned = {"white": "returned a white chip", "black": "returned a black chip",
                None: "with no chip to return"}[chip]
    assert english == (f"**{name}**: {points:+d} (emptied their hand {'and ' * bool(chip)}"
                       f"{returned}, then took a black chip for the magic token); "
                       f"total {after.seats[seat].score}")
    assert "returned nothing" not in english and "cards left" not in english
    french = line_of(rendered("fr", events, after, round_no), seat)
    assert "main vidée" in french and "jeton noir pris pour le jeton magique" in french
    assert f"{points:+d}" in french
    persian = line_of(rendered("fa", events, after, round_no), seat)
    assert "ژتون جادویی" in persian and not re.search("[0-9]", persian), "Persian digits"


def test_kadabra_cards_left_are_counted_once_each() -> None:
    """A seat holding cards: each number once, llamas 10, summed in the line."""
    def counted(score: SeatScore) -> bool:
        return len(score.of(ScoreKind.VALUE)) >= 2 and bool(score.of(ScoreKind.LLAMAS))

    events, after, round_no, seat = find_round("kadabra", counted)
    over = next(e for e in events if e.kind is EventKind.ROUND_OVER)
    line = line_of(rendered("en", events, after, round_no), seat)
    values = re.search(r"\(cards left: ([^,)]*)", line)
    assert values is not None, line
    figures = [int(x) for x in re.findall(r"\d+", values[1])]
    token = 10 if over.scores[seat].of(ScoreKind.TOKEN) else 0
    assert sum(figures) + token == over.points[seat] and 10 in figures
    assert ("black chip for the magic token" in line) == bool(token)


def test_dice_talks_about_tiles_and_a_bust() -> None:
    """A bust: the taker's line says they took the row, and counts tiles, never cards."""
    events, after, round_no, seat = find_round(
        "dice", lambda s: bool(s.of(ScoreKind.BUSTED)))
    over = next(e for e in events if e.kind is EventKind.ROUND_OVER)
    text = rendered("en", events, after, round_no)
    assert "card" not in text, text
    line = line_of(text, seat)
    assert "took the rest of the llama row; tiles left: " in line
    figures = [int(x) for x in re.findall(r"\d+", line.split("tiles left: ")[1].split(")")[0])]
    assert sum(figures) == over.points[seat]
    others = [line_of(text, i) for i in range(len(NAMES)) if i != seat]
    assert all("(tiles left: " in o or "emptied their hand" in o for o in others), others
    german = rendered("de", events, after, round_no)
    assert "Rest der Lama-Reihe genommen; übrige Karten: " in line_of(german, seat)
    spanish = rendered("es", events, after, round_no)
    assert "se llevó el resto de la fila de llamas" in line_of(spanish, seat)


@pytest.mark.parametrize("language", LANGUAGES)
def test_tutorial_counts_every_card(language: str) -> None:
    """Tutorial: minus every card left (duplicates too), or +1 for stopping on a llama."""
    def repeated(score: SeatScore) -> bool:
        cards = [i.value for i in score.of(ScoreKind.CARD)]
        return len(cards) != len(set(cards))

    events, after, round_no, seat = find_round("tutorial", repeated)
    over = next(e for e in events if e.kind is EventKind.ROUND_OVER)
    line = line_of(rendered(language, events, after, round_no), seat)
    values = line.split("(")[1].rsplit(")", 1)[0]
    if language == "fa":
        values = values.translate(str.maketrans("۰۱۲۳۴۵۶۷۸۹", "0123456789"))
        values = values.replace(FSI, "").replace(PDI, "")
    terms = [(int(m[1] or 1), int(m[2]))
             for term in values.split(": ", 1)[1].split(" + ")
             if (m := re.fullmatch(r"(?:(\d+)×)?\D+(\d+)", term.strip()))]
    assert len(terms) == len(values.split(" + ")), values
    assert -sum(count * points for count, points in terms) == over.points[seat], line
    assert sum(count for count, _ in terms) == len(over.scores[seat].items), line
    assert any(count > 1 for count, _ in terms), "a card held twice is shown as n×card"


def planned_round(world: World, variant: str,
                  wanted: Callable[[SeatScore], bool]) -> tuple[list[Action], SeatScore]:
    """Moves for two players (no quits) that make the bot's first round, dealt from the
    bot's seed (LAMA_SEED: a game's decks and rolls come from it), end with a seat's
    breakdown ``wanted``; and that breakdown."""
    seed = world.bot.settings.lama_seed
    assert seed is not None, "the test bot has a fixed seed"
    for attempt in range(2000):
        game = Game(variant, ["ana", "ben"], {"target": 1}, seed=seed)
        chooser = random.Random(attempt)
        moves: list[Action] = []
        over = None
        while over is None:
            legal = [a for a in game.legal_actions() if a.type is not ActionType.QUIT]
            if not legal:  # only quitting is left: try other moves
                break
            moves.append(chooser.choice(legal))
            events = game.apply(game.to_act, moves[-1])  # type: ignore[arg-type]
            over = next((e for e in events if e.kind is EventKind.ROUND_OVER), None)
        found = None if over is None else next((s for s in over.scores if wanted(s)), None)
        if found is not None:
            return moves, found
    raise AssertionError(f"no {variant} first round of the kind wanted")


def following(moves: list[Action]) -> Callable[[Member, Message], tuple[str, str | None]]:
    """A chooser for tests.bot.helpers.play_out that clicks ``moves`` in order."""
    left = list(moves)

    def offered(hand: Message, text: str) -> tuple[str, str | None] | None:
        for select in hand.selects:
            if any(o.value == text for o in select.options):
                return select.custom_id, text
        return next(((b.custom_id, None) for b in hand.buttons
                     if b.custom_id.endswith(":" + text)), None)

    def choose(member: Member, hand: Message) -> tuple[str, str | None]:
        while left:
            action = left.pop(0)
            click = offered(hand, str(action))
            if click is not None:
                return click
            # a roll's only possible resolution is applied with the roll (bot.sessions):
            # the plan's next move was made by that click
            assert action.type in (ActionType.DISCARD, ActionType.TAKE), action
        return first_button(member, hand)

    return choose


async def planned_summary(world: World, host: Member, variant: str,
                          moves: list[Action]) -> str:
    """Play the planned first round (the only one: the target is 1 point) through the fake
    Discord, ``host`` in seat 0 and ben in seat 1; the round summary as the channel shows it."""
    lobby = await answered(await host.slash(world.table, "lama start", variant=variant, target=1))
    assert lobby is not None
    join = next(b.custom_id for b in lobby.buttons if b.custom_id.endswith(":join"))
    start = next(b.custom_id for b in lobby.buttons if b.custom_id.endswith(":start"))
    await world.ben.click(lobby, join)
    await host.click(lobby, start)
    await play_out(world.fake, world.table, world.members, choose=following(moves))
    title = translator(host.user.locale)("Round {n} is over", n=1)
    (summary,) = [m for m in world.table.messages if card(m).title == title]
    return card(summary).description or ""


@pytest.mark.slow  # a whole (one-round) game
async def test_through_discord_the_token_holder_empties_their_hand(world: World) -> None:
    """The bug this replaces: "+10 (emptied their hand and returned nothing)"; the +10 is
    the token's black chip, said apart from the chip returned. (Other languages: above,
    at the rendering level; tests.bot.helpers.play_out reads English tables.)"""
    moves, score = planned_round(world, "kadabra", token_emptied)
    text = await planned_summary(world, world.ana, "kadabra", moves)
    line = text.split("\n")[score.seat]
    assert "then took a black chip for the magic token" in line, text
    assert f"{score.points:+d}" in line and "returned nothing" not in text


@pytest.mark.slow  # a whole (one-round) game
async def test_through_discord_a_dice_bust_speaks_of_tiles(world: World) -> None:
    moves, score = planned_round(world, "dice", lambda s: bool(s.of(ScoreKind.BUSTED)))
    text = await planned_summary(world, world.ana, "dice", moves)
    line = text.split("\n")[score.seat]
    assert "took the rest of the llama row; tiles left: " in line, text
    assert "card" not in text, text


@pytest.mark.slow  # a whole game
async def test_a_dice_game_shows_each_rounds_breakdown(world: World) -> None:
    """Through the fake Discord: each round's summary is in the channel, one line per seat,
    about tiles, and its figures add up to the engine's points for that round."""
    lobby = await answered(await world.ana.slash(world.table, "lama start", variant="dice",
                                                 target=12))
    assert lobby is not None
    await world.ben.click(lobby, "Join")
    await world.ana.click(lobby, "Start")
    final = await play_out(world.fake, world.table, world.members)
    game_id = next(b for b in final.buttons
                   if b.custom_id.startswith("lama:v2:rematch:")).custom_id.rsplit(":", 1)[1]
    stored = await world.bot.store.game(world.guild.id, game_id)
    assert stored is not None
    parsed = from_dict(stored["record"])
    game = parsed.new_game()
    overs = [e for seat, action in parsed.actions for e in game.apply(seat, action)
             if e.kind is EventKind.ROUND_OVER]
    summaries = [m for m in world.table.messages
                 if re.fullmatch(r"Round \d+ is over", card(m).title or "")]
    assert len(summaries) == len(overs) >= 1
    for message, over in zip(summaries, overs, strict=True):
        description = card(message).description or ""
        lines = description.split("\n")
        assert len(lines) == 2 and "card" not in description
        for line, score in zip(lines, over.scores, strict=True):
            assert line.startswith(f"**{parsed.players[score.seat]}**: {score.points:+d} (")
            if "tiles left: " in line:
                shown = line.split("tiles left: ")[1].split(")")[0]
                assert sum(int(x) for x in re.findall(r"\d+", shown)) == score.points
            else:
                assert "emptied their hand" in line and score.of(ScoreKind.RETURNED)
