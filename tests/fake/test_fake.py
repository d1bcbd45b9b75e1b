"""Tests of the fake Discord with a real discord.py bot defined here."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from fakediscord import (
    MANAGE_MESSAGES,
    SEND_MESSAGES,
    FakeDiscord,
    FakeDiscordError,
    Guild,
    Member,
    TextChannel,
)
from fakediscord.driver import ComponentRefused
from fakediscord.validate import ApiError, check_message

# --- the bot under test -----------------------------------------------------------------------


class CounterView(discord.ui.View):
    """A public button that counts clicks and remembers who clicked."""

    def __init__(self, bot: DemoMixin) -> None:
        super().__init__(timeout=None)
        self.bot = bot
        self.count = 0

    @discord.ui.button(label="Count", style=discord.ButtonStyle.primary, custom_id="count")
    async def count_button(
        self, interaction: discord.Interaction, button: discord.ui.Button
    ) -> None:
        self.count += 1
        self.bot.clicks.append(interaction.user.id)
        await interaction.response.edit_message(content=f"count: {self.count}")


class HandView(discord.ui.View):
    """An ephemeral per-player view: a Play button and a colour select."""

    def __init__(self, bot: DemoMixin, owner: discord.abc.User) -> None:
        super().__init__(timeout=60)
        self.bot = bot
        self.owner_id = owner.id

    @discord.ui.button(label="Play", style=discord.ButtonStyle.success, custom_id="play")
    async def play(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        self.bot.plays.append((self.owner_id, interaction.user.id))
        button.disabled = True
        await interaction.response.edit_message(
            content=f"{interaction.user.name} played", view=self
        )

    @discord.ui.button(label="Poke", custom_id="poke")
    async def poke(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        assert interaction.message is not None
        try:  # the channel route cannot edit an ephemeral message
            await interaction.message.edit(content="poked")
        except discord.HTTPException as exc:
            self.bot.codes.append(exc.code)
        await interaction.response.defer()  # type 6: @original is now the clicked message
        await interaction.edit_original_response(content="poked via token")

    @discord.ui.select(
        custom_id="colour",
        options=[discord.SelectOption(label=c.title(), value=c) for c in ("red", "blue", "green")],
    )
    async def colour(self, interaction: discord.Interaction, select: discord.ui.Select) -> None:
        await interaction.response.edit_message(content=f"picked {','.join(select.values)}")


class NameModal(discord.ui.Modal, title="Your name"):
    name: discord.ui.TextInput = discord.ui.TextInput(label="Name", custom_id="name")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"hello {self.name.value}")


class Demo(app_commands.Group):
    """/demo ... commands exercising every kind of answer."""

    def __init__(self, bot: DemoMixin) -> None:
        super().__init__(name="demo", description="demo commands")
        self.bot = bot

    @app_commands.command(description="Echo some text with a counter button")
    async def echo(self, interaction: discord.Interaction, text: str, times: int = 1) -> None:
        await interaction.response.send_message(text * times, view=CounterView(self.bot))

    @app_commands.command(description="Greet someone")
    async def greet(self, interaction: discord.Interaction, who: discord.Member) -> None:
        perms = interaction.permissions
        await interaction.response.send_message(
            f"hi {who.name} from {interaction.user.name} ({interaction.locale.value}, "
            f"guild {interaction.guild_locale.value if interaction.guild_locale else None}, "
            f"manage={perms.manage_messages}, bot_send={interaction.app_permissions.send_messages})"
        )

    @app_commands.command(description="Your private hand")
    async def hand(self, interaction: discord.Interaction) -> None:
        embed = discord.Embed(title="Your hand", description="1 2 3", color=0x2ECC71)
        embed.add_field(name="Cards", value="3").set_footer(text="lama")
        await interaction.response.send_message(
            embed=embed, view=HandView(self.bot, interaction.user), ephemeral=True
        )

    @app_commands.command(description="Defer, then edit")
    async def slow(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await interaction.edit_original_response(content="done thinking")

    @app_commands.command(description="Defer publicly, then answer privately")
    async def private(self, interaction: discord.Interaction, withdraw: bool) -> None:
        await interaction.response.defer(thinking=True)
        if withdraw:  # the public placeholder goes first: the followup is a message of its own
            await interaction.delete_original_response()
        await interaction.followup.send("for you alone", ephemeral=True)
        self.bot.done.set()

    @app_commands.command(description="Followups")
    async def follow(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("first")
        second = await interaction.followup.send("second", wait=True)
        await second.edit(content="second edited")
        third = await interaction.followup.send("third", ephemeral=True, wait=True)
        await third.delete()
        self.bot.done.set()

    @app_commands.command(description="Too big")
    async def big(self, interaction: discord.Interaction) -> None:
        try:
            await interaction.response.send_message("x" * 2001)
        except discord.HTTPException as exc:
            self.bot.codes.append(exc.code)
            await interaction.response.send_message("too big")

    @app_commands.command(description="Answer late")
    async def late(self, interaction: discord.Interaction) -> None:
        await asyncio.sleep(self.bot.late_delay)  # the slow bot under test, not synchronisation
        try:
            await interaction.response.send_message("finally")
        except discord.HTTPException as exc:
            self.bot.codes.append(exc.code)
        self.bot.done.set()

    @app_commands.command(description="Answer when the test says so")
    async def gated(self, interaction: discord.Interaction) -> None:
        self.bot.entered.set()
        await self.bot.gate.wait()
        try:
            await interaction.response.send_message("at last")
        except discord.HTTPException as exc:
            self.bot.codes.append(exc.code)
        self.bot.done.set()

    @app_commands.command(description="Answer twice")
    async def twice(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("one")
        try:  # a second, independent responder for the same interaction
            await discord.InteractionResponse(interaction).send_message("two")
        except discord.HTTPException as exc:
            self.bot.codes.append(exc.code)
        self.bot.done.set()

    @app_commands.command(description="Keep the interaction for later")
    async def keep(self, interaction: discord.Interaction) -> None:
        self.bot.kept = interaction  # (before the answer: the user's command returns on it)
        await interaction.response.send_message("kept")

    @app_commands.command(description="Post in the channel")
    async def announce(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("ok", ephemeral=True)
        assert isinstance(interaction.channel, discord.TextChannel)
        try:
            await interaction.channel.send("announcement")
        except discord.HTTPException as exc:
            self.bot.codes.append(exc.code)
        self.bot.done.set()

    @app_commands.command(description="Pick a variant")
    async def variant(self, interaction: discord.Interaction, name: str) -> None:
        await interaction.response.send_message(f"variant {name}")

    @variant.autocomplete("name")
    async def variant_names(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        names = ("classic", "kadabra", "dice")
        return [app_commands.Choice(name=n, value=n) for n in names if n.startswith(current)]

    @app_commands.command(description="Channel message lifecycle")
    async def cycle(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("cycling", ephemeral=True)
        assert isinstance(interaction.channel, discord.TextChannel)
        channel = interaction.channel
        upload = discord.File(io.BytesIO(b"lama"), "hand.txt")
        first = await channel.send(f"hello {interaction.user.mention}", file=upload)
        await first.edit(content="edited")
        fetched = await channel.fetch_message(first.id)
        self.bot.fetched.append(fetched.content)
        second = await channel.send("bye")
        await second.delete()
        self.bot.done.set()

    @app_commands.command(description="Options with bounds")
    async def bounded(
        self,
        interaction: discord.Interaction,
        target: app_commands.Range[int, 1, 500],
        word: app_commands.Range[str, 2, 5] = "ab",
    ) -> None:
        await interaction.response.send_message(f"{target} {word}")

    @app_commands.command(description="Ask for a name")
    async def ask(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(NameModal())


class DemoMixin:
    """The demo bot's state; mixed into commands.Bot and commands.AutoShardedBot."""

    tree: app_commands.CommandTree

    def __init__(self, **kwargs: Any) -> None:
        intents = discord.Intents.default()
        intents.members = True  # privileged: member_count must match the members sent
        super().__init__(  # type: ignore[call-arg]
            command_prefix="!", intents=intents, guild_ready_timeout=0.05, **kwargs
        )
        self.clicks: list[int] = []
        self.plays: list[tuple[int, int]] = []
        self.codes: list[int] = []
        self.done = asyncio.Event()
        self.late_delay = 0.0
        self.kept: discord.Interaction | None = None
        self.channel_deletes: list[int] = []
        self.guild_events: list[tuple[str, int]] = []
        self.guild_event = asyncio.Event()
        self.resumed = asyncio.Event()
        self.entered = asyncio.Event()
        self.deleted = asyncio.Event()
        self.fetched: list[str] = []
        self.mentions: list[list[int]] = []
        self.gate = asyncio.Event()
        self.tree.add_command(Demo(self))

    async def setup_hook(self) -> None:
        await self.tree.sync()

    async def on_message(self, message: discord.Message) -> None:
        self.mentions.append([u.id for u in message.mentions])

    async def on_raw_message_delete(self, payload: discord.RawMessageDeleteEvent) -> None:
        self.deleted.set()

    async def on_resumed(self) -> None:
        self.resumed.set()

    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        self.channel_deletes.append(channel.id)

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        self.guild_events.append(("remove", guild.id))
        self.guild_event.set()

    async def on_guild_join(self, guild: discord.Guild) -> None:
        self.guild_events.append(("join", guild.id))
        self.guild_event.set()


