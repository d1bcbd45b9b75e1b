"""``/lama start``, the lobby's buttons (Join, Leave, Add AI, Start, Cancel), Rematch."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

import discord
from discord import app_commands
from discord.enums import InteractionResponseType
from discord.ext import commands

from bot.policies.timers import MAX_TURN_TIMEOUT, require_turn_timeout
from bot.sessions.errors import BotError, NotAllowed
from bot.sessions.outbox import EVENT, STATE
from bot.sessions.sessions import Session, Status
from bot.sessions.state import HOUR, MAX_RELAXED_HOURS, Pace, require_relaxed_hours
from bot.words.i18n import N_, Translator
from cogs import threads
from cogs.common import (
    place,
    public_tr,
    require_bot_can_post,
    require_variant,
    require_whole,
    user_locale,
)
from cogs.hands import TOKEN_TTL
from cogs.render import Payload, lobby_message
from cogs.timely import in_time, send_message, update_message
from game import find_rules, variant_names

if TYPE_CHECKING:
    from bot.process.client import LamaBot

log = logging.getLogger(__name__)

MAX_TARGET = 500
MAX_ROUNDS = 50
VARIANTS = [app_commands.Choice(name=name, value=name) for name in variant_names()]
PACES = [app_commands.Choice(name=pace.value, value=pace.value) for pace in Pace]


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
    if session.pace is Pace.RELAXED:
        summary = (tr.plural("{n} round", "{n} rounds", opts["rounds"]) if "rounds" in opts
                   else tr.plural("to {n} point", "to {n} points", opts["target"]))
        summary += "; " + pace_text(tr, session)
    return lobby_message(tr, session.short_id, tr(rules.title), host,
                         [(s.name, s.is_ai) for s in session.seats], summary, closed)


def pace_text(tr: Translator, session: Session) -> str:
    """A relaxed game's pace, as the lobby and the table show it."""
    hours = max(1, round(session.timers.turn_timeout / HOUR))
    return tr.plural("relaxed pace: {n} hour per turn", "relaxed pace: {n} hours per turn",
                     hours)


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


def require_pace(value: object) -> Pace | None:
    """The pace option (None: the server's default); a forged value is refused."""
    if value is None:
        return None
    if not isinstance(value, str) or value not in {p.value for p in Pace}:
        raise BotError(N_("The pace is live or relaxed."))
    return Pace(value)


