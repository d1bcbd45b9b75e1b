"""A local fake Discord (REST API v10 + gateway) for testing a real, unmodified discord.py bot.

Only the wire is fake: the bot is a real ``commands.Bot`` / ``commands.AutoShardedBot``;
``fake.run(bot)`` points ``discord.http.Route.BASE`` and
``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY`` at the fake and restores them after.

Driver API::

    from fakediscord import FakeDiscord, FakeDiscordError, MANAGE_MESSAGES, SEND_MESSAGES

    async with FakeDiscord(interaction_timeout=3.0, transcript_dir=None,
                           shards=1, max_concurrency=1,             # GET /gateway/bot
                           session_starts=1000) as fake:            # answers these
        guild = fake.add_guild("Lama Club", locale="en-US", bot_permissions=None)
        fake.add_guild("Far", shard=(3, 8))        # an id routed to shard 3 of 8
        table = guild.add_text_channel("lama")
        ana = guild.add_member("ana", locale="en-US")
        mod = guild.add_member("mo", permissions=MANAGE_MESSAGES)   # a role with these perms
        role = guild.add_role("players", permissions)               # add_member(roles=[role])
        guild.me                                   # the bot's own Member
        async with fake.run(bot, sync=True, timeout=10):  # login, READY, guilds, command sync
            reply = await ana.slash(table, "lama start", variant="classic")  # Member/Role/
            reply.type            # callback type: 4, 5, 6, 7, 9       # TextChannel options ok
            reply.message         # what the user sees as the answer (live, current state)
            reply.ephemeral, reply.followups, reply.interaction
            await reply.wait_edit(count=1, timeout=5)   # @original edited (after a defer)
            await reply.followup(index=0, timeout=5)    # the index-th followup
            await reply.wait_for(lambda m: "x" in m.text, timeout=5)
            reply.modal           # the modal (type 9): then ``await ana.submit(reply, f="v")``
            await ana.autocomplete(table, "lama start", "variant", "cl")  # -> choices
            await ben.click(msg, "Join")                # by label or custom_id
            await ana.select(msg, "ben", custom_id=None)  # option label/value (several ok)
            await ana.say(table, "hello")               # a plain user message
            table.messages        # public messages, oldest first, current state
            ana.ephemerals        # ephemeral messages only ana sees, oldest first
            await table.wait_for_message(lambda m: ..., timeout=5)   # next create/edit
            await ana.wait_for_ephemeral(lambda m: ..., timeout=5)
            await table.set_permissions(guild.me, deny=SEND_MESSAGES)  # bot gets 50013
            await table.delete()                         # CHANNEL_DELETE, then 404 10003
            await guild.remove_bot()    # GUILD_DELETE (on_guild_remove), then 403 50001
            await guild.add_bot()       # GUILD_CREATE (on_guild_join)
            fake.clock.advance(901)                      # token expiry / 3-second rule
            fake.rate_limit("POST", "/channels/*/messages", retry_after=0.1, times=1)
            fake.fail("POST", "/channels/*/messages", status=500, times=1)
            fake.delay("*", "/interactions/*/callback", 0.2, times=None)  # -> Fault(.hits)
            await fake.drop_gateway(code=4000, wait=True)  # client reconnects and RESUMEs
            fake.gateway.resumes, fake.gateway.identifies, fake.gateway.replayed
            fake.gateway.shards()   # {(shard_id, count): live connections}; each connection
                                    # gets only its shard's guilds' events and interactions
        fake.keep_files = True          # keep uploads' bytes: fake.files[attachment id]
        fake.write_transcript("out/")   # transcript.jsonl + transcript.html
        fake.refusals, fake.failures, fake.errors

Messages (``fakediscord.messages.Message``): ``id, content, embeds`` (title, description,
fields, footer, color), ``buttons`` (label, custom_id, style, disabled, emoji), ``selects``
(custom_id, options, min_values, max_values), ``text`` (plain rendering, with Components V2
text displays), ``text_displays``, ``v2`` (flag IS_COMPONENTS_V2), ``shown_attachments`` (a
V2 message shows only the files its components reference), ``ephemeral``, ``flags``,
``edits``, ``deleted``.

Discord's rules (refusals, silent drops, lint, pacing), where each number comes from, and
what the fake does not model are listed in ``fakediscord/README.md``. In short::

    FakeDiscord(pacing=10)        # rate limits on, 1 real s = 10 Discord s (off by default)
    fake.pacing.summary()         # requests, 429s, time waited on buckets
    fake.lint                     # what Discord would silently ignore; fake.run fails on it
    fake.old_edit_limit = 5       # edits per hour to an hour-old message, then 429 30046
    fake.attachment_size_limit    # bytes per upload (10 MiB); interactions carry it, 413 past it
    fake.dropped_embeds           # embeds dropped for lack of Embed Links
    fake.late_nonces              # (channel, nonce) repeated after the window: posted twice
    thread = table.create_thread("round 1", type=11); await thread.archive(locked=False)
    fake.emojis                   # application emojis (/applications/{id}/emojis)

A user action returns once the bot answered; it raises ``FakeDiscordError`` when the bot did
not answer within ``interaction_timeout`` (3 s, or ``$FAKEDISCORD_INTERACTION_TIMEOUT``;
recorded in ``fake.failures``). Requests
Discord would refuse get Discord's 4xx ``{"message", "code"}`` and are recorded in
``fake.refusals``. Bugs of the fake itself are answered 400 code 0, recorded in
``fake.errors``, and make ``fake.run`` raise at exit; so does any lint.

Modules, in layers; each imports only from the layers before it (tests/test_layers.py fails
on any import circle). What a lower module needs of a higher one is a ``Protocol`` written in
the lower module (the model's view of the fake, the driver and the gateway, for example).

1. basics: ``base`` (permissions, errors, clock, snowflakes, notifier), ``faults``,
   ``messages`` (a stored message and its readable views)
2. Discord's rules and wire formats: ``values``, ``layout``, ``validate``, ``lint``,
   ``commands_check``, ``wire``, ``ratelimit``
3. the model: ``people`` (users, roles, members), ``model`` (guilds, channels), ``threads``
4. ``state``: what the fake knows and records, and the helpers that change it
5. the routes and the gateway: ``channels``, ``interactions``, ``emojis``, ``gateway``,
   ``transcript``, ``server``
6. what users do: ``options``, ``result``, ``driver``
7. ``fake``: ``FakeDiscord``, a state that runs the server, the gateway and the bot
"""