class DemoBot(DemoMixin, commands.Bot):
    pass


class ShardedDemoBot(DemoMixin, commands.AutoShardedBot):
    pass


class GuildSyncBot(DemoBot):
    """Syncs its commands to one guild instead of globally."""

    def __init__(self, guild_id: int) -> None:
        self.guild_id = guild_id
        super().__init__()

    async def setup_hook(self) -> None:
        guild = discord.Object(self.guild_id)
        self.tree.copy_global_to(guild=guild)
        await self.tree.sync(guild=guild)


# --- fixtures ---------------------------------------------------------------------------------


class World:
    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.guild: Guild = fake.add_guild("Lama Club", locale="de")
        self.table: TextChannel = self.guild.add_text_channel("lama")
        self.ana: Member = self.guild.add_member("ana", locale="en-US")
        self.ben: Member = self.guild.add_member("ben", locale="fr")
        self.mod: Member = self.guild.add_member("mo", permissions=MANAGE_MESSAGES)


@pytest.fixture
async def world(request: pytest.FixtureRequest) -> AsyncIterator[World]:
    timeout = getattr(request, "param", 3.0)
    async with FakeDiscord(interaction_timeout=timeout) as fake:
        yield World(fake)


@pytest.fixture
async def bot(world: World) -> AsyncIterator[DemoBot]:
    demo = DemoBot()
    async with world.fake.run(demo):
        yield demo


