"""``python -m game play``: one whole game in the terminal, you at seat 1 against AIs.

It reads choices from standard input (a number from the list, an action's text such
as ``play 3`` or ``play 1 @2``, or ``rules``, ``table``, ``help``), so a test can drive
it through a pipe. You see only what your seat may see: your own view and the events
visible to you. Ctrl-C or the end of input leaves the game without a traceback.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence

from game import ai, rng
from game.actions import Action
from game.cli import add_option_arguments, parse_options
from game.cli.narrate import ME, Narrator, ordered, round_over, standings
from game.errors import MalformedRecord, RulesError
from game.events import Event, EventKind, visible_to
from game.game import Game
from game.rules import find as find_rules
from game.rules import names as variant_names
from game.rules.text import full_rules_line, rules_paragraphs
from game.views import PlayerView, player_view

DEFAULT_NAME = "you"
INTERRUPTED = 130  # the shell's code for a program stopped by Ctrl-C
HELP = """\
Type the number of a choice, or its text: play 3, draw, quit, roll, discard 3 L, take 5...
A Kadabra 1 names who receives the chip by seat: play 1 @2 gives it to seat 2.
  rules   the rules of this game
  table   show the table and your choices again
  help    this text
quit is a move (you leave the round); Ctrl-D or Ctrl-C leaves the game."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--variant", required=True, help=f"one of {', '.join(variant_names())}")
    parser.add_argument("--players", type=int, default=4, help="seats, you included (2-6)")
    parser.add_argument("--seed", default=None, help="the game's seed (default: a fresh one)")
    parser.add_argument("--ai", default="heuristic", help="the AI at every other seat")
    parser.add_argument("--name", default=DEFAULT_NAME, help="your name at the table")
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


class Table:
    """One game as seen from seat 1 in the terminal: what happened, the table, your turn."""

    def __init__(self, game: Game, style: Style) -> None:
        self.game = game
        self.style = style
        self.say = Narrator(game.players)

    # ---- output --------------------------------------------------------------
    def intro(self, seed: str, name: str, ai_name: str) -> None:
        others = [self.say.names[s] for s in range(1, len(self.say.names))]
        you = "You play" if name == DEFAULT_NAME else f"You are {name}, playing"
        print(f"Seed {seed}. {you} at seat 1 of {len(self.say.names)}, against "
              f"{' and '.join(others)} (AI: {ai_name}).")
        print(f"{self.game.rules.title}: type rules for the rules, help for the commands.")

    def events(self, events: list[Event], before: PlayerView) -> None:
        """The log lines of ``events`` seat 1 may see; scores at a round's and game's end."""
        for event in visible_to(events, ME):
            if event.kind is EventKind.ROUND_OVER:
                lines = round_over(self.say, before, events, player_view(self.game, ME))
                print(self.style.bold(lines[0]))
                print("\n".join(lines[1:]))
            elif event.kind is EventKind.GAME_OVER:
                lines = standings(self.say, player_view(self.game, ME))
                print(self.style.bold(lines[0]))
                print("\n".join(lines[1:-2]))
                print(self.style.good(lines[-2]))
                print(lines[-1])
            else:
                line = self.say.event(event)
                if line is not None:
                    print(self.style.dim("  " + line))

    def table(self, view: PlayerView) -> None:
        """Your hand and everything public, from your view only; seats numbered from 1."""
        style = self.style
        print()
        print(style.bold(f"{view.title}, round {view.round_no}"))
        if view.top is not None:
            print(f"Top card: {style.card(view.top.token)}   draw pile: {view.draw_pile}")
        if view.row is not None:
            print("Llama row: " + (" ".join(t.token for t in view.row) or "(empty)"))
        if view.roll is not None:
            print("Roll: " + " ".join(f.token for f in view.roll))
        if view.stage is not None:
            holder = self.say.whom(view.token_holder)
            print(f"Magic stage: {view.stage[0]} white, {view.stage[1]} black   token: {holder}")
        for seat in view.seats:
            marks = [f"{seat.hand_size} card{'s' if seat.hand_size != 1 else ''}",
                     f"score {seat.score}"]
            if view.uses_chips:
                marks.append(f"{seat.white} white {seat.black} black")
            if seat.tiles is not None:
                marks.append("tiles " + (" ".join(t.token for t in seat.tiles) or "-"))
            if seat.quit:
                marks.append("quit")
            if seat.holds_token:
                marks.append("magic token")
            turn = "> " if seat.seat == view.to_act else "  "
            print(f"{turn}[{seat.seat + 1}] {self.say.who(seat.seat)}: " + ", ".join(marks))
        print("Your hand: " + " ".join(style.card(c.token) for c in view.hand))
        if view.drawn is not None:
            print(f"You drew {style.card(view.drawn.token)}")

    def rules(self) -> None:
        print(self.style.bold(self.game.rules.title))
        for paragraph in rules_paragraphs(self.game.variant):
            print(paragraph)
        print(full_rules_line())

    # ---- your turn -------------------------------------------------------------
    def ask(self, view: PlayerView) -> Action | None:
        """Ask until the answer is a legal action; ``None`` at the end of input."""
        options = ordered(view.legal)
        self.show_options(options)
        while True:
            try:
                answer = input("Your choice (or help): ").strip()
            except EOFError:
                return None
            command = answer.lower()
            if command in ("help", "?"):
                print(HELP)
            elif command == "rules":
                self.rules()
            elif command == "table":
                self.table(view)
                self.show_options(options)
            else:
                found = self.understand(answer, options)
                if isinstance(found, Action):
                    return found
                print(found)

    def show_options(self, options: Sequence[Action]) -> None:
        for number, action in enumerate(options, start=1):
            print(f"  {number}. {self.say.label(action)}")

    def understand(self, answer: str, options: Sequence[Action]) -> Action | str:
        """The action ``answer`` names, or what to tell the player (the engine's reason)."""
        example = self.say.label(options[-1])
        hint = f"Type 1 to {len(options)}, an action such as {example}, or help."
        if answer.isdigit():
            number = int(answer)
            return options[number - 1] if 1 <= number <= len(options) else (
                f"Not a choice: {answer!r}. {hint}")
        words = answer.split()
        players = len(self.game.players)
        for index, word in enumerate(words):
            seat = re.fullmatch(r"@(\d+)", word)
            if seat is not None:
                number = int(seat.group(1))
                if not 1 <= number <= players:
                    return f"There is no seat {number}: seats are numbered 1 to {players}."
                words[index] = f"@{number - 1}"  # the engine counts seats from 0
        if words:
            words[0] = words[0].lower()
        try:
            action = Action.parse(" ".join(words))
        except MalformedRecord:
            return f"Not a choice: {answer!r}. {hint}"
        if action in options:
            return action
        try:
            self.game.check(ME, action)
        except RulesError as exc:
            reason = str(exc).removeprefix(f"{self.game.players[ME]}: ")
            return f"Refused: {reason}."
        return f"Not a choice now: {answer!r}. {hint}"


