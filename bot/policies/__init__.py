"""What moves a game when no human clicks: AI turns (in a process pool), the turn timers and
the bot playing for an absent player, wired onto the sessions by :mod:`bot.policies.wiring`.

May import: bot.common, bot.words, bot.ladder, bot.store, bot.sessions and the game engine.
The sessions call these through protocols and never import them.
"""
