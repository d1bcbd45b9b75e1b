"""Pictures in messages: a hand's cards (or dice) and the final standings' chart.

The rendering lives in :mod:`bot.pictures`; this module decides when a message gets a
picture (the server's ``images`` setting, the bot's Attach Files permission) and renders
it in worker threads (on one core on the event loop itself: at once when a message needs
it, and one started ahead only once the move that started it has sent its answer:
:func:`draws_on_loop`). A message without its picture still says everything in text.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import logging
import os
import re
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from itertools import accumulate
from typing import Any

import discord

from bot.pictures import dice_picture, hand_picture
from bot.pictures.chart import SEAT_EMOJI, totals_chart
from bot.pictures.chart import warm as warm_chart
from bot.sessions.guild_settings import IMAGES_SETTING, GuildSettings
from bot.words.i18n import Translator
from bot.words.markdown import FIELD_VALUE, clip
from cogs.cards import FACES, TOKEN, chips_text, plain_text
from cogs.render import Payload
from game import ActionType, Card, PlayerView

log = logging.getLogger(__name__)

HAND_FILE = "hand-{key}.png"  # named by what it shows: an edit that shows it again keeps it
SHOWN = "lama_picture"  # Interaction.extras: the hand picture its message shows now
CHART_FILE = "totals.png"
ALT_TEXT = 1024  # Discord's limit on an attachment's description
MISSING_PERMISSIONS = 50013

Spec = tuple[Any, ...]
"""What a hand picture shows (cards or tiles and roll, which are playable, chips): its
cache key, and the name of its file."""


def images_on(settings: GuildSettings, guild_id: int | None) -> bool:
    """The server's ``images`` setting; on unless a Manage Server member turned it off."""
    return settings.get(guild_id, IMAGES_SETTING) != "off"


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

# Charts on a thread of their own: its styled figures stay warm (in asyncio's pool each
# new thread styles its own), and a chart never holds up a hand. Hands stay in the pool:
# on one thread, under load, their renders queue behind one another and games slow down
# (benchmarks/bot_load.py: fewer moves in the same time, more CPU per move).
CHARTS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lama-charts")


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


async def drawn_chart(draw: Callable[..., bytes], *args: Any) -> bytes:
    """``draw(*args)`` (a chart) on the charts' thread, off the event loop."""
    return await asyncio.get_running_loop().run_in_executor(CHARTS, draw, *args)


async def warm_charts() -> None:
    """matplotlib loaded and the charts' figure styled on the charts' thread, off the event
    loop (bot/pictures/chart.py's ``warm``): ``python -m bot`` starts it with the process."""
    await asyncio.get_running_loop().run_in_executor(CHARTS, warm_chart)


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


def shown_picture(interaction: discord.Interaction) -> str | None:
    """The hand picture on the message this answer edits: the clicked message as clicked
    (an answer not yet given edits it), else what the bot last put there (a followed
    hand's later edits), else none known (a new message, or upload to be safe)."""
    if SHOWN in interaction.extras:
        return interaction.extras[SHOWN]
    if interaction.response.is_done() or interaction.message is None:
        return None
    names = [a.filename for a in interaction.message.attachments]
    return next((n for n in names if n.startswith("hand-") and n.endswith(".png")), None)


CUSTOM_EMOJI = re.compile(r"<a?:\w+:\d+>")


@lru_cache(maxsize=2)
def _plain_faces(faces: tuple[tuple[str, str], ...]) -> dict[str, str]:
    return {face: plain_text(Card.parse(token)) for token, face in faces}


def alt_text(text: str) -> str:
    """``text`` for a screen reader: it reads "🟡3", not "<:lama_3:…>" (one pass)."""
    if "<" not in text:
        return text
    plain = _plain_faces(tuple(FACES.items()))  # (filled once, at start-up)
    return CUSTOM_EMOJI.sub(lambda face: plain.get(face[0], face[0]), text)