async def wait(event: asyncio.Event) -> None:
    await asyncio.wait_for(event.wait(), 5)


# --- tests ------------------------------------------------------------------------------------


async def test_login_ready_and_sync(world: World, bot: DemoBot) -> None:
    fake = world.fake
    assert bot.user is not None and bot.user.id == fake.bot_user.id
    assert [g.id for g in bot.guilds] == [world.guild.id]
    dguild = bot.guilds[0]
    assert dguild.member_count == len(dguild.members) == 4  # 3 humans + the bot
    assert dguild.me is not None and dguild.get_channel(world.table.id) is not None
    assert [c["name"] for c in fake.global_commands] == ["demo"]
    subs = {o["name"] for o in fake.global_commands[0]["options"]}
    assert {"echo", "hand", "slow", "follow"} <= subs
    assert fake.gateway.identifies == 1 and fake.command_syncs == 1
    assert fake.api_url == discord.http.Route.BASE


async def test_slash_with_options_and_public_button(world: World, bot: DemoBot) -> None:
    reply = await world.ana.slash(world.table, "demo echo", text="la", times=3)
    assert reply.type == 4 and not reply.ephemeral
    msg = reply.message
    assert msg is not None and msg.content == "lalala"
    assert [b.label for b in msg.buttons] == ["Count"]
    assert world.table.messages == [msg]
    clicked = await world.ben.click(msg, "Count")
    assert clicked.type == 7 and clicked.message is msg
    await world.ana.click(msg, "count")
    assert msg.content == "count: 2"
    assert bot.clicks == [world.ben.id, world.ana.id]


