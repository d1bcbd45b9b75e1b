"""The fair baseline: a minimal discord.py bot making the requests lama makes per move.

Run as its own process by the load benchmark, against the same fake Discord and the same
simulated players (the same custom_id shapes and labels, so the harness cannot tell them
apart). Its "game" has no rules: each click on an action passes the turn. Per accepted move
it makes what lama makes after the play-loop work:

1. the move's type-7 answer (UPDATE_MESSAGE): the clicker's hand, an embed and a View whose
   buttons route back through a ``DynamicItem``;
2. the table edit (a newer state replaces one not yet sent, as any sane bot does when
   Discord's limits make it wait): as lama does, the Start click is answered with the table
   (a new message: no channel request), the lobby is shown started through ``/lama start``'s
   token, and the table is edited through the Start click's token while it lives (14 of its
   15 minutes), through the channel after that; the table and its channel edits are sent
   again until they pass (discord.py gives up on a request after five 429s, which in the
   lobby burst left games with no table, or one naming a player whose turn was over: stuck);
3. the next player's hand edited through the interaction token that last answered them.

With pictures (``BASELINE_IMAGES=on``, the benchmark's default, as lama's servers have them)
it uploads what lama uploads where lama does: a PNG of a hand's size (:data:`PICTURE`, made
once at start-up: 7.2 KB, lama's hands are 3–13 KB, 18% larger since they are joined from
pieces: benchmarks/pictures.py --games) attached to each My hand answer and to
each hand edited because its owner's turn came (lama draws and uploads that player's new
picture there); a move's answer drops the clicked hand's picture (lama's hand waiting for
others is text until its turn). It draws nothing: the upload is the work it shares with lama.

Channel requests (the table and its edits) keep Discord's global limit, 40 a second as
lama's budget does (``BASELINE_PER_SECOND``; 0: unpaced, discord.py alone, which in the
burst nears the 10,000 refusals that get a bot banned); interaction answers and token edits
are exempt from it.

Nothing else: no store, no translations, no drawing, no timers::

    DISCORD_TOKEN=... BASELINE_URL=http://127.0.0.1:PORT python benchmarks/load/baseline.py
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import io
import logging
import os
import random
import re
import secrets
import signal
import struct
import sys
import zlib
from dataclasses import dataclass, field
from typing import Any

import discord
import yarl
from discord import app_commands

log = logging.getLogger("baseline")
PREFIX = "lama:v2"
GAME = r"(?P<game>[0-9a-f]{1,32})"
COLOUR = discord.Colour.from_rgb(222, 170, 60)
ACTIONS = ("play", "draw", "pass")
RETRY_AFTER_GIVING_UP = 1.0  # seconds (discord.py waited out each retry_after already)
TOKEN_USED_FOR = 14 * 60.0  # seconds of an interaction token's 15 minutes (as lama)


@dataclass
class Game:
    """One channel's game: seats in order, whose turn, the table and each player's last token."""

    short_id: str
    guild_id: int
    channel_id: int
    seats: list[int] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)
    started: bool = False
    turn: int = 0
    version: int = 0
    moves: int = 0
    table_id: int | None = None
    hands: dict[int, discord.Interaction] = field(default_factory=dict)
    lobby: discord.Interaction | None = None  # /lama start's (its token edits the lobby)
    answer: discord.Interaction | None = None  # the Start click's (its token edits the table)
    answered_at: float = 0.0
    editing: bool = False
    dirty: bool = False

    @property
    def to_act(self) -> int:
        return self.seats[self.turn % len(self.seats)]


GAMES: dict[int, Game] = {}


def noise_png(width: int = 100, height: int = 71) -> bytes:
    """A valid 8-bit grey PNG of seeded noise (incompressible: about ``width * height``
    bytes), standing in for a hand picture of similar size."""
    rows = random.Random(0).randbytes(width * height)
    raw = b"".join(b"\0" + rows[y * width:(y + 1) * width] for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))

    return b"".join((b"\x89PNG\r\n\x1a\n",
                     chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)),
                     chunk(b"IDAT", zlib.compress(raw, 1)), chunk(b"IEND", b"")))


PICTURE = noise_png()
PICTURE_NAME = "hand.png"
IMAGES = os.environ.get("BASELINE_IMAGES", "on") == "on"


def with_picture(interaction: discord.Interaction, kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` (a hand) with the picture attached, where lama would attach its own: the
    benchmark's images are on and the channel lets the bot attach files."""
    if IMAGES and interaction.app_permissions.attach_files:
        kwargs["embed"].set_image(url=f"attachment://{PICTURE_NAME}")
        kwargs["file"] = discord.File(io.BytesIO(PICTURE), filename=PICTURE_NAME,
                                      description=kwargs["embed"].description)
    return kwargs


