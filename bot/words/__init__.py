"""Words: the translator and its catalogs (bot/words/locales), the slash commands'
translations, and the escaping of names shown in Discord's markdown.

May import: bot.common. Knows nothing of the store, the sessions or the process.
"""