async def test_a_click_on_a_component_not_on_the_message_is_refused(
    world: World, bot: DemoBot
) -> None:
    """Discord creates a component interaction only for a component of the clicked message:
    a forged custom_id gets 400 50035 COMPONENT_VALIDATION_FAILED and never reaches the bot;
    the same request with the message's own custom_id is delivered."""
    msg = (await world.ana.slash(world.table, "demo echo", text="la")).message
    assert msg is not None
    before = len(world.fake.interactions)
    for custom_id, kind in (("forged", 2), ("count", 3), ("lama:v2:act:1:1:quit", 2)):
        with pytest.raises(ComponentRefused) as refused:
            await world.fake.driver.component(world.ben, msg, custom_id, kind)
        error = refused.value.error
        assert (error.status, error.code) == (400, 50035)
        assert error.errors == {"data": {"_errors": [
            {"code": "COMPONENT_VALIDATION_FAILED", "message": "Component validation failed"}]}}
    assert len(world.fake.interactions) == before and bot.clicks == []
    fixed = await world.fake.driver.component(world.ben, msg, "count", 2)
    assert fixed.type == 7 and msg.content == "count: 1" and bot.clicks == [world.ben.id]


@pytest.mark.parametrize("world", [0.4], indirect=True)
async def test_the_component_check_can_be_turned_off(world: World, bot: DemoBot) -> None:
    """``fake.check_components = False``: a forged click reaches the bot, as it would from a
    Discord that let it through (for the bot's own check)."""
    hand = (await world.ana.slash(world.table, "demo hand")).message
    assert hand is not None
    world.fake.check_components = False
    before = len(world.fake.interactions)
    with pytest.raises(FakeDiscordError, match="did not answer"):  # nothing there answers it
        await world.fake.driver.component(world.ana, hand, "count")
    assert len(world.fake.interactions) == before + 1 and bot.clicks == []
    world.fake.failures.clear()


async def test_user_option_locale_and_permissions(world: World, bot: DemoBot) -> None:
    reply = await world.mod.slash(world.table, "demo greet", who=world.ben)
    assert reply.message is not None
    assert reply.message.content == ("hi ben from mo (en-US, guild de, manage=True, bot_send=True)")
    reply = await world.ben.slash(world.table, "demo greet", who=world.ana)
    assert reply.message is not None and "(fr, guild de, manage=False" in reply.message.content
    with pytest.raises(FakeDiscordError, match="required"):
        await world.ana.slash(world.table, "demo greet")


async def test_ephemeral_views_clicked_at_once(world: World, bot: DemoBot) -> None:
    a = await world.ana.slash(world.table, "demo hand")
    b = await world.ben.slash(world.table, "demo hand")
    assert a.ephemeral and b.ephemeral and a.message is not None and b.message is not None
    assert world.table.messages == []
    assert world.ana.ephemerals == [a.message] and world.ben.ephemerals == [b.message]
    embed = a.message.embeds[0]
    assert (embed.title, embed.footer, embed.color) == ("Your hand", "lama", 0x2ECC71)
    assert embed.fields[0].name == "Cards" and "Your hand" in a.message.text
    with pytest.raises(FakeDiscordError, match="cannot see"):
        await world.ben.click(a.message, "Play")
    await asyncio.gather(world.ana.click(a.message, "Play"), world.ben.click(b.message, "Play"))
    assert sorted(bot.plays) == sorted([(world.ana.id, world.ana.id), (world.ben.id, world.ben.id)])
    assert a.message.content == "ana played" and b.message.content == "ben played"
    assert a.message.button("Play").disabled
    with pytest.raises(FakeDiscordError, match="disabled"):
        await world.ana.click(a.message, "Play")
    picked = await world.ana.select(a.message, "Blue")
    assert picked.message is a.message and a.message.content == "picked blue"


async def test_defer_then_edit(world: World, bot: DemoBot) -> None:
    reply = await world.ana.slash(world.table, "demo slow")
    assert reply.type == 5
    msg = await reply.wait_edit()
    assert msg.content == "done thinking" and not msg.loading
    assert world.table.messages == [msg]


async def test_a_public_deferral_is_filled_by_its_first_followup_whatever_its_flags(
    world: World, bot: DemoBot
) -> None:
    """As Discord does: an ephemeral followup to a public "thinking…" shows publicly; once the
    placeholder is deleted, an ephemeral followup is a new message its user alone sees."""
    reply = await world.ana.slash(world.table, "demo private", withdraw=False)
    await wait(bot.done)
    shown = await reply.followup(0)
    assert shown is reply.message and not shown.ephemeral and shown.content == "for you alone"
    assert world.table.messages == [shown]
    bot.done.clear()
    reply = await world.ben.slash(world.table, "demo private", withdraw=True)
    await wait(bot.done)
    private = await reply.followup(0)
    assert private.ephemeral and reply.message is not None and reply.message.deleted
    assert world.ben.ephemerals == [private] and world.table.messages == [shown]


