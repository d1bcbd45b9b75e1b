"""What the bot keeps: one protocol (``Store`` in :mod:`bot.store.sqlite`), the SQL written
once (:mod:`bot.store.sql_store`), the SQLite and PostgreSQL adapters with their schemas and
migrations, the loop-side SQLite writer, the shard leases, and the records of what a change
owes the channel (:mod:`bot.store.owed`).

May import: bot.common and bot.ladder. Knows nothing of the sessions, the words or Discord.
"""
