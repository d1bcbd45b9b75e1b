"""``/lama start``, the lobby's buttons (Join, Leave, Add AI, Start, Cancel), Rematch."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import discord
from discord import app_commands
from discord.ext import commands

from bot.policies.timers import MAX_TURN_TIMEOUT, require_turn_timeout
from bot.sessions.errors import BotError, NotAllowed
from bot.sessions.sessions import Session, Status
from bot.words.i18n import N_, Translator
from cogs.common import (
    place,
    public_tr,
    require_bot_can_post,
    require_variant,
    require_whole,
    user_locale,
)
from cogs.render import Payload, lobby_message
from cogs.timely import in_time, send_message, update_message
from game import find_rules, variant_names

if TYPE_CHECKING:
    from bot.process.client import LamaBot

log = logging.getLogger(__name__)

MAX_TARGET = 500
MAX_ROUNDS = 50
VARIANTS = [app_commands.Choice(name=name, value=name) for name in variant_names()]


def lobby_payload(tr: Translator, session: Session, closed: str | None = None) -> Payload:
    rules = find_rules(session.variant)
    host = next((tr.name(s.name) for s in session.seats if s.user_id == session.host_id),
                f"<@{session.host_id}>")
    opts = dict(rules.option_defaults, **session.options)
    seconds = session.timers.turn_timeout
    if "rounds" in opts:
        summary = (tr.plural("{n} round; {seconds} s per turn", "{n} rounds; {seconds} s per turn",
                             opts["rounds"], seconds=seconds) if seconds > 0
                   else tr.plural("{n} round", "{n} rounds", opts["rounds"]))
    else:
        summary = (tr.plural("to {n} point; {seconds} s per turn",
                             "to {n} points; {seconds} s per turn", opts["target"],
                             seconds=seconds) if seconds > 0
                   else tr.plural("to {n} point", "to {n} points", opts["target"]))
    return lobby_message(tr, session.short_id, tr(rules.title), host,
                         [(s.name, s.is_ai) for s in session.seats], summary, closed)


AI_SEATS = {
    "easyai": ("easy", N_("Easy AI {n}")),
    "ai": ("normal", N_("AI {n}")),
    "hardai": ("hard", N_("Hard AI {n}")),
}
"""Lobby button -> the AI seat's difficulty and name (the name shows it at the table)."""


async def add_ai(
    interaction: discord.Interaction, session: Session, tr: Translator, op: str
) -> None:
    """Seat an AI of the difficulty the button names."""
    difficulty, name = AI_SEATS[op]
    await in_time(interaction, session.add_ai(interaction.user.id, tr.pattern(name), difficulty,
                                              tr.figures))


def game_options(variant: str, target: int | None, rounds: int | None) -> dict[str, int]:
    """The options the rule set knows; the others are ignored."""
    known = find_rules(variant).option_defaults
    given = {"target": target, "rounds": rounds}
    return {k: v for k, v in given.items() if v is not None and k in known}