async def test_followups_send_edit_delete(world: World, bot: DemoBot) -> None:
    reply = await world.ana.slash(world.table, "demo follow")
    await wait(bot.done)
    second = await reply.followup(0)
    third = await reply.followup(1)
    assert second.content == "second edited" and second.edited_timestamp is not None
    assert third.ephemeral and third.deleted
    assert [m.content for m in world.table.messages] == ["first", "second edited"]
    assert world.ana.ephemerals == []
    assert reply.message is not None and reply.message.content == "first"


async def test_oversized_message_refused(world: World, bot: DemoBot) -> None:
    reply = await world.ana.slash(world.table, "demo big")
    assert reply.message is not None and reply.message.content == "too big"
    assert bot.codes == [50035]
    assert [(r.status, r.code) for r in world.fake.refusals] == [(400, 50035)]
    assert "content" in str(world.fake.refusals[0].errors)


@pytest.mark.parametrize("world", [0.4], indirect=True)
async def test_late_answer_fails(world: World, bot: DemoBot) -> None:
    bot.late_delay = 0.6
    with pytest.raises(FakeDiscordError, match=r"did not answer within 0\.4s"):
        await world.ana.slash(world.table, "demo late")
    await wait(bot.done)
    assert bot.codes == [10062]
    assert len(world.fake.failures) == 1 and world.fake.failures[0].user == "ana"
    assert world.table.messages == []


@pytest.mark.slow  # waits over 3 s of real time
async def test_three_second_rule_in_real_time(world: World, bot: DemoBot) -> None:
    assert world.fake.interaction_timeout == 3.0
    bot.late_delay = 3.15  # a bot that really is too slow
    with pytest.raises(FakeDiscordError, match="This interaction failed"):
        await world.ana.slash(world.table, "demo late")
    await wait(bot.done)
    assert bot.codes == [10062] and len(world.fake.failures) == 1


async def test_three_second_rule_on_the_fake_clock(world: World, bot: DemoBot) -> None:
    pending = asyncio.create_task(world.ana.slash(world.table, "demo gated"))
    await wait(bot.entered)
    world.fake.clock.advance(3.5)
    bot.gate.set()
    with pytest.raises(FakeDiscordError, match="This interaction failed"):
        await pending
    await wait(bot.done)
    assert bot.codes == [10062]


async def test_answer_stamped_from_frame_sent_to_callback_reached(
    world: World, bot: DemoBot
) -> None:
    """The load benchmark's answer time: the gateway frame written to the bot, then the bot's
    callback reaching the fake (its own work before and after is outside)."""
    pending = asyncio.create_task(world.ana.slash(world.table, "demo gated"))
    await wait(bot.entered)
    inter = next(iter(world.fake.interactions.values()))
    assert inter.sent is not None and inter.answered is None, "sent, not yet answered"
    world.fake.clock.advance(1.5)  # the bot takes 1.5 s (on the fake's clock)
    bot.gate.set()
    reply = await pending
    assert reply.type == 4 and reply.interaction is inter
    assert inter.answered is not None and 1.5 <= inter.answered - inter.sent < 3.0


@pytest.mark.parametrize("world", [0.4], indirect=True)
async def test_delayed_callback_is_too_late(world: World, bot: DemoBot) -> None:
    fault = world.fake.delay("POST", "/interactions/*/callback", 0.6, times=1)
    with pytest.raises(FakeDiscordError):
        await world.ana.slash(world.table, "demo late")
    await wait(bot.done)
    assert fault.hits == 1 and bot.codes == [10062]


async def test_ephemeral_edit_needs_the_token(world: World, bot: DemoBot) -> None:
    hand = await world.ana.slash(world.table, "demo hand")
    assert hand.message is not None
    poke = await world.ana.click(hand.message, "Poke")
    assert poke.type == 6 and poke.message is hand.message
    msg = await poke.wait_edit()
    assert msg.content == "poked via token" and msg.ephemeral
    assert bot.codes == [10008]
    assert world.ana.ephemerals == [hand.message]


