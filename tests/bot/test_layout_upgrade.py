"""Messages posted before the upgrade to Components V2 (embeds, their buttons in action rows)
keep working until replaced: their buttons route, and the table turns into its V2 layout in
place at its next edit (content and embeds cleared in that same edit: cogs/layout.py)."""

from __future__ import annotations

from typing import Any

from cogs.common import public_tr
from cogs.hand_view import hand_message
from cogs.render import table_message
from fakediscord import Message
from fakediscord.messages import IS_COMPONENTS_V2
from tests.bot.conftest import World
from tests.bot.helpers import WAIT, action_buttons, answered, card, current, settled


def old_kwargs(payload: Any) -> dict[str, Any]:
    """A message as the bot sent it before the upgrade: content, an embed, action rows."""
    return {"content": payload.content, "embed": payload.embed, "view": payload.view}


async def started(world: World) -> Message:
    """ana and ben at a classic table; the table as posted (V2)."""
    lobby = await answered(await world.ana.slash(world.table, "lama start", variant="classic",
                                                 target=300))
    assert lobby is not None
    await world.ben.click(lobby, "Join")
    await world.ana.click(lobby, "Start")
    turn = await world.fake.notifier.wait_for(
        lambda: t if (t := current(world.table)) and t.user_id else None, WAIT, "a turn")
    assert turn.table is not None
    return turn.table


async def test_a_table_posted_as_an_embed_routes_then_turns_v2_at_its_next_edit(
    world: World,
) -> None:
    table = await started(world)
    assert table.v2 and not table.embeds and not table.content, "a new table is V2"
    session = world.bot.sessions.get(world.table.id)
    assert session is not None
    users = [s.user_id for s in session.seats]
    before = table_message(public_tr(session), session.view(None), session.short_id, users,
                           session.recent)
    channel = world.bot.get_partial_messageable(world.table.id, guild_id=world.guild.id)
    sent = await channel.send(**old_kwargs(before))  # the table of the bot before the upgrade
    old = world.fake.messages[sent.id]
    assert old.embeds and not old.v2 and "it is your turn" in old.content
    session.table_message_id = old.id  # it is the table now, as after a restart
    turn = current(world.table)
    assert turn is not None and turn.user_id is not None
    player = world.ana if turn.user_id == world.ana.id else world.ben

    hand = (await player.click(old, "My hand")).message  # its button routes
    assert hand is not None and hand.ephemeral and hand.v2
    assert (card(hand).title or "").endswith(", your hand")
    edits = old.edits
    await settled(await player.click(hand, action_buttons(hand)[0]))
    await world.fake.notifier.wait_for(lambda: old.edits > edits or None, WAIT,
                                       "the old table's edit")
    assert old.id == session.table_message_id, "edited in place, not posted again"
    assert old.flags & IS_COMPONENTS_V2 and not old.embeds and not old.content
    assert (card(old).title or "").endswith(": round 1") and "My hand" in [
        b.label for b in old.buttons]
    assert "Last moves" in [f.name for f in card(old).fields], "the move it shows"


async def test_a_hand_posted_as_an_embed_routes_and_its_answer_is_v2(world: World) -> None:
    table = await started(world)
    session = world.bot.sessions.get(world.table.id)
    assert session is not None
    turn = current(world.table)
    assert turn is not None and turn.user_id is not None
    player = world.ana if turn.user_id == world.ana.id else world.ben
    hand = (await player.click(table, "My hand")).message
    assert hand is not None and hand.v2
    seat = session.require_seat(player.id)
    before = hand_message(public_tr(session), session.view(seat), session.short_id,
                          session.version)
    hand.apply({"content": "", "embeds": [before.embed.to_dict()] if before.embed else [],
                "components": before.view.to_components() if before.view else [], "flags": 0})
    hand.flags &= ~IS_COMPONENTS_V2  # (as an ephemeral hand made before the upgrade is)
    assert hand.embeds and not hand.v2 and action_buttons(hand)
    answered = await settled(await player.click(hand, action_buttons(hand)[0]))
    assert answered.v2 and not answered.embeds, "answered in the V2 layout"
    assert (card(answered).title or "").endswith(", your hand")