def run(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args._parser
    try:
        rules = find_rules(args.variant)
        if not 2 <= args.players <= 6:
            raise ValueError(f"--players must be 2 to 6, not {args.players}")
        ai.find(args.ai)
        options = rules.validate_options(parse_options(args.option))
        names = [args.name.strip()] + [f"{args.ai}-{seat + 1}" for seat in range(1, args.players)]
        if not names[0] or names[0] in names[1:]:
            raise ValueError(f"--name must be set and differ from {', '.join(names[1:])}")
    except (MalformedRecord, ValueError) as exc:
        parser.error(str(exc))
    seed = args.seed if args.seed is not None else str(rng.new_seed())
    game = Game(args.variant, names, options, seed=seed)
    players = {seat: ai.find(args.ai)(f"{seed}:{seat}") for seat in range(1, args.players)}
    table = Table(game, Style(sys.stdout.isatty() and "NO_COLOR" not in os.environ))
    try:
        return play(game, table, players, seed, args)
    except KeyboardInterrupt:
        print("\nStopped: the game is abandoned.")
        return INTERRUPTED


def play(game: Game, table: Table, players: dict[int, ai.Player], seed: str,
         args: argparse.Namespace) -> int:
    """Play the game out; 0 at its end, 1 if the input ends first."""
    table.intro(seed, args.name.strip(), args.ai)
    table.events(game.opening_events, player_view(game, ME))
    while not game.finished:
        seat = game.to_act
        if seat is None:  # cannot happen with a seed; never loop forever
            print("The game is waiting for a deal; stopping.", file=sys.stderr)
            return 1
        before = player_view(game, ME)
        if seat == ME:
            table.table(before)
            action = table.ask(before)
            if action is None:
                print("\nEnd of input: the game is abandoned.")
                return 1
        else:
            action = players[seat].choose(player_view(game, seat))
        try:
            events = game.apply(seat, action)
        except RulesError as exc:  # choices come from the legal list, so this is a bug
            print(f"Refused: {exc}", file=sys.stderr)
            return 1
        table.events(events, before)
    return 0