async def test_answered_twice(world: World, bot: DemoBot) -> None:
    await world.ana.slash(world.table, "demo twice")
    await wait(bot.done)
    assert bot.codes == [40060]
    assert [m.content for m in world.table.messages] == ["one"]


async def test_token_expires_after_15_minutes(world: World, bot: DemoBot) -> None:
    await world.ana.slash(world.table, "demo keep")
    assert bot.kept is not None
    await bot.kept.edit_original_response(content="still fresh")
    world.fake.clock.advance(15 * 60 + 1)
    with pytest.raises(discord.HTTPException) as caught:
        await bot.kept.edit_original_response(content="too old")
    assert caught.value.code == 50027 and caught.value.status == 401
    assert world.table.messages[0].content == "still fresh"
    reply = await world.ana.slash(world.table, "demo echo", text="new")  # new tokens still work
    assert reply.message is not None and reply.message.content == "new"


async def test_gateway_drop_and_resume(world: World, bot: DemoBot) -> None:
    await world.fake.drop_gateway()
    await wait(bot.resumed)
    assert world.fake.gateway.resumes == 1 and world.fake.gateway.identifies == 1
    reply = await world.ana.slash(world.table, "demo echo", text="back")
    assert reply.message is not None and reply.message.content == "back"


async def test_rate_limit_honoured(world: World, bot: DemoBot) -> None:
    fault = world.fake.rate_limit("POST", "/channels/*/messages", retry_after=0.1)
    await world.ana.slash(world.table, "demo announce")
    await wait(bot.done)
    assert fault.hits == 1 and bot.codes == []
    assert [m.content for m in world.table.messages] == ["announcement"]


async def test_server_error_retried(world: World, bot: DemoBot) -> None:
    fault = world.fake.fail("POST", "/channels/*/messages", status=500, times=1)
    await world.ana.slash(world.table, "demo announce")
    await wait(bot.done)  # discord.py sleeps 1 s, then retries
    assert fault.hits == 1 and bot.codes == []
    assert [m.content for m in world.table.messages] == ["announcement"]


async def test_resume_replays_missed_events(world: World, bot: DemoBot) -> None:
    await world.fake.drop_gateway(wait=False)
    reply = await world.ana.slash(world.table, "demo echo", text="missed")
    assert reply.message is not None and reply.message.content == "missed"
    assert world.fake.gateway.resumes == 1 and world.fake.gateway.identifies == 1
    assert world.fake.gateway.replayed >= 1  # the INTERACTION_CREATE sent while away


async def test_members_chunk_and_fetch(world: World, bot: DemoBot) -> None:
    dguild = bot.guilds[0]
    members = await dguild.chunk()
    assert sorted(m.name for m in members) == ["LamaBot", "ana", "ben", "mo"]
    found = await dguild.query_members("b")
    assert [m.id for m in found] == [world.ben.id]
    fetched = await dguild.fetch_member(world.mod.id)
    assert fetched.guild_permissions.manage_messages
    channel = await bot.fetch_channel(world.table.id)
    assert channel.name == "lama"


