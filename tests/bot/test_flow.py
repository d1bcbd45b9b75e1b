"""Around the games: command sync, rematch, AI-only tables, rules, stats, intents, selects."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot import create_bot
from bot.process.client import intents
from fakediscord import FakeDiscord, Member, Message
from tests.bot.conftest import World, make_settings
from tests.bot.helpers import action_buttons, answered, current, play_out


async def test_commands_sync_only_when_changed(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    async with FakeDiscord() as fake:
        fake.add_guild("Lama Club")
        async with fake.run(create_bot(settings)):
            assert fake.command_syncs == 1
            names = {c["name"] for c in fake.global_commands}
            assert names == {"lama"}
            subs = {o["name"] for o in fake.global_commands[0]["options"]}
            assert subs == {"start", "hand", "stop", "rules", "leaderboard", "stats", "leave",
                            "config", "privacy", "mydata", "forget-me", "notify", "games"}
        async with fake.run(create_bot(settings), sync=False):
            assert fake.command_syncs == 1, "same definition: no second sync"
        dev = make_settings(tmp_path, lama_dev_guild=fake.guilds[0].id)
        async with fake.run(create_bot(dev)):
            assert fake.command_syncs == 2
            assert fake.guild_commands[fake.guilds[0].id]


def test_no_privileged_intents() -> None:
    value = intents()
    assert not value.members and not value.presences and not value.message_content
    assert value.guilds


@pytest.mark.slow  # a whole game
async def test_a_game_against_ais_then_a_rematch(world: World) -> None:
    lobby = await answered(await world.ana.slash(world.table, "lama start", variant="classic",
                                                 target=8))
    assert lobby is not None
    await world.ana.click(lobby, "Add AI")
    await world.ana.click(lobby, "Add AI")
    await world.ana.click(lobby, "Start")
    final = await play_out(world.fake, world.table, world.members)
    assert "AI 1" in final.text and "AI 2" in final.text
    stranger = await world.ben.click(final, "Rematch")
    assert stranger.ephemeral and "Only a player" in stranger.message.text
    rematch = await world.ana.click(final, "Rematch")
    new_lobby = rematch.message
    assert new_lobby is not None and not rematch.ephemeral
    assert "ana" in new_lobby.text and "AI 1" not in new_lobby.text, "only ana is seated"
    refused = await world.ben.click(new_lobby, "Start")
    assert refused.ephemeral and "Only the host" in refused.message.text, "ana hosts the rematch"
    again = await world.ana.click(final, "Rematch")
    assert again.ephemeral and "already running" in again.message.text


def gift_first(member: Member, hand: Message) -> tuple[str, str | None]:
    for select in hand.selects:
        if ":gift" in select.custom_id:
            return select.custom_id, select.options[-1].value
    buttons = action_buttons(hand)
    plays = [b for b in buttons if ":play " in b]
    return (plays or buttons)[0], None


@pytest.mark.slow  # a whole game
async def test_kadabra_gift_select(world: World) -> None:
    lobby = await answered(await world.ana.slash(world.table, "lama start", variant="kadabra",
                                                 target=15))
    assert lobby is not None
    await world.ben.click(lobby, "Join")
    await world.ana.click(lobby, "Start")
    await play_out(world.fake, world.table, world.members, choose=gift_first)
    picks = [i for i in world.fake.interactions.values()
             if i.data and ":gift" in str(i.data.get("custom_id", ""))]
    assert picks, "a 1 was played through the recipient select"
    assert "gave" in "\n".join(e for e in map(str, world.fake.entries) if "gave" in e)


async def test_rules_and_stats(world: World) -> None:
    rules = await world.ben.slash(world.table, "lama rules", variant="dice")
    assert rules.ephemeral and "roll the 3 dice" in rules.message.text
    assert "`docs/rules.md` in the lama project" in rules.message.text
    stats = await world.ben.slash(world.table, "lama stats", user=world.ana)
    assert stats.ephemeral and "ana" in stats.message.text
    assert "No finished games" in stats.message.text
    assert current(world.table) is None