class Pacer:
    """Discord's global limit kept rather than learnt from 429s: each channel request takes
    the next of ``per_second`` slots a second (lama's bot/process/budget.py does the same). Without
    it, 200 tables' edits hit the limit, discord.py retries each refused request up to five
    times, and the refusals reached the 10,000 that get a bot banned (the fake's Cloudflare
    rule) within the minute."""

    def __init__(self, per_second: float = 40.0, burst: int = 5) -> None:
        self.interval = 1.0 / per_second if per_second > 0 else float("inf")
        self.burst = burst
        self._next = -float("inf")

    async def take(self) -> None:
        if self.interval == float("inf"):  # unpaced: discord.py alone
            return
        now = asyncio.get_running_loop().time()
        start = max(self._next, now - (self.burst - 1) * self.interval)
        self._next = start + self.interval
        if start > now:
            await asyncio.sleep(start - now)


PACER = Pacer(float(os.environ.get("BASELINE_PER_SECOND", "40")))  # 0: unpaced


def lobby_view(game: Game) -> tuple[discord.Embed, discord.ui.View]:
    embed = discord.Embed(title="L.A.M.A.: new game", colour=COLOUR,
                          description="\n".join(game.names[u] for u in game.seats))
    view = discord.ui.View(timeout=None)
    if not game.started:
        view.add_item(LobbyButton(game.short_id, "join", "Join"))
        view.add_item(LobbyButton(game.short_id, "start", "Start"))
    return embed, view


def table_view(game: Game) -> dict[str, Any]:
    embed = discord.Embed(title="L.A.M.A.: round 1", colour=COLOUR,
                          timestamp=datetime.datetime.now(datetime.UTC))
    embed.description = "\n".join(
        f"{'▶️' if u == game.to_act else '▫️'} **{game.names[u]}** · {game.moves} moves"
        for u in game.seats)
    view = discord.ui.View(timeout=None)
    view.add_item(HandButton(game.short_id))
    return {"content": f"<@{game.to_act}>, it is your turn.", "embed": embed, "view": view}


def hand_view(game: Game, user_id: int) -> dict[str, Any]:
    mine = user_id == game.to_act
    embed = discord.Embed(title=f"{game.names[user_id]}, your hand", colour=COLOUR,
                          description="Your hand: 1 2 3 4 5 6 🦙\n" + (
                              "**Your turn.**" if mine else f"Waiting for {game.to_act}."))
    view = discord.ui.View(timeout=None)
    if mine:
        for action in ACTIONS:
            view.add_item(ActButton(game.short_id, game.version, action))
    return {"embed": embed, "view": view}


def drawn_for(interaction: discord.Interaction, short_id: str) -> Game | None:
    game = GAMES.get(interaction.channel_id or 0)
    return game if game is not None and game.short_id == short_id else None