async def test_fake_bugs_fail_the_run(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    demo = DemoBot()

    def broken(self: Guild) -> dict[str, Any]:
        raise RuntimeError("boom")

    with pytest.raises(FakeDiscordError, match="boom"):
        async with world.fake.run(demo):
            monkeypatch.setattr(Guild, "payload", broken)
            with pytest.raises(discord.HTTPException) as caught:
                await demo.fetch_guild(world.guild.id)
            assert caught.value.status == 400 and caught.value.code == 0
            with pytest.raises(discord.NotFound):
                await demo.http.request(discord.http.Route("GET", "/voice/regions"))
    assert any("unimplemented route GET /voice/regions" in e for e in world.fake.errors)
    assert discord.http.Route.BASE == "https://discord.com/api/v10"


async def test_missing_permission_and_deleted_channel(world: World, bot: DemoBot) -> None:
    await world.table.set_permissions(world.guild.me, deny=SEND_MESSAGES)
    await world.ana.slash(world.table, "demo announce")
    await wait(bot.done)
    assert bot.codes == [50013]
    await world.table.delete()
    partial = bot.get_partial_messageable(world.table.id)
    with pytest.raises(discord.NotFound) as caught:
        await partial.send("anyone?")
    assert caught.value.code == 10003
    assert bot.channel_deletes == [world.table.id]


async def test_the_bot_removed_from_a_guild_then_added_back(
        world: World, bot: DemoBot) -> None:
    await world.guild.remove_bot()
    await wait(bot.guild_event)
    assert bot.guild_events == [("remove", world.guild.id)] and list(bot.guilds) == []
    with pytest.raises(discord.Forbidden) as caught:  # the bot cannot reach it any more
        await bot.get_partial_messageable(world.table.id).send("anyone?")
    assert caught.value.code == 50001
    with pytest.raises(FakeDiscordError, match="not in"):  # nor can members use its commands
        await world.ana.slash(world.table, "demo echo", text="gone")
    bot.guild_event.clear()
    await world.guild.add_bot()
    await wait(bot.guild_event)
    assert bot.guild_events == [("remove", world.guild.id), ("join", world.guild.id)]
    assert [g.id for g in bot.guilds] == [world.guild.id]
    reply = await world.ana.slash(world.table, "demo echo", text="back")
    assert reply.message is not None and reply.message.content == "back"


async def test_channel_message_lifecycle(world: World, bot: DemoBot) -> None:
    await world.ana.slash(world.table, "demo cycle")
    await wait(bot.done)
    assert bot.fetched == ["edited"]
    [msg] = world.table.messages
    assert msg.content == "edited" and msg.edits == 1
    assert msg.attachments[0]["filename"] == "hand.txt" and msg.attachments[0]["size"] == 4
    assert [m.content for m in world.fake.messages.values() if m.deleted] == ["bye"]
    await wait(bot.deleted)  # MESSAGE_DELETE reached the bot, after the MESSAGE_CREATEs
    assert bot.mentions[0] == [world.ana.id]


async def test_autocomplete(world: World, bot: DemoBot) -> None:
    choices = await world.ana.autocomplete(world.table, "demo variant", "name", "k")
    assert choices == [{"name": "kadabra", "value": "kadabra"}]
    reply = await world.ana.slash(world.table, "demo variant", name="dice")
    assert reply.message is not None and reply.message.content == "variant dice"


async def test_guild_command_sync(world: World) -> None:
    demo = GuildSyncBot(world.guild.id)
    async with world.fake.run(demo):
        assert world.fake.global_commands == []
        assert [c["name"] for c in world.fake.guild_commands[world.guild.id]] == ["demo"]
        fetched = await demo.tree.fetch_commands(guild=discord.Object(world.guild.id))
        assert [c.name for c in fetched] == ["demo"] and fetched[0].guild_id == world.guild.id
        reply = await world.ben.slash(world.table, "demo echo", text="guild")
        assert reply.message is not None and reply.message.content == "guild"


@pytest.mark.parametrize(
    ("options", "refused"),
    [
        ({"target": 999}, "above the maximum 500"),
        ({"target": 0}, "below the minimum 1"),
        ({"target": 5, "word": "a"}, "shorter than 2"),
        ({"target": 5, "word": "abcdef"}, "longer than 5"),
        ({"target": 500, "word": "abcde"}, None),
    ],
)
async def test_option_bounds_honoured(
    world: World, bot: DemoBot, options: dict[str, Any], refused: str | None
) -> None:
    """The Discord client never sends a value outside an option's min/max."""
    if refused is not None:
        with pytest.raises(FakeDiscordError, match=refused):
            await world.ana.slash(world.table, "demo bounded", **options)
        assert not world.fake.interactions
        return
    reply = await world.ana.slash(world.table, "demo bounded", **options)
    assert reply.message is not None and reply.message.content == "500 abcde"


async def test_modal_submit(world: World, bot: DemoBot) -> None:
    reply = await world.ana.slash(world.table, "demo ask")
    assert reply.type == 9 and reply.modal is not None and reply.message is None
    answer = await world.ana.submit(reply, name="Ana")
    assert answer.message is not None and answer.message.content == "hello Ana"


@pytest.mark.parametrize("shard_count", [1, None])
async def test_auto_sharded_bot(world: World, shard_count: int | None) -> None:
    demo = ShardedDemoBot(shard_count=shard_count)
    async with world.fake.run(demo):
        assert demo.shard_count == 1
        reply = await world.ana.slash(world.table, "demo echo", text="sharded")
        assert reply.message is not None and reply.message.content == "sharded"
        await world.fake.drop_gateway()
        await wait(demo.resumed)
        reply = await world.ana.slash(world.table, "demo echo", text="again")
        assert reply.message is not None and reply.message.content == "again"
    assert world.fake.gateway.resumes == 1
    gateway_bot = [e for e in world.fake.entries if e.get("path") == "/gateway/bot"]
    assert bool(gateway_bot) == (shard_count is None)


async def test_wait_for_public_message(world: World, bot: DemoBot) -> None:
    waiter = asyncio.create_task(world.table.wait_for_message(lambda m: m.content == "count: 1"))
    reply = await world.ana.slash(world.table, "demo echo", text="x")
    assert reply.message is not None
    await world.ben.click(reply.message, "Count")
    assert await waiter is reply.message


async def test_transcript(world: World, bot: DemoBot, tmp_path: Path) -> None:
    reply = await world.ana.slash(world.table, "demo hand")
    assert reply.message is not None
    await world.ana.click(reply.message, "Play")
    paths = world.fake.write_transcript(tmp_path)
    lines = [json.loads(x) for x in paths[0].read_text().splitlines()]
    assert any(e["kind"] == "action" and e.get("click") == "Play" for e in lines)
    html = paths[1].read_text()
    assert "ana played" in html and "Your hand" in html
    await world.ana.slash(world.table, "demo echo",
                          text=f"### <script>x()</script> **<b>** <@{world.ben.id}>")
    page = world.fake.write_transcript(tmp_path)[1].read_text()
    assert ("<div class='h3'>&lt;script&gt;x()&lt;/script&gt; <b>&lt;b&gt;</b> "
            "<span class='mention'>@ben</span></div>" in page), "a heading, its text escaped"
    assert "<script>" not in page


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"content": "x" * 2001}, 50035),
        ({"content": ""}, 50006),
        ({"embeds": [{"title": "t" * 257}]}, 50035),
        ({"embeds": [{"description": "d" * 4097}]}, 50035),
        ({"embeds": [{"fields": [{"name": "n", "value": "v"}] * 26}]}, 50035),
        ({"embeds": [{"fields": [{"name": "n", "value": "v" * 1025}]}]}, 50035),
        ({"embeds": [{"footer": {"text": "f" * 2049}}]}, 50035),
        ({"embeds": [{"description": "d" * 4000}, {"description": "d" * 2001}]}, 50035),
        ({"embeds": [{"title": "t"}] * 11}, 50035),
    ],
)
def test_message_limits(body: dict[str, Any], code: int) -> None:
    with pytest.raises(ApiError) as caught:
        check_message(body, create=True)
    assert caught.value.code == code and caught.value.status == 400


