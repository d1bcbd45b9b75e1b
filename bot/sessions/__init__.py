"""The channels' sessions, the only in-memory state: a lobby or game per channel, its
seats and players, its saving (one transaction per change, with the messages it owes),
the outbox that delivers those messages, and the restore at start-up.

May import: bot.common, bot.words, bot.ladder, bot.store and the game engine. Knows
nothing of discord.py: the outbox's courier and the policies come in as protocols.
"""