class LobbyButton(discord.ui.DynamicItem[discord.ui.Button],
                  template=rf"{PREFIX}:lobby:{GAME}:(?P<op>join|start)"):
    def __init__(self, game: str, op: str, label: str = "") -> None:
        super().__init__(discord.ui.Button(label=label or op,
                                           custom_id=f"{PREFIX}:lobby:{game}:{op}"))
        self.game, self.op = game, op

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str]) -> LobbyButton:
        return cls(match["game"], match["op"], item.label or "")

    async def callback(self, interaction: discord.Interaction) -> None:
        game = drawn_for(interaction, self.game)
        if game is None or game.started:
            await interaction.response.send_message("Out of date.", ephemeral=True)
            return
        if self.op == "join" and interaction.user.id not in game.seats:
            game.seats.append(interaction.user.id)
            game.names[interaction.user.id] = interaction.user.display_name
        if self.op == "start":
            game.started = True
        embed, view = lobby_view(game)
        if not game.started:
            await interaction.response.edit_message(embed=embed, view=view)
            return
        try:
            answered = await interaction.response.send_message(**table_view(game))
        except discord.HTTPException:  # (late: the channel posts it, as lama's outbox)
            await send_table(interaction.client, game)
        else:
            game.table_id, game.answer = answered.message_id, interaction
            game.answered_at = asyncio.get_running_loop().time()
            if game.dirty:  # (a move came before the answer's id: shown now)
                await edit_table(interaction.client, game)
        if game.lobby is not None:
            await game.lobby.edit_original_response(embed=embed, view=view)


class HandButton(discord.ui.DynamicItem[discord.ui.Button], template=rf"{PREFIX}:hand:{GAME}"):
    def __init__(self, game: str) -> None:
        super().__init__(discord.ui.Button(label="My hand", style=discord.ButtonStyle.primary,
                                           custom_id=f"{PREFIX}:hand:{game}"))
        self.game = game

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str]) -> HandButton:
        return cls(match["game"])

    async def callback(self, interaction: discord.Interaction) -> None:
        game = drawn_for(interaction, self.game)
        if game is None or interaction.user.id not in game.seats:
            await interaction.response.send_message("Not your game.", ephemeral=True)
            return
        await interaction.response.send_message(
            ephemeral=True, **with_picture(interaction, hand_view(game, interaction.user.id)))
        game.hands[interaction.user.id] = interaction


class ActButton(discord.ui.DynamicItem[discord.ui.Button],
                template=rf"{PREFIX}:act:{GAME}:(?P<version>\d+):(?P<action>[a-z]+)"):
    def __init__(self, game: str, version: int, action: str) -> None:
        super().__init__(discord.ui.Button(label=action.title(),
                                           style=discord.ButtonStyle.success,
                                           custom_id=f"{PREFIX}:act:{game}:{version}:{action}"))
        self.game, self.version, self.action = game, version, action

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Button,
                             match: re.Match[str]) -> ActButton:
        return cls(match["game"], int(match["version"]), match["action"])

    async def callback(self, interaction: discord.Interaction) -> None:
        game = drawn_for(interaction, self.game)
        user = interaction.user.id
        if game is None or user not in game.seats:
            await interaction.response.send_message("Not your game.", ephemeral=True)
            return
        if self.version == game.version and user == game.to_act:
            game.turn += 1
            game.version += 1
            game.moves += 1
        await interaction.response.edit_message(attachments=[], **hand_view(game, user))
        game.hands[user] = interaction
        await asyncio.gather(edit_table(interaction.client, game), follow(game))


async def send_table(client: discord.Client, game: Game) -> None:
    """The game's table, sent until it is: discord.py gives up on a request refused 429 five
    times, which in the lobby burst (200 tables and their edits against Discord's global
    50 a second) left games without a table, so their players never moved."""
    channel = client.get_partial_messageable(game.channel_id, guild_id=game.guild_id)
    while True:
        try:
            await PACER.take()
            message = await channel.send(**table_view(game))
        except discord.HTTPException as exc:
            if exc.status != 429:
                raise
            log.warning("table of %s refused 429 five times; again", game.channel_id)
            await asyncio.sleep(RETRY_AFTER_GIVING_UP)
            continue
        game.table_id = message.id
        return