def _button(cid: str, label: str = "b") -> dict[str, Any]:
    return {"type": 2, "style": 1, "custom_id": cid, "label": label}


def _select(cid: str, n: int) -> dict[str, Any]:
    options = [{"label": str(i), "value": str(i)} for i in range(n)]
    return {"type": 3, "custom_id": cid, "options": options}


@pytest.mark.parametrize(
    "rows",
    [
        [{"type": 1, "components": [_button(f"b{i}")]} for i in range(6)],
        [{"type": 1, "components": [_button(f"b{i}") for i in range(6)]}],
        [{"type": 1, "components": [_select("s", 3), _button("b")]}],
        [{"type": 1, "components": [_select("s", 26)]}],
        [{"type": 1, "components": [_button("same"), _button("same")]}],
        [{"type": 1, "components": [_button("x" * 101)]}],
        [{"type": 1, "components": [_button("")]}],
        [{"type": 1, "components": [_button("b", "l" * 81)]}],
    ],
)
def test_component_limits(rows: list[dict[str, Any]]) -> None:
    with pytest.raises(ApiError) as caught:
        check_message({"content": "c", "components": rows}, create=True)
    assert caught.value.code == 50035
    buttons = {"type": 1, "components": [_button(f"b{i}") for i in range(5)]}
    select = {"type": 1, "components": [_select("s", 25)]}
    check_message({"content": "c", "components": [buttons, select]}, create=True)