class Upload(io.BytesIO):
    """An uploaded file's bytes that never refer to themselves.

    ``discord.File`` stubs its file's ``close`` while it is sent and, once sent, sets it
    back to the file's own bound method: the file would then hold itself (a cycle that
    only a full collection frees, for every picture uploaded, so the pictures' buffers
    piled up between full collections and each of those walked them). Setting back the
    file's own ``close`` drops the stub instead: the same method, and no cycle."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "close" and getattr(value, "__self__", None) is self:
            self.__dict__.pop("close", None)
        else:
            super().__setattr__(name, value)


def _file(data: bytes, name: str, alt: str) -> discord.File:
    return discord.File(Upload(data), filename=name,
                        description=clip(alt_text(alt), ALT_TEXT) or None)


async def add_hand_picture(payload: Payload, view: PlayerView, interaction: discord.Interaction,
                           settings: GuildSettings, tr: Translator, *, waiting_too: bool = True
                           ) -> Payload:
    """``payload`` (a hand message) with its picture, when the server and Discord allow it.

    The embed's text stays as it was; the picture's description says what it shows
    (:func:`describe`, in ``tr``'s language). With
    ``waiting_too`` false (the answer to a move) the picture is drawn only if the player
    acts again: a hand waiting for others is read in text until its owner's turn, which
    halves the renders per move (each move changes the hand, so the cache cannot help).
    When the message already shows this very picture, the edit keeps its file: nothing
    is drawn or uploaded.
    """
    shown = shown_picture(interaction)
    interaction.extras[SHOWN] = None  # unless a picture is attached below: text only
    if payload.embed is None or not images_on(settings, interaction.guild_id):
        return payload
    if not waiting_too and not view.my_turn:
        return payload
    if not interaction.app_permissions.attach_files:
        return payload  # no Attach Files here: the text alone
    spec = hand_spec(view)
    if spec is None:
        return payload
    name = file_name((tr.language, spec))  # its description is in tr's language
    if name == shown:
        payload.keep_files = True  # the same picture: the message keeps its file (and the
        # file its description, which describes the picture alone: still true)
    else:
        data = await rendered(spec)
        payload.files = [_file(data, name, describe(tr, spec))]
    payload.embed.set_image(url=f"attachment://{name}")
    interaction.extras[SHOWN] = name
    return payload


# ---- the game's story at the end -------------------------------------------------------


def chart_body(tr: Translator, view: PlayerView) -> dict[str, Any]:
    """What the final standings' chart shows, as plain data for the outbox (rendered when
    delivered): running totals per seat, the target, the winners, and the colour legend."""
    totals = [list(accumulate(s.round_points)) for s in view.seats]
    rounds = min((len(t) for t in totals), default=0)
    legend = "\n".join(f"{SEAT_EMOJI[s.seat % len(SEAT_EMOJI)]} {tr.name(s.name)}"
                       + (" 🏆" if s.seat in view.winners else "") for s in view.seats)
    options = dict(view.options)
    target = None if "rounds" in options else options.get("target")
    # the picture has no words (matplotlib would not shape Persian): its axes are named here
    axes = [tr("Across: the rounds; up: each player's total points.")]
    if target is not None:
        axes.append(tr("The dashed line is the total that ends the game ({target}).",
                       target=target))
    return {
        "totals": [t[:rounds] for t in totals],
        "target": target,
        "winners": list(view.winners),
        "title": tr("Totals after each round"),
        "legend": clip("\n".join([legend, *axes]), FIELD_VALUE),
        "alt": tr("A line chart of every player's total points (up) after each round "
                  "(across)."),
    }


async def add_chart(payload: Payload, chart: dict[str, Any]) -> Payload:
    """The standings with their chart (rendered now, off the event loop) and its legend."""
    if payload.embed is None or not chart.get("totals") or not chart["totals"][0]:
        return payload
    try:
        data = await drawn_chart(totals_chart, chart["totals"], chart.get("target"),
                                 chart.get("winners") or ())
    except ValueError:
        log.warning("a final chart could not be drawn", exc_info=True)
        return payload
    payload.embed.add_field(name=chart["title"], value=chart["legend"], inline=False)
    payload.embed.set_image(url=f"attachment://{CHART_FILE}")
    payload.files = [*payload.files, _file(data, CHART_FILE, chart.get("alt", ""))]  # (+ record)
    return payload


def without_files(payload: Payload) -> Payload:
    """The same message as text only (the chart's legend and image reference dropped)."""
    payload.files = []
    if payload.embed is not None and payload.embed.image:
        payload.embed.set_image(url=None)
        if payload.embed.fields:
            payload.embed.remove_field(len(payload.embed.fields) - 1)
    return payload


def refused_upload(error: discord.HTTPException) -> bool:
    """Discord refused a message because of its file (no Attach Files in the channel)."""
    return isinstance(error, discord.Forbidden) and error.code == MISSING_PERMISSIONS
