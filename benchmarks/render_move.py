"""The CPU of building one move's messages, down to the dicts discord.py sends.

Prints numbers and asserts nothing. One process, no Discord, no HTTP: per move the bot
builds (cogs/table.py's ``on_action``, cogs/hands.py, cogs/table_posts.py's ``_table``) the
clicker's updated hand (the answer, an edit of the clicked message), the next player's
open hand (an edit through its token, with its picture: the "same picture kept" case, no
drawing) and the table (an edit of the round's message). Each is rendered as the bot does
and turned into what discord.py sends: the V2 components, the allowed mentions and the
attachments' names. The states are those of 4-player games played by the random AI, from
the middle of a round, in classic and Kadabra, in English and Persian::

    python benchmarks/render_move.py                 # 2,000 moves per case, 7 repeats
    python benchmarks/render_move.py --moves 500 --repeats 5 --profile kadabra-fa

Times are CPU times of this process (``time.process_time``), the median of the repeats
(a busy machine inflates CPU time less than wall time), in µs per move and per message.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.words.i18n import Translator, translator
from cogs.hand_view import hand_message
from cogs.pictures import file_name, hand_spec
from cogs.render import Payload, table_message
from game import Event, PlayerView, ai, player_view, visible_to
from game.events import EventKind
from game.game import Game

SEATS = 4
USERS = [10 ** 17 + seat for seat in range(SEATS)]  # all four human
GAME = "3f2a9c1b"


@dataclass(frozen=True)
class Move:
    """What one move's messages are built from (the engine's part is done beforehand)."""

    clicker: PlayerView  # the mover's hand after their move
    note: str | None  # what their hand says about it (their private events)
    following: PlayerView  # the next player's hand, their turn now
    table: PlayerView  # the public view
    recent: tuple[Event, ...]  # the table's last public events
    version: int
    deadline: float


def moves(variant: str, tr: Translator, count: int, seed: str = "render") -> list[Move]:
    """``count`` consecutive moves from the middle of rounds of random-AI games."""
    from cogs.cards import event_text

    found: list[Move] = []
    game_no = 0
    while len(found) < count:
        game = Game(variant, [f"Player {s + 1}" for s in range(SEATS)],
                    seed=f"{seed}:{variant}:{game_no}")
        players = [ai.find("random")(f"{seed}:{game_no}:{s}") for s in range(SEATS)]
        game_no += 1
        recent: list[Event] = []
        version = 0
        turn_in_round = 0
        while not game.finished and len(found) < count:
            seat = game.to_act
            action = players[seat].choose(player_view(game, seat))
            events = game.apply(seat, action)
            version += 1
            turn_in_round += 1
            for event in visible_to(events, None):
                if event.kind is EventKind.ROUND_STARTED:
                    recent, turn_in_round = [], 0
                if event.kind not in (EventKind.ROUND_OVER, EventKind.GAME_OVER):
                    recent.append(event)
            del recent[:-8]
            if game.finished or game.to_act is None or turn_in_round < SEATS:
                continue  # (mid-round moves only)
            names = [f"Player {s + 1}" for s in range(SEATS)]
            note = "\n".join(t for e in events if e.private_to == seat
                             if (t := event_text(tr, e, names))) or None
            found.append(Move(player_view(game, seat), note, player_view(game, game.to_act),
                              player_view(game, None), tuple(recent), version,
                              1_900_000_000.0 + version))
    return found


def wire(kwargs: dict[str, Any]) -> dict[str, Any]:
    """What discord.py sends of a payload's keyword arguments (a JSON-able dict)."""
    sent: dict[str, Any] = {key: kwargs[key] for key in ("content", "embed") if key in kwargs}
    view = kwargs.get("view")
    if view is not None:
        sent["components"] = view.to_components()
        sent["v2"] = view.has_components_v2()
    sent["allowed_mentions"] = kwargs["allowed_mentions"].to_dict()
    if "attachments" in kwargs:
        sent["attachments"] = [f.filename for f in kwargs["attachments"]]
    if "files" in kwargs:
        sent["files"] = [f.filename for f in kwargs["files"]]
    return sent


def with_picture(payload: Payload, view: PlayerView, tr: Translator) -> Payload:
    """cogs.uploads.add_hand_picture when the message shows this picture already (the
    edit keeps its file; nothing drawn): the picture's spec and name, and the image."""
    spec = hand_spec(view)
    if spec is not None and payload.embed is not None:
        payload.keep_files = True
        payload.embed.set_image(url=f"attachment://{file_name((tr.language, spec))}")
    return payload


def clicker_hand(tr: Translator, move: Move) -> dict[str, Any]:
    payload = hand_message(tr, move.clicker, GAME, move.version, move.note)
    if move.clicker.my_turn:  # (waiting_too=False: a picture only if they act again)
        payload = with_picture(payload, move.clicker, tr)
    return wire(payload.edit_kwargs())


def next_hand(tr: Translator, move: Move) -> dict[str, Any]:
    payload = with_picture(hand_message(tr, move.following, GAME, move.version),
                           move.following, tr)
    return wire(payload.edit_kwargs())


def table(tr: Translator, move: Move) -> dict[str, Any]:
    payload = table_message(tr, move.table, GAME, USERS, move.recent, move.deadline)
    return wire(payload.kwargs(edit=True))


MESSAGES: dict[str, Callable[[Translator, Move], dict[str, Any]]] = {
    "clicker hand": clicker_hand, "next hand": next_hand, "table": table}


def timed(build: Callable[[Translator, Move], dict[str, Any]], tr: Translator,
          found: list[Move]) -> float:
    """CPU µs per move of ``build`` over every move of ``found``."""
    started = time.process_time()
    for move in found:
        build(tr, move)
    return (time.process_time() - started) * 1e6 / len(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=2000, help="moves per case")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--profile", metavar="CASE", help="cProfile one case (classic-en...)")
    args = parser.parse_args()
    cases = {f"{variant}-{lang}": (variant, translator(lang))
             for variant in ("classic", "kadabra") for lang in ("en", "fa")}
    found = {case: moves(variant, tr, args.moves) for case, (variant, tr) in cases.items()}
    for case, (_, tr) in cases.items():  # warm: the caches of a running bot
        for build in MESSAGES.values():
            timed(build, tr, found[case][:200])
    if args.profile:
        _, tr = cases[args.profile]
        profile = cProfile.Profile()
        profile.enable()
        for build in MESSAGES.values():
            timed(build, tr, found[args.profile])
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(30)
        return
    print(f"{args.moves} moves per case, median of {args.repeats} repeats, CPU µs per move")
    print(f"{'case':<12}" + "".join(f"{m:>14}" for m in MESSAGES) + f"{'move':>10}")
    totals = []
    for case, (_, tr) in cases.items():
        runs = {m: [timed(b, tr, found[case]) for _ in range(args.repeats)]
                for m, b in MESSAGES.items()}
        medians = {m: statistics.median(r) for m, r in runs.items()}
        total = sum(medians.values())
        totals.append(total)
        print(f"{case:<12}" + "".join(f"{medians[m]:>14.1f}" for m in MESSAGES)
              + f"{total:>10.1f}")
    print(f"{'mean':<12}" + " " * 14 * len(MESSAGES) + f"{statistics.mean(totals):>10.1f}")


if __name__ == "__main__":
    main()