class Lobby(commands.Cog):
    """Opening games."""

    def __init__(self, bot: LamaBot) -> None:
        self.bot = bot
        self._command = app_commands.Command(
            name="start", description="Open a lobby for a new L.A.M.A. game in this channel",
            callback=self.start,
        )

    async def cog_load(self) -> None:
        self.bot.lama.add_command(self._command)

    async def cog_unload(self) -> None:
        self.bot.lama.remove_command(self._command.name)

    @app_commands.describe(
        variant="Rule set (default classic)",
        target="Points that end the game (classic, kadabra, dice; default 40)",
        rounds="Number of rounds (tutorial; default 4)",
        turn_timeout="Seconds per turn before the bot plays for you (0: no timer; "
                     "default: the server's setting)",
    )
    @app_commands.choices(variant=VARIANTS)
    async def start(
        self,
        interaction: discord.Interaction,
        variant: str = "classic",
        target: app_commands.Range[int, 1, MAX_TARGET] | None = None,
        rounds: app_commands.Range[int, 1, MAX_ROUNDS] | None = None,
        turn_timeout: app_commands.Range[int, 0, MAX_TURN_TIMEOUT] | None = None,
    ) -> None:
        guild_id, channel_id = place(interaction)
        # Discord checks these against the command's schema; a forged payload is refused too
        require_variant(variant)
        if target is not None:
            require_whole("target", target, 1, MAX_TARGET)
        if rounds is not None:
            require_whole("rounds", rounds, 1, MAX_ROUNDS)
        if turn_timeout is not None:
            require_turn_timeout(turn_timeout)  # refused before anything changes
        require_bot_can_post(interaction)
        user = interaction.user
        session = await in_time(interaction, self.bot.sessions.open(
            guild_id, channel_id, (user.id, user.display_name), variant,
            game_options(variant, target, rounds), user_locale(interaction),
            turn_timeout=turn_timeout, answer=(interaction.application_id, interaction.token),
        ))
        await self._show_lobby(interaction, session)

    async def _show_lobby(self, interaction: discord.Interaction, session: Session) -> None:
        """Answer with the lobby its commit owes; a late or failed answer is posted instead."""
        outbox = self.bot.sessions.outbox
        item = outbox.claim(session.channel_id, "lobby")
        payload = lobby_payload(public_tr(session), session)
        try:
            session.lobby_message_id = await send_message(interaction, **payload.kwargs())
        except discord.HTTPException:
            log.warning("could not answer /lama start in channel %s; posting the lobby",
                        session.channel_id, exc_info=True)
            if item is not None:
                outbox.give_back(item)
            await self.bot.sessions.publish(session)  # a refused post gives the channel back
            return
        if item is not None:
            outbox.done(item, session.lobby_message_id)

    async def on_lobby_button(self, interaction: discord.Interaction, game: str, op: str) -> None:
        """A lobby button; the channel is the interaction's, the lobby must be the one drawn."""
        guild_id, channel_id = place(interaction)
        session = self.bot.sessions.get(channel_id)
        if (session is None or session.guild_id != guild_id or session.short_id != game
                or session.status is not Status.LOBBY):
            raise BotError(N_("This lobby is closed."))
        user = interaction.user
        tr = public_tr(session)
        closed = None
        if op == "join":
            await in_time(interaction, session.join(user.id, user.display_name))
        elif op == "leave":
            await in_time(interaction, session.leave(user.id))
        elif op in AI_SEATS:
            await add_ai(interaction, session, tr, op)
        elif op == "noai":
            await in_time(interaction, session.remove_ai(user.id))
        elif op == "cancel":
            await in_time(interaction, session.cancel(user.id))
            closed = tr("Cancelled by {name}.", name=tr.plain(user.display_name))
        elif op == "start":
            require_bot_can_post(interaction)
            await in_time(interaction, session.start(user.id))
            closed = tr("The game has started: see the table below.")
        outbox = self.bot.sessions.outbox
        item = outbox.claim(session.channel_id, "lobby")  # the answer shows it
        try:
            await update_message(interaction,
                                 **lobby_payload(tr, session, closed).kwargs(edit=True))
        except discord.HTTPException:
            if item is not None:
                outbox.give_back(item)
            raise
        finally:
            await self.bot.sessions.publish(session)  # the table, or the lobby if not shown
        if item is not None:
            outbox.done(item)

    async def on_rematch(self, interaction: discord.Interaction, game_id: str) -> None:
        """A player of the finished game opens a lobby with its rules; only they are seated,
        and the others join by clicking Join (nobody is seated without their consent)."""
        guild_id, channel_id = place(interaction)
        stored = await in_time(interaction, self.bot.store.game(guild_id, game_id))
        if stored is None or stored["channel_id"] != channel_id:
            raise BotError(N_("That game is not known any more."))
        user = interaction.user
        if all(s["user_id"] != user.id for s in stored["seats"]):
            raise NotAllowed(N_("Only a player of that game can start a rematch. "
                                "Use {cmd_start} to open a new game."))
        require_bot_can_post(interaction)
        record = stored["record"]
        session = await in_time(interaction, self.bot.sessions.open(
            guild_id, channel_id, (user.id, user.display_name), stored["variant"],
            dict(record.get("options", {})), user_locale(interaction),
            answer=(interaction.application_id, interaction.token),
        ))
        await self._show_lobby(interaction, session)


async def setup(bot: LamaBot) -> None:
    await bot.add_cog(Lobby(bot))

