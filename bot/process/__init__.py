"""The process: settings, the Discord client (its click listener, the rate-limit budget, the
event loop), logs without secrets, health and metrics, and the operator's commands
(backups, data requests). It builds the store and the sessions and hands them to the cogs
through the wiring that :mod:`bot.app`, the composition root, gives it.

May import: bot.common, bot.words, bot.ladder, bot.store, bot.sessions, bot.policies,
bot.pictures and discord.py. Never the cogs (they come in as a wiring).
"""