class Shows(Protocol):
    """What the Start click needs of cogs.posts.Posts (which imports this module)."""

    def opening_table(self, session: Session) -> tuple[Payload, dict[str, Any] | None]: ...
    def table_answered(self, session: Session, first: dict[str, Any] | None, message_id: int,
                       sent_at: float, answer: list[Any]) -> None: ...
    async def edit_lobby(self, session: Session, payload: Payload) -> bool: ...


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
        pace="live (minutes per turn) or relaxed (hours); default: the server's setting",
        turn_hours="Relaxed games: hours per turn, 1 to 168 (default: the server's setting)",
    )
    @app_commands.choices(variant=VARIANTS, pace=PACES)
    async def start(
        self,
        interaction: discord.Interaction,
        variant: str = "classic",
        target: app_commands.Range[int, 1, MAX_TARGET] | None = None,
        rounds: app_commands.Range[int, 1, MAX_ROUNDS] | None = None,
        turn_timeout: app_commands.Range[int, 0, MAX_TURN_TIMEOUT] | None = None,
        pace: str | None = None,
        turn_hours: app_commands.Range[int, 1, MAX_RELAXED_HOURS] | None = None,
    ) -> None:
        guild_id, channel_id = place(interaction)
        # Discord checks these against the command's schema; a forged payload is refused too
        require_variant(variant)
        if target is not None:
            require_whole("target", target, 1, MAX_TARGET)
        if rounds is not None:
            require_whole("rounds", rounds, 1, MAX_ROUNDS)
        chosen = require_pace(pace)
        if turn_timeout is not None:
            require_turn_timeout(turn_timeout)  # refused before anything changes
        if turn_hours is not None:
            require_relaxed_hours(turn_hours)
        if chosen is Pace.RELAXED and turn_timeout is not None:
            raise BotError(N_("A relaxed game's turn is counted in hours, not seconds."))
        if chosen is Pace.LIVE and turn_hours is not None:
            raise BotError(N_("Hours per turn are only for relaxed games."))
        if chosen is None and (turn_hours is not None or turn_timeout is not None):
            chosen = Pace.RELAXED if turn_hours is not None else Pace.LIVE
        seconds = turn_hours * HOUR if turn_hours is not None else turn_timeout
        require_bot_can_post(interaction)
        user = interaction.user
        session = await in_time(interaction, self.bot.sessions.open(
            guild_id, channel_id, (user.id, user.display_name), variant,
            game_options(variant, target, rounds), user_locale(interaction),
            turn_timeout=seconds, answer=self._answer(interaction), pace=chosen,
        ))
        await self._show_lobby(interaction, session)

    def _answer(self, interaction: discord.Interaction) -> tuple[int, str, float]:
        """A new lobby's interaction: app id, token, and until when its token may be used."""
        return (interaction.application_id, interaction.token,
                self.bot.sessions.clock.now() + TOKEN_TTL)

    async def _show_lobby(self, interaction: discord.Interaction, session: Session) -> None:
        """Answer with the lobby its commit owes; a late or failed answer is posted instead.
        Answered with a new message (or the command's placeholder filled), the lobby is that
        interaction's original: its later edits may go through the token (cogs/posts.py)."""
        outbox = self.bot.sessions.outbox
        item = outbox.claim(session.channel_id, "lobby")
        payload = lobby_payload(public_tr(session), session)
        until = self.bot.sessions.clock.now() + TOKEN_TTL
        try:
            session.lobby_message_id = await send_message(interaction, **payload.kwargs())
            if session.lobby_message_id is not None and interaction.response.type in (
                    InteractionResponseType.channel_message,
                    InteractionResponseType.deferred_channel_message):
                session.lobby_answer = (interaction.application_id, interaction.token, until,
                                        session.lobby_message_id)
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
            moved = self.bot.sessions.moved_from(channel_id, game)
            if moved is not None and moved.guild_id == guild_id:
                raise BotError(N_("This game moved to its own thread: {thread}."),
                               thread=f"<#{moved.channel_id}>")
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
            clicked = interaction.message.id if interaction.message is not None else 0
            answer = (interaction.application_id, interaction.token, clicked,
                      self.bot.sessions.clock.now() + TOKEN_TTL)
            await in_time(interaction, session.start(user.id, threads.home_for(
                self.bot, interaction, session), answer))
            closed = threads.started_text(tr, moved=session.parent_id == channel_id,
                                          no_thread=session.no_thread)
            if await self._answer_start(interaction, session, lobby_payload(tr, session, closed)):
                return
        outbox = self.bot.sessions.outbox
        payload = lobby_payload(tr, session, closed)
        if session.parent_id == channel_id:  # the game went to its thread: the link to it
            item = outbox.claim(channel_id, "moved", EVENT)
            payload = threads.moved_payload(payload, tr, session)
        else:
            item = outbox.claim(channel_id, "lobby")  # the answer shows it
        try:
            await update_message(interaction, **payload.kwargs(edit=True))
        except discord.HTTPException:
            if item is not None:
                outbox.give_back(item)
            raise
        finally:
            await self.bot.sessions.publish(session)  # the table, or the lobby if not shown
        if item is not None:
            outbox.done(item)

    def _posts(self) -> Shows:
        """What the channel is shown (the Table cog's cogs.posts.Posts)."""
        table: Any = self.bot.get_cog("Table")
        posts: Shows = table.posts
        return posts

    async def _answer_start(self, interaction: discord.Interaction, session: Session,
                            lobby: Payload) -> bool:
        """The Start click answered with the game's first table (a new public message: no
        request of the bot's global budget), and the lobby shown started through the token
        of the interaction it answered; the outbox's items claimed, marked or given back as
        :meth:`_show_lobby` does (a refused answer: the channel posts the table under its
        nonce, after looking for an answer made anyway). False: not answered so (a deferred
        click, a game gone to its thread): the click updates the lobby as before."""
        outbox, posts = self.bot.sessions.outbox, self._posts()
        owed = next((q for q in outbox.pending(session.channel_id)
                     if q.kind == STATE and q.key == "table"), None)
        if owed is None or not owed.body.get("answer"):  # (a game gone to its thread)
            return False
        if interaction.response.is_done() or session.parent_id is not None:
            outbox.give_back(owed)  # (still queued, in its place: the channel posts it)
            return False
        table = outbox.claim(session.channel_id, "table")
        if table is None:
            return False
        started = outbox.claim(session.channel_id, "lobby")
        payload, first = posts.opening_table(session)
        sent_at = self.bot.sessions.clock.now()
        try:
            message_id = await send_message(interaction, **payload.kwargs())
        except discord.HTTPException:
            log.warning("could not answer Start in channel %s with the table; posting it",
                        session.channel_id, exc_info=True)
            outbox.give_back(table)
            if started is not None:
                outbox.give_back(started)  # (before the table, as owed)
            await self.bot.sessions.publish(session)
            return True
        if message_id is not None:
            posts.table_answered(session, first, message_id, sent_at, table.body["answer"])
        outbox.done(table, message_id)
        try:
            if started is not None:
                if await posts.edit_lobby(session, lobby):
                    outbox.done(started)
                else:
                    outbox.give_back(started)
        finally:
            session.lobby_answer = None  # (the lobby is closed: nothing edits it any more)
            await self.bot.sessions.publish(session)
        return True

    async def on_rematch(self, interaction: discord.Interaction, game_id: str) -> None:
        """A player of the finished game opens a lobby with its rules; only they are seated,
        and the others join by clicking Join (nobody is seated without their consent)."""
        guild_id, channel_id = place(interaction)
        stored = await in_time(interaction, self.bot.store.game(guild_id, game_id))
        parent = getattr(interaction.channel, "parent_id", None)  # (a thread's channel)
        if stored is not None and stored["channel_id"] == parent:
            raise BotError(N_("Press Rematch under the standings in {channel}: the new game "
                              "opens there."), channel=f"<#{parent}>")
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
            answer=self._answer(interaction), pace=Pace(stored.get("pace") or Pace.LIVE.value),
        ))
        await self._show_lobby(interaction, session)


async def setup(bot: LamaBot) -> None:
    await bot.add_cog(Lobby(bot))