from __future__ import annotations

from .base import (
    ADD_REACTIONS,
    ADMINISTRATOR,
    ALL_PERMISSIONS,
    ATTACH_FILES,
    DEFAULT_PERMISSIONS,
    EMBED_LINKS,
    MANAGE_CHANNELS,
    MANAGE_GUILD,
    MANAGE_MESSAGES,
    MANAGE_ROLES,
    READ_MESSAGE_HISTORY,
    SEND_MESSAGES,
    USE_APPLICATION_COMMANDS,
    VIEW_CHANNEL,
    Clock,
    FakeDiscordError,
)
from .driver import InteractionResult
from .fake import Failure, FakeDiscord, Refusal
from .faults import Fault
from .messages import Button, Embed, EmbedField, Message, Select, SelectOption
from .model import Guild, Member, Role, TextChannel, User

__all__ = [
    "ADD_REACTIONS",
    "ADMINISTRATOR",
    "ALL_PERMISSIONS",
    "ATTACH_FILES",
    "DEFAULT_PERMISSIONS",
    "EMBED_LINKS",
    "MANAGE_CHANNELS",
    "MANAGE_GUILD",
    "MANAGE_MESSAGES",
    "MANAGE_ROLES",
    "READ_MESSAGE_HISTORY",
    "SEND_MESSAGES",
    "USE_APPLICATION_COMMANDS",
    "VIEW_CHANNEL",
    "Button",
    "Clock",
    "Embed",
    "EmbedField",
    "Failure",
    "FakeDiscord",
    "FakeDiscordError",
    "Fault",
    "Guild",
    "InteractionResult",
    "Member",
    "Message",
    "Refusal",
    "Role",
    "Select",
    "SelectOption",
    "TextChannel",
    "User",
]