async def edit_table(client: discord.Client, game: Game) -> None:
    """The table shows the latest state; a state not yet sent is replaced by a newer one, and
    one refused (429 five times: discord.py gives up) is sent again: a table left naming the
    previous player stops the game (nobody sees their turn)."""
    if game.editing:
        game.dirty = True
        return
    game.editing = True
    try:
        channel = client.get_partial_messageable(game.channel_id, guild_id=game.guild_id)
        while True:
            if game.started and game.table_id is None:  # (the answer is under way)
                game.dirty = True
                break
            game.dirty = False
            if game.answer is not None and (asyncio.get_running_loop().time()
                                            - game.answered_at < TOKEN_USED_FOR):
                await game.answer.edit_original_response(**table_view(game))  # (not paced)
            elif game.table_id is not None:
                try:
                    await PACER.take()  # (a newer state may come meanwhile: it is drawn)
                    await channel.get_partial_message(game.table_id).edit(**table_view(game))
                except discord.HTTPException as exc:
                    if exc.status != 429:
                        raise
                    log.warning("table of %s refused 429 five times; again", game.channel_id)
                    game.dirty = True
                    await asyncio.sleep(RETRY_AFTER_GIVING_UP)
            if not game.dirty:
                break
    except discord.HTTPException:
        log.info("could not edit the table of %s", game.channel_id, exc_info=True)
    finally:
        game.editing = False


async def follow(game: Game) -> None:
    """The next player's open hand shows their turn (edited through its token)."""
    interaction = game.hands.get(game.to_act)
    if interaction is None:
        return
    try:
        kwargs = with_picture(interaction, hand_view(game, game.to_act))
        if "file" in kwargs:
            kwargs["attachments"] = [kwargs.pop("file")]
        await interaction.edit_original_response(**kwargs)
    except discord.HTTPException:
        game.hands.pop(game.to_act, None)


class Baseline(discord.Client):
    def __init__(self) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        super().__init__(intents=intents, allowed_mentions=discord.AllowedMentions.none())
        self.tree = app_commands.CommandTree(self)
        group = app_commands.Group(name="lama", description="Play", guild_only=True)

        @group.command(name="start", description="Open a lobby")
        async def start(interaction: discord.Interaction, variant: str = "classic",
                        target: int = 15, rounds: int = 3) -> None:
            game = Game(secrets.token_hex(4), interaction.guild_id or 0,
                        interaction.channel_id or 0, [interaction.user.id],
                        {interaction.user.id: interaction.user.display_name})
            game.lobby = interaction
            GAMES[game.channel_id] = game
            embed, view = lobby_view(game)
            await interaction.response.send_message(embed=embed, view=view)

        @group.command(name="rules", description="The rules")
        async def rules(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("Pass the turn.", ephemeral=True)

        self.tree.add_command(group)

    async def setup_hook(self) -> None:
        self.add_dynamic_items(LobbyButton, HandButton, ActButton)
        await self.tree.sync()


def point_at(url: str) -> None:
    base = yarl.URL(url.rstrip("/"))
    discord.http.Route.BASE = str(base / "api" / "v10")
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = base.with_scheme("ws") / "gateway"


async def run(token: str) -> None:
    client = Baseline()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, lambda: asyncio.ensure_future(client.close()))
    async with client:
        await client.start(token)


def main() -> int:
    logging.basicConfig(level=logging.WARNING)
    point_at(os.environ["BASELINE_URL"])
    try:  # (importable only with bot_load.py --baseline-speedups: lama's uvloop and orjson)
        import uvloop
    except ImportError:
        loop_factory = None
    else:
        loop_factory = uvloop.new_event_loop
    with contextlib.suppress(KeyboardInterrupt), asyncio.Runner(loop_factory=loop_factory) as r:
        r.run(run(os.environ["DISCORD_TOKEN"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
