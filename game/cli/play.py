"""``python -m game play``: one whole game in the terminal, you at seat 0 against AIs.

It reads choices from standard input (a number from the list, or an action's
text such as ``play 3``), so a test can drive it through a pipe. You see only
what seat 0 may see: your own view and the events visible to you.
"""

from __future__ import annotations

import argparse
import os
import sys

from game import ai, rng
from game.actions import Action
from game.cli import add_option_arguments, parse_options
from game.errors import MalformedRecord, RulesError
from game.events import Event, EventKind, visible_to
from game.game import Game
from game.rules import find as find_rules
from game.rules import names as variant_names
from game.views import PlayerView, player_view

ME = 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--variant", required=True, help=f"one of {', '.join(variant_names())}")
    parser.add_argument("--players", type=int, default=4, help="seats, you included (2-6)")
    parser.add_argument("--seed", default=None, help="the game's seed (default: a fresh one)")
    parser.add_argument("--ai", default="heuristic", help="the AI at every other seat")
    parser.add_argument("--name", default="you", help="your name at the table")
    add_option_arguments(parser)


class Style:
    """ANSI colours, only for a terminal and only when NO_COLOR is unset."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def _wrap(self, code: str, text: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.enabled else text

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)

    def good(self, text: str) -> str:
        return self._wrap("32", text)

    def card(self, text: str) -> str:
        return self._wrap("36;1", text)


def chip(colour: str | None) -> str:
    return f"a {colour} chip" if colour else "nothing"


def describe(event: Event, names: tuple[str, ...]) -> str | None:
    """One line of table log for an event seat 0 may see (``None``: nothing to say)."""
    who = names[event.seat] if event.seat is not None else ""
    other = names[event.other] if event.other is not None else "the supply"
    kind = event.kind
    lines = {
        EventKind.ROUND_STARTED: f"{who} starts"
        + (f"; the pile shows {event.card}" if event.card else ""),
        EventKind.PLAYED: f"{who} plays {event.card}"
        + (f", giving to {other}" if event.other is not None else ""),
        EventKind.DREW: f"{who} draws a card",
        EventKind.DREW_CARD: f"{who} got {event.card}",
        EventKind.FORCED_DRAW: f"{who} must draw a card",
        EventKind.QUIT: f"{who} quits the round",
        EventKind.SKIPPED: f"{who} returns the magic token and skips",
        EventKind.PASSED: f"{who} keeps the drawn card",
        EventKind.STOPPED: f"{who} stops the round (top {event.card})",
        EventKind.GAVE: f"{who} gives a {event.card} to {other}",
        EventKind.TOOK_TOKEN: f"{who} takes the magic token from {other}",
        EventKind.STAGED: f"{who} puts a {event.card} chip on the stage",
        EventKind.TOOK_STAGE: f"{who} takes the stage ({event.points[0] if event.points else 0}"
        f" white, {event.points[1] if len(event.points) > 1 else 0} black)",
        EventKind.ROLLED: f"{who} rolls {' '.join(event.cards)}",
        EventKind.THREE_LLAMAS: f"{who} rolled three llamas and returns {chip(event.card)}",
        EventKind.DISCARDED: f"{who} discards {' '.join(event.cards)}",
        EventKind.TOOK_TILE: f"{who} takes {event.card} from the llama row",
        EventKind.BUSTED: f"{who} busts and takes {' '.join(event.cards)}",
        EventKind.RETURNED_CHIP: f"{who} emptied their hand and returns {chip(event.card)}",
    }
    return lines.get(kind)


def show_events(events: list[Event], names: tuple[str, ...], style: Style) -> None:
    for event in visible_to(events, ME):
        if event.kind is EventKind.ROUND_OVER:
            print(style.bold("Round over. Points this round:"))
            for seat, points in enumerate(event.points):
                print(f"  {names[seat]}: {points:+d}")
        elif event.kind is EventKind.GAME_OVER:
            winners = ", ".join(names[s] for s in event.winners)
            print(style.bold("Game over. Final scores:"))
            for seat, points in enumerate(event.points):
                print(f"  {names[seat]}: {points}")
            print(style.good(f"Winners: {winners}"))
        else:
            line = describe(event, names)
            if line is not None:
                print(style.dim("  " + line))


def show_table(view: PlayerView, style: Style) -> None:
    """Your hand and everything public, from your view only."""
    print()
    print(style.bold(f"{view.title}, round {view.round_no}"))
    if view.top is not None:
        print(f"Top card: {style.card(view.top.token)}   draw pile: {view.draw_pile}")
    if view.row is not None:
        print("Llama row: " + (" ".join(t.token for t in view.row) or "(empty)"))
    if view.roll is not None:
        print("Roll: " + " ".join(f.token for f in view.roll))
    if view.stage is not None:
        holder = "supply" if view.token_holder is None else view.seats[view.token_holder].name
        print(f"Magic stage: {view.stage[0]} white, {view.stage[1]} black   token: {holder}")
    for seat in view.seats:
        cards = f"{seat.hand_size} card{'s' if seat.hand_size != 1 else ''}"
        marks = [cards, f"score {seat.score}"]
        if view.uses_chips:
            marks.append(f"{seat.white} white {seat.black} black")
        if seat.tiles is not None:
            marks.append("tiles " + (" ".join(t.token for t in seat.tiles) or "-"))
        if seat.quit:
            marks.append("quit")
        if seat.holds_token:
            marks.append("token")
        turn = "> " if seat.seat == view.to_act else "  "
        print(f"{turn}{seat.name}: " + ", ".join(marks))
    print("Your hand: " + " ".join(style.card(c.token) for c in view.hand))
    if view.drawn is not None:
        print(f"You drew {style.card(view.drawn.token)}")


def read_choice(legal: tuple[Action, ...]) -> Action | None:
    """Ask until the answer names a legal action; ``None`` at end of input."""
    for number, action in enumerate(legal, start=1):
        print(f"  {number}. {action}")
    while True:
        try:
            answer = input("Your choice: ").strip()
        except EOFError:
            return None
        if answer.isdigit() and 1 <= int(answer) <= len(legal):
            return legal[int(answer) - 1]
        try:
            action = Action.parse(answer)
        except MalformedRecord:
            action = None
        if action in legal:
            return action
        print(f"Not a choice: {answer!r}. Type 1 to {len(legal)}, or an action's text.")


def run(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args._parser
    try:
        rules = find_rules(args.variant)
        if not 2 <= args.players <= 6:
            raise ValueError(f"--players must be 2 to 6, not {args.players}")
        ai.find(args.ai)
        options = rules.validate_options(parse_options(args.option))
    except (MalformedRecord, ValueError) as exc:
        parser.error(str(exc))
    seed = args.seed if args.seed is not None else str(rng.new_seed())
    names = [args.name] + [f"{args.ai}-{seat}" for seat in range(1, args.players)]
    game = Game(args.variant, names, options, seed=seed)
    players = {seat: ai.find(args.ai)(f"{seed}:{seat}") for seat in range(1, args.players)}
    style = Style(sys.stdout.isatty() and "NO_COLOR" not in os.environ)
    print(f"Seed {seed}. You are {args.name}, seat 1 of {args.players}.")
    show_events(game.opening_events, game.players, style)
    while not game.finished:
        seat = game.to_act
        if seat is None:  # cannot happen with a seed; never loop forever
            print("The game is waiting for a deal; stopping.", file=sys.stderr)
            return 1
        view = player_view(game, seat)
        if seat == ME:
            show_table(view, style)
            action = read_choice(view.legal)
            if action is None:
                print("\nEnd of input: the game is abandoned.")
                return 1
        else:
            action = players[seat].choose(view)
        try:
            events = game.apply(seat, action)
        except RulesError as exc:  # choices come from the legal list, so this is a bug
            print(f"Refused: {exc}", file=sys.stderr)
            return 1
        show_events(events, game.players, style)
    return 0
