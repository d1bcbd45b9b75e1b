"""Components V2 through the fake with a real discord.py bot: LayoutView messages are
accepted, stored and echoed (REST answers, gateway events, interaction answers, followups,
ephemerals), and clicks on buttons and selects nested in containers and sections route."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from fakediscord import FakeDiscord, Guild, Member, TextChannel
from fakediscord.driver import ComponentRefused
from fakediscord.messages import IS_COMPONENTS_V2, walk_components
from fakediscord.transcript import render_message


def files() -> list[discord.File]:
    return [
        discord.File(io.BytesIO(b"\x89PNG table"), "table.png"),
        discord.File(io.BytesIO(b"\x89PNG face"), "face.png"),
        discord.File(io.BytesIO(b"rules"), "rules.txt"),
    ]


class Card(discord.ui.LayoutView):
    """A table card: a container with text, a section with a button, a section with a
    thumbnail, a gallery, a file, a separator, a row of buttons and a select."""

    def __init__(self, bot: V2Bot, text: str) -> None:
        super().__init__(timeout=None)
        self.bot = bot
        poke = discord.ui.Button(label="Poke", custom_id="v2:poke")
        poke.callback = self.poke  # type: ignore[method-assign]
        play = discord.ui.Button(
            label="Play", custom_id="v2:play", style=discord.ButtonStyle.success
        )
        play.callback = self.play  # type: ignore[method-assign]
        pick: discord.ui.Select[Card] = discord.ui.Select(
            custom_id="v2:pick",
            options=[discord.SelectOption(label=c, value=c) for c in ("red", "blue")],
        )
        pick.callback = self.pick  # type: ignore[method-assign]
        self.pick_select = pick
        self.add_item(
            discord.ui.Container(
                discord.ui.TextDisplay(f"## {text}"),
                discord.ui.Section(discord.ui.TextDisplay("ana: 3 cards"), accessory=poke),
                discord.ui.Section(
                    "ben: 2 cards",
                    accessory=discord.ui.Thumbnail("attachment://face.png", description="ben"),
                ),
                discord.ui.MediaGallery(discord.MediaGalleryItem("attachment://table.png")),
                discord.ui.File("attachment://rules.txt"),
                discord.ui.Separator(),
                discord.ui.ActionRow(play),
                discord.ui.ActionRow(pick),
                accent_colour=0x2ECC71,
            )
        )

    async def poke(self, interaction: discord.Interaction) -> None:
        self.bot.events.append("poke")
        await interaction.response.defer()
        await interaction.edit_original_response(view=Card(self.bot, "poked"))

    async def play(self, interaction: discord.Interaction) -> None:
        self.bot.events.append("play")
        await interaction.response.edit_message(view=Card(self.bot, "played"))

    async def pick(self, interaction: discord.Interaction) -> None:
        self.bot.events.append(f"pick {','.join(self.pick_select.values)}")
        await interaction.response.edit_message(view=Card(self.bot, "picked"))


class Plain(discord.ui.LayoutView):
    def __init__(self, text: str) -> None:
        super().__init__(timeout=None)
        self.add_item(discord.ui.Container(discord.ui.TextDisplay(text)))


class V2Commands(app_commands.Group):
    def __init__(self, bot: V2Bot) -> None:
        super().__init__(name="v2", description="Components V2")
        self.bot = bot

    @app_commands.command(description="Post a card in the channel")
    async def post(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(view=Plain("posting"), ephemeral=True)
        assert isinstance(interaction.channel, discord.TextChannel)
        sent = await interaction.channel.send(view=Card(self.bot, "table"), files=files())
        self.bot.sent.append(sent)
        self.bot.done.set()

    @app_commands.command(description="An ephemeral card with files")
    async def hand(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            view=Card(self.bot, "hand"), files=files(), ephemeral=True
        )

    @app_commands.command(description="Think, then answer with a card; then a followup")
    async def slow(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True, ephemeral=True)
        await interaction.edit_original_response(view=Card(self.bot, "slow"), attachments=files())
        await interaction.followup.send(view=Plain("followup"), ephemeral=True)
        self.bot.done.set()


class V2Bot(commands.Bot):
    def __init__(self) -> None:
        super().__init__(
            command_prefix="!", intents=discord.Intents.default(), guild_ready_timeout=0.05
        )
        self.events: list[str] = []
        self.sent: list[discord.Message] = []
        self.seen: list[discord.Message] = []
        self.done = asyncio.Event()
        self.tree.add_command(V2Commands(self))

    async def setup_hook(self) -> None:
        await self.tree.sync()

    async def on_message(self, message: discord.Message) -> None:
        self.seen.append(message)


class World:
    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.guild: Guild = fake.add_guild("Lama Club")
        self.table: TextChannel = self.guild.add_text_channel("lama")
        self.ana: Member = self.guild.add_member("ana")


@pytest.fixture
async def world() -> AsyncIterator[World]:
    async with FakeDiscord() as fake:
        yield World(fake)


@pytest.fixture
async def bot(world: World) -> AsyncIterator[V2Bot]:
    v2 = V2Bot()
    async with world.fake.run(v2):
        yield v2


def kinds(components: list[dict[str, Any]]) -> list[int]:
    return [c["type"] for c in walk_components(components)]


CARD_KINDS = [17, 10, 9, 10, 2, 9, 10, 11, 12, 13, 14, 1, 2, 1, 3]


async def test_a_layout_view_in_the_channel_is_stored_echoed_and_clickable(
    world: World, bot: V2Bot
) -> None:
    await world.ana.slash(world.table, "v2 post")
    await asyncio.wait_for(bot.done.wait(), 5)
    [msg] = world.table.messages
    assert msg.flags & IS_COMPONENTS_V2 and msg.content == "" and not msg.embed_dicts
    assert kinds(msg.component_dicts) == CARD_KINDS
    assert "## table" in msg.text and "ana: 3 cards" in msg.text
    assert [b.custom_id for b in msg.buttons] == ["v2:poke", "v2:play"]
    assert [a["filename"] for a in msg.attachments] == ["table.png", "face.png", "rules.txt"]
    assert msg.shown_attachments == msg.attachments  # each is referenced by a component
    ids = [c["id"] for c in walk_components(msg.component_dicts)]
    assert ids == list(range(1, len(CARD_KINDS) + 1)), "Discord numbers the components"
    gallery = next(c for c in walk_components(msg.component_dicts) if c["type"] == 12)
    table = msg.attachments[0]
    assert gallery["items"][0]["media"]["attachment_id"] == table["id"]
    assert gallery["items"][0]["media"]["url"] == "attachment://table.png"
    file = next(c for c in walk_components(msg.component_dicts) if c["type"] == 13)
    assert (file["name"], file["size"]) == ("rules.txt", len(b"rules"))
    page = render_message(msg)
    assert "rules.txt" in page and "class='section'" in page
    assert "<div class='h2'>table</div>" in page and "## table" not in page, "a heading"
    # the REST answer as discord.py read it
    [sent] = bot.sent
    assert sent.flags.components_v2 and len(sent.attachments) == 3
    container = sent.components[0]
    assert isinstance(container, discord.Container)
    assert container.accent_colour == discord.Colour(0x2ECC71)
    # the gateway's MESSAGE_CREATE as discord.py read it
    seen = next(m for m in bot.seen if m.id == msg.id)
    assert seen.flags.components_v2 and isinstance(seen.components[0], discord.Container)
    # clicks on a section's accessory, a button in a row in the container, a select there
    await world.ana.click(msg, "Play")
    assert "## played" in msg.text and msg.flags & IS_COMPONENTS_V2
    poked = await world.ana.click(msg, "v2:poke")
    assert poked.type == 6
    await poked.wait_edit(count=1, timeout=5)
    assert "## poked" in msg.text
    await world.ana.select(msg, "blue")
    assert "## picked" in msg.text
    assert bot.events == ["play", "poke", "pick blue"]
    with pytest.raises(ComponentRefused):  # a custom_id not on it, nested or not
        await world.fake.driver.component(world.ana, msg, "v2:nowhere")
    assert not world.fake.lint and not world.fake.refusals and not world.fake.errors


async def test_an_ephemeral_layout_view_with_files(world: World, bot: V2Bot) -> None:
    reply = await world.ana.slash(world.table, "v2 hand")
    msg = reply.message
    assert reply.ephemeral and msg is not None and msg.flags & IS_COMPONENTS_V2
    assert kinds(msg.component_dicts) == CARD_KINDS
    assert len(msg.attachments) == 3 and world.ana.ephemerals == [msg]
    await world.ana.click(msg, "Play")
    assert "## played" in msg.text
    assert not world.fake.lint and not world.fake.refusals and not world.fake.errors


async def test_a_deferred_answer_edited_into_a_layout_view_and_a_followup(
    world: World, bot: V2Bot
) -> None:
    reply = await world.ana.slash(world.table, "v2 slow")
    await asyncio.wait_for(bot.done.wait(), 5)
    original = reply.message
    assert original is not None and original.ephemeral and not original.loading
    assert original.flags & IS_COMPONENTS_V2 and kinds(original.component_dicts) == CARD_KINDS
    followup = await reply.followup(index=0, timeout=5)
    assert followup.flags & IS_COMPONENTS_V2 and followup.text == "followup"
    assert not world.fake.lint and not world.fake.refusals and not world.fake.errors
