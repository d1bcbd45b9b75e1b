"""The composition root: the bot (bot/process/client.py) with the cogs that serve it (cogs/).

The only module of bot/ that imports cogs/: everything else in bot/ stays below the cogs
(tests/test_layers.py checks it), and the client gets what they add as a
:class:`~bot.client.Wiring`. ``create_bot`` builds exactly what ``python -m bot`` runs,
and what the tests start against the fake Discord.
"""

from __future__ import annotations

from bot.common.clock import Clock
from bot.process.client import LamaBot, Wiring
from bot.process.settings import Settings
from bot.store.sqlite import Store
from cogs import EXTENSIONS
from cogs.buttons import DYNAMIC_ITEMS
from cogs.charts import warm_charts
from cogs.discord_compat import let_go
from cogs.replies import refuse

WIRING = Wiring(names=EXTENSIONS, dynamic_items=DYNAMIC_ITEMS, on_error=refuse, answered=let_go,
                warm=warm_charts)


def create_bot(
    settings: Settings, store: Store | None = None, clock: Clock | None = None
) -> LamaBot:
    """The ready-to-start bot (``await bot.start(token)``)."""
    return LamaBot(settings, store, clock, WIRING)
