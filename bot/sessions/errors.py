"""Refusals the bot shows the user: a translatable message and its parameters."""

from __future__ import annotations

from bot.words.i18n import N_


class BotError(Exception):
    """A short answer to a request the bot refuses; ``message`` is an i18n msgid."""

    message = N_("That is not possible right now.")

    def __init__(self, message: str | None = None, **params: object) -> None:
        super().__init__(message or self.message)
        if message is not None:
            self.message = message
        self.params = params


class NoGame(BotError):
    # TRANSLATORS: {cmd_start} is the slash command, as the reader's Discord names it
    message = N_("There is no L.A.M.A. game in this channel. Start one with {cmd_start}.")


class NotSeated(BotError):
    message = N_("You are not seated in this game.")


class StaleButton(BotError):
    """A click on a button drawn for an older state of the game."""

    message = N_("That button is out of date: here is your current hand.")


class NotAllowed(BotError):
    message = N_("Only the host can do that.")


class CannotPost(BotError):
    """The bot lacks what it needs to post the table in this channel."""

    message = N_(
        "I cannot post in this channel: a server admin needs to give me the View Channel "
        "and Send Messages permissions here."
    )


class GameGone(BotError):
    """A click on a button drawn for a lobby or game that is no longer this channel's."""

    message = N_("That button is out of date: its game is over.")


class LegacyButtonUsed(BotError):
    """A click on a button of the bot's first format, from before an upgrade."""

    # TRANSLATORS: {cmd_hand} and {cmd_start} are slash commands
    message = N_("That button is out of date (from an older version of the bot). Use "
                 "{cmd_hand} to see your hand, or {cmd_start} to open a new game.")


class ForgedClick(BotError):
    """A click whose custom_id is not on the clicked message (a modified client): refused
    with the plain default message, and nothing is done."""


class NotAMove(BotError):
    """An action text that names no move at all (a forged or garbled component)."""

    message = N_("That is not a move of this game.")


class SaveFailed(BotError):
    """The store refused a change; it was undone in memory too, so this is the truth."""

    message = N_("The bot could not save that, so nothing was changed. Try again in a moment.")
