"""The page's own words, through the bot's catalogs like every text a user reads.

The page speaks the server's language when one is set (the language switch), else the
browser's (``Accept-Language``), else English; the bot's messages follow the bot's rules.
"""

from __future__ import annotations

from bot.words.i18n import N_, Translator, pick, translator

PAGE = {
    "play_as": N_("Play as"),
    "add_member": N_("Add a member"),
    "add": N_("Add"),
    "server_language": N_("Server language"),
    "language_hint": N_("Set with {command} by {name}, the server's admin."),
    "local_only": N_("A local fake Discord and the real bot; nothing leaves this computer."),
    "connecting": N_("connecting…"),
    "disconnected": N_("disconnected: is the sandbox still running?"),
    "composer": N_("Message #{channel} as {name}: type /lama"),
    # TRANSLATORS: Discord's small tag beside an app's (the bot's) name, in capitals as
    # Discord shows it; short.
    "app": N_("APP"),
    "to_play": N_("to play"),
    "admin": N_("admin"),
    "only_you": N_("Only you can see this"),
    "thinking": N_("{name} is thinking…"),
    "used": N_("{name} used {command}"),
    "edited": N_("(edited)"),
    "choose": N_("Choose…"),
    "command_box": N_("Slash command"),
    "dismiss": N_("Dismiss message"),
    "language_auto": N_("Automatic (per player)"),
    "members_and_settings": N_("Members and settings"),
    "direct_messages": N_("Direct messages"),
    "no_dms": N_("No direct messages from lama: {command} with dm on sends you one when your "
                 "turn comes in a relaxed game."),
}


def page_language(server: str | None, accept_language: str | None) -> Translator:
    """The server's language if set, else the browser's first language, else English."""
    first = (accept_language or "").split(",")[0].split(";")[0].strip() or None
    return translator(pick(server, first))


def page_texts(tr: Translator) -> dict[str, str]:
    """Each text's pattern, ``{placeholders}`` left for the page to fill."""
    texts = {key: tr.pattern(message) for key, message in PAGE.items()}
    texts["_lang"] = tr.language
    texts["_dir"] = "rtl" if tr.rtl else "ltr"
    return texts
