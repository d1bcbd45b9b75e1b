"""Hand pictures: what one shows, and drawing it off the answer's path.

The rendering lives in :mod:`bot.pictures`; this module says what a hand's picture shows
(:func:`hand_spec`, its file name and description) and renders it in worker threads (on
one core on the event loop itself: at once when a message needs it, and one started ahead
only once the move that started it has sent its answer: :func:`draws_on_loop`), keeping
the latest ones. Whether a message gets a picture, and its upload, is :mod:`cogs.uploads`;
the final standings' chart is :mod:`cogs.charts`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from bot.pictures import dice_picture, hand_picture
from bot.words.i18n import Translator
from cogs.cards import TOKEN, chips_text, plain_text
from game import ActionType, Card, PlayerView

log = logging.getLogger(__name__)

HAND_FILE = "hand-{key}.png"  # named by what it shows: an edit that shows it again keeps it

Spec = tuple[Any, ...]
"""What a hand picture shows (cards or tiles and roll, which are playable, chips): its
cache key, and the name of its file."""


def _playable(view: PlayerView, *kinds: ActionType) -> tuple[str, ...] | None:
    """The tokens of the cards (tiles) ``kinds`` of moves play now; None: not their turn."""
    if not view.my_turn:
        return None
    tokens = set()
    for a in view.legal:
        if a.type in kinds:
            tokens.update(t.token for t in ((a.card,) if a.card is not None else a.tiles))
    return tuple(sorted(tokens))


def _tokens(cards: Sequence[Card]) -> tuple[str, ...]:
    return tuple(c.token for c in cards)


def hand_spec(view: PlayerView) -> Spec | None:
    """What the owner's picture shows: their cards (the playable ones framed on their
    turn) and chips, or their tiles (those they may discard framed) and, on their turn,
    their roll (the dice that let them take a row tile framed); None: nothing to draw.

    Another player's roll is public but not the owner's: it is not drawn, so a waiting
    hand's picture stays the same while others roll."""
    me = view.seats[view.me or 0]
    if me.tiles is not None:
        roll = tuple(view.roll or ()) if view.my_turn else ()
        if not me.tiles and not roll:
            return None
        discard = _playable(view, ActionType.DISCARD) if roll else None
        return ("dice", _tokens(me.tiles), _tokens(roll), discard or None,
                _playable(view, ActionType.TAKE) or ())
    if not view.hand:
        return None
    chips: list[str] = []
    if view.uses_chips:
        chips = ["black"] * me.black + ["white"] * me.white + (["token"] if me.holds_token else [])
    return ("hand", _tokens(view.hand), _playable(view, ActionType.PLAY), tuple(chips[:16]))


def _cards(tokens: Sequence[str]) -> list[Card]:
    return [Card.parse(t) for t in tokens]


def render(spec: Spec) -> bytes:
    """The PNG of ``spec`` (cached by bot.pictures.compose by what it shows)."""
    if spec[0] == "dice":
        _, tiles, roll, discard, take = spec
        return dice_picture(_cards(tiles), _cards(roll),
                            None if discard is None else _cards(discard), _cards(take))
    _, cards, playable, chips = spec
    return hand_picture(_cards(cards), None if playable is None else _cards(playable), chips)


def describe(tr: Translator, spec: Spec) -> str:
    """The picture's alt text: what it shows, and only that, so a message that keeps its
    picture across an edit (the same spec) keeps a true description."""
    def faces(tokens: Sequence[str]) -> str:
        return " ".join(plain_text(c) for c in _cards(tokens)) or "—"

    lines = []
    if spec[0] == "dice":
        _, tiles, roll, discard, take = spec
        lines.append(tr("Your tiles: {cards}", cards=faces(tiles)))
        if roll:
            lines.append(tr("Your roll: {dice}", dice=faces(roll)))
        if discard:
            lines.append(tr("Framed, you may discard: {tiles}", tiles=faces(discard)))
        if take:
            lines.append(tr("Framed, you may take: {tiles}", tiles=faces(take)))
        return "\n".join(lines)
    _, cards, playable, chips = spec
    lines.append(tr("Your hand: {cards}", cards=faces(cards)))
    if playable:
        lines.append(tr("Framed, playable now: {cards}", cards=faces(playable)))
    if chips:
        shown = chips_text(chips.count("white"), chips.count("black")) + (
            f" {TOKEN}" if "token" in chips else "")
        lines.append(tr("Your chips: {chips}", chips=tr.isolate(tr.figures(shown))))
    return "\n".join(lines)


def hand_png(view: PlayerView) -> bytes | None:
    """The owner's picture, or None: nothing to draw."""
    spec = hand_spec(view)
    return None if spec is None else render(spec)


@lru_cache(maxsize=1024)
def file_name(spec: Spec) -> str:
    """``hand-<12 hex digits>.png``: the same name for the same picture, in any process."""
    return HAND_FILE.format(key=hashlib.blake2b(repr(spec).encode(), digest_size=6).hexdigest())


RECENT = 1024  # pictures kept on the event loop's side: a hit needs no trip to a thread
# (a few per game: each seat's hand as it waits and as it plays; 4-8 KB each, the same bytes
# bot.pictures.compose's caches hold)
_recent: OrderedDict[Spec, bytes] = OrderedDict()
_rendering: dict[Spec, asyncio.Future[bytes]] = {}
_queued: OrderedDict[Spec, asyncio.Future[bytes]] = OrderedDict()  # predrawn on the loop, to do
_drain: dict[asyncio.AbstractEventLoop, asyncio.Handle] = {}  # the queue's next step, per loop
ON_LOOP: bool | None = None
"""Where hand pictures are drawn: None (the default) on the event loop itself when the
process may run on one core only (:func:`draws_on_loop`), else in worker threads; True or
False decides it (tests)."""

