"""Whom a table posted as a new message notifies (cogs/table_posts.py delivers it).

The round's first post mentions the seats the watchdog chose when it was owed
(``TimerState.notified``, bot/policies/timers.py: saved, so a restart renders the same); a table
posted anew mid-round (too old to edit, or deleted) mentions whoever does not follow the
game then, who count as notified too (their ping waits the delay). A player counts as
notified only once a post that mentions them is out: otherwise their ping comes at once.
"""

from __future__ import annotations

from typing import Any

from bot.sessions.sessions import Session, Timers
from bot.words.i18n import Translator
from cogs.render import Payload, notify


def round_post_owed(session: Session) -> dict[str, Any] | None:
    """The current round's notified set while its post is not out yet."""
    told_, game = session.timers.notified, session.game
    if told_ is None or game is None or told_.get("posted") or told_.get(
            "round") != game.state.round_no:
        return None
    return told_


def on_post(tr: Translator, session: Session, payload: Payload, watchdog: Timers
            ) -> dict[str, Any] | None:
    """The table is about to be posted as a new message: ``payload`` notifies the humans
    who cannot see the game otherwise. Returns the round's set if this is its first post."""
    state, game = session.timers, session.game
    round_no = game.state.round_no if game is not None else 0
    first = round_post_owed(session)
    if first is not None:
        seats = list(first["seats"])
    else:
        seats = watchdog.unfollowed(session)
        if state.notified is not None and state.notified.get("round") == round_no:
            state.notified["seats"] = sorted({*state.notified["seats"], *seats})
        else:
            state.notify(round_no, seats, posted=True)
        watchdog.arm(session)  # their ping waits the delay now
    users = [s.user_id for i, s in enumerate(session.seats) if i in seats and not s.is_ai
             and s.user_id is not None]
    notify(tr, payload, users)
    return first


def told(session: Session, first: dict[str, Any], found: bool, watchdog: Timers) -> None:
    """The round's post is out: it notified its seats; unless the nonce ``found`` a post
    made earlier (e.g. for the round before, its answer lost): whom that one mentioned is
    not known, so nobody counts as notified (pinged at once; its edit notifies nobody)."""
    first["posted"] = True
    if found and first["seats"]:
        first["seats"] = []
        watchdog.arm(session)