def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # (not Linux)
        return os.cpu_count() or 1


def draws_on_loop() -> bool:
    """Whether hand pictures are drawn on the event loop (:data:`ON_LOOP`).

    On one core (the process pinned to it, as the load benchmark does and a small host
    is) a worker thread never draws beside the loop: it takes turns with it for the core
    and the interpreter's lock, and each picture costs the hand-off there and back (about
    0.35 ms a move, py-spy), a wake-up that the scheduler may give the thread before the
    loop's next answer, and with several pictures started at once (a round's start) the
    loop waits for the lock behind each of them. A picture (0.6 ms) drawn on the loop
    costs only itself: when it is needed (an answer or an edit that shows it), at once;
    when started ahead (:func:`predraw`), one per turn of the loop, after the work that
    started it has gone on to send its answer. Asked at each use (a process may be pinned
    after it started)."""
    return _cores() == 1 if ON_LOOP is None else ON_LOOP


def _drawing(spec: Spec) -> asyncio.Future[bytes]:
    """The render of ``spec`` under way (or queued on the loop), started if it is not: in a
    worker thread, or queued for the loop's next turns (:func:`draws_on_loop`)."""
    loop = asyncio.get_running_loop()
    future = _rendering.get(spec)
    if future is not None and future.get_loop() is not loop:  # (a loop gone: tests)
        _rendering.pop(spec, None)
        _queued.pop(spec, None)
        future = None
    if future is None:
        if draws_on_loop():
            future = loop.create_future()
            _queued[spec] = future
            _step_later(loop)
        else:
            future = asyncio.ensure_future(asyncio.to_thread(render, spec))
        _rendering[spec] = future
        future.add_done_callback(lambda done: _remember(spec, done))
    return future


def _step_later(loop: asyncio.AbstractEventLoop) -> None:
    """The queue's next picture at the loop's next turn (one per turn: each waits behind
    what was ready before it, answers included, and holds up what comes after by one
    picture's time only)."""
    if loop not in _drain:
        _drain[loop] = loop.call_soon(_step, loop)


def _step(loop: asyncio.AbstractEventLoop) -> None:
    """Draw the oldest picture queued on the loop, if it is still wanted."""
    _drain.pop(loop, None)
    while _queued:
        spec, future = _queued.popitem(last=False)
        if future.get_loop() is loop and not future.done():
            with contextlib.suppress(Exception):  # (given to the future: _remember logs it)
                _draw_now(spec, future)
            break
    if _queued:
        _step_later(loop)


def _draw_now(spec: Spec, future: asyncio.Future[bytes] | None = None) -> bytes:
    """``render(spec)`` here and now, kept for later asks; ``future`` (its queued render,
    if any) given the result, or the error (also raised)."""
    try:
        data = render(spec)
    except Exception as error:
        if future is not None:
            if _rendering.get(spec) is future:
                del _rendering[spec]
            if not future.done():
                future.set_exception(error)
        raise
    _keep(spec, data)
    if future is not None:
        if _rendering.get(spec) is future:
            del _rendering[spec]
        if not future.done():
            future.set_result(data)
    return data


async def rendered(spec: Spec) -> bytes:
    """``render(spec)``, unless drawn lately: in a worker thread, where callers asking for
    the same picture while it is drawn share that one render (a turn's followed hand and
    its My hand click do, and so does :func:`predraw`'s start); or, drawing on the loop,
    at once (a render queued by :func:`predraw` is taken from the queue)."""
    data = _recent.get(spec)
    if data is not None:
        _recent.move_to_end(spec)
        return data
    queued = _queued.pop(spec, None)
    if queued is not None and not queued.done():
        return _draw_now(spec, queued)
    if spec not in _rendering and draws_on_loop():
        return _draw_now(spec)
    return await asyncio.shield(_drawing(spec))


def predraw(views: Iterable[PlayerView]) -> int:
    """Start drawing the pictures of these hands that are neither drawn lately nor being
    drawn; how many were started. Called as a move is decided, before its answer goes out:
    the followed hand of the player whose turn comes, and the My hands a new round makes
    its players open, then find their picture drawn (or already under way) instead of
    starting its render and waiting for the thread's answer to come back through a busy
    event loop. Nothing waits for these renders here; drawn on the loop
    (:func:`draws_on_loop`), none starts before the caller's next wait (its answer sent)."""
    started = 0
    for view in views:
        spec = hand_spec(view)
        if spec is not None and spec not in _recent and spec not in _rendering:
            _drawing(spec)
            started += 1
    return started


def _keep(spec: Spec, data: bytes) -> None:
    _recent[spec] = data
    _recent.move_to_end(spec)
    while len(_recent) > RECENT:
        _recent.popitem(last=False)


def _remember(spec: Spec, done: asyncio.Future[bytes]) -> None:
    if _rendering.get(spec) is done:
        del _rendering[spec]
    if not done.cancelled() and done.exception() is None:
        _keep(spec, done.result())
    elif not done.cancelled():
        log.warning("a hand picture could not be drawn", exc_info=done.exception())
