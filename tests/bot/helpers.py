"""Driving whole games through the fake Discord, as the players would."""

from __future__ import annotations

import contextlib
import os
import random
import re
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fakediscord import FakeDiscord, InteractionResult, Member, Message, TextChannel
from fakediscord.messages import EmbedField
from game import ActionType, Game, PlayerView, player_view

MENTION = re.compile(r"<@(\d+)>, it is your turn")
WAIT = 30.0
"""A net for what the bot is to show next, never a pause: a wait ends as soon as it is shown
(at a load average of 14-20 on two cores, 10 s missed a table's change in a whole game)."""
KILLED_CLICK = 3.0
"""Discord's own 3 s, for tests whose bot is killed (or whose answer is made to fail)
mid-click: the fake gives such a click up after it, as Discord does, instead of after the
suite's longer allowance for a slow machine (tests/conftest.py)."""


def screenshots(tmp_path: Path) -> Path:
    """Where a test's screenshots go: ``$LAMA_SCREENSHOTS`` (the README's and the docs'
    come from ``LAMA_SCREENSHOTS=docs/screenshots``), else the test's temporary folder."""
    folder = Path(os.environ.get("LAMA_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@dataclass
class Card:
    """What a message shows, read the same whether it was posted as an embed (before the
    upgrade) or as Components V2 (cogs/layout.py: a turn line, then one container with the
    title and body, a text display per section, the picture, the footer, the buttons)."""

    title: str | None = None
    description: str | None = None
    fields: list[EmbedField] = field(default_factory=list)
    footer: str | None = None
    image: str | None = None  # attachment://name
    content: str | None = None
    v2: bool = False


def card(message: Message) -> Card:
    """``message`` as a :class:`Card` (tests read this, never the layout itself)."""
    if message.embed_dicts:
        data: dict[str, Any] = message.embed_dicts[0]
        embed = message.embeds[0]
        return Card(embed.title, embed.description, embed.fields, embed.footer,
                    (data.get("image") or {}).get("url"), message.content or None)
    found = Card(v2=True)
    for top in message.component_dicts:
        if top.get("type") == 10:
            found.content = top["content"] if found.content is None else (
                f"{found.content}\n{top['content']}")
        if top.get("type") != 17:
            continue
        texts = []
        for item in top.get("components", []):
            if item.get("type") == 12:
                found.image = item["items"][0]["media"]["url"]
            elif item.get("type") == 10:
                texts.append(item["content"])
        if texts and texts[-1].startswith("-# "):  # (escaped, line by line: cogs/layout.py)
            found.footer = re.sub(r"\\(.)", r"\1", texts.pop().replace("\n-# ", "\n")[3:])
        if texts:
            head, *sections = texts
            if head.startswith("### "):
                found.title, _, rest = head[4:].partition("\n")
                found.description = rest or None
            else:
                found.description = head
            for section in sections:
                name, _, value = section.partition("\n")
                found.fields.append(EmbedField(name.removeprefix("**").removesuffix("**"),
                                               value, False))
        break
    return found


def is_table(message: Message) -> bool:
    return any(b.custom_id.startswith("lama:v2:hand:") for b in message.buttons)


def is_final(message: Message) -> bool:
    return any(b.custom_id.startswith("lama:v2:rematch:") for b in message.buttons)


def action_buttons(message: Message) -> list[str]:
    """The buttons that play: actions, and Quit (which asks first: its confirmation's
    first button quits)."""
    return [b.custom_id for b in message.buttons if b.custom_id.startswith("lama:v2:act:")
            or (b.custom_id.startswith("lama:v2:ask:") and b.custom_id.endswith(":quit"))]


async def click_and_confirm(member: Member, hand: Message, label: str) -> Message:
    """Click ``label`` on a hand; a Quit asks first: confirm it. The hand as it is left."""
    hand = await settled(await member.click(hand, label))
    if any(b.label == "Yes, quit" for b in hand.buttons):
        hand = await settled(await member.click(hand, "Yes, quit"))
    return hand


@dataclass
class Turn:
    table: Message | None
    stamp: tuple[int, int]
    user_id: int | None
    final: Message | None = None


def current(channel: TextChannel) -> Turn | None:
    """The table's current state as the channel shows it (or the final standings)."""
    messages = channel.messages
    final = next((m for m in reversed(messages) if is_final(m)), None)
    if final is not None:
        return Turn(None, (final.id, final.edits), None, final)
    table = next((m for m in reversed(messages) if is_table(m)), None)
    if table is None:
        return None
    match = MENTION.search(table.text)
    return Turn(table, (table.id, table.edits), int(match[1]) if match else None)


async def first_table(fake: FakeDiscord, channel: TextChannel) -> Message:
    """The game's table once it is there: usually the Start click's answer (already made when
    the click returns), else the channel's post (a late or refused answer, a game in a
    thread). Looked for among the channel's messages, not only new ones."""
    return await fake.notifier.wait_for(
        lambda: next((m for m in reversed(channel.messages) if is_table(m)), None), WAIT,
        "the table")


async def lobby_closed(fake: FakeDiscord, lobby: Message) -> Message:
    """The lobby once the start shows on it (its buttons gone): the Start click answers with
    the table, and the lobby is edited through /lama start's token just after."""
    return await fake.notifier.wait_for(lambda: lobby if not lobby.buttons else None, WAIT,
                                        "the lobby to close")


async def settled(result: InteractionResult) -> Message:
    """The clicked message as the click left it: edited in the answer (type 7), or edited
    after a deferral (type 6), which a save slower than cogs.timely.DEFER_AFTER causes on a
    busy machine. Tests wait for either, so they do not depend on the machine's speed."""
    assert result.type in (6, 7), f"a click is answered by editing its message: {result}"
    if result.type == 6:
        return await result.wait_edit(timeout=WAIT)
    assert result.message is not None
    return result.message


async def answered(result: InteractionResult) -> Message:
    """What a slash command answered, once it is there: its message (type 4), or, when the
    bot deferred it (type 5: a ``/lama start`` slower than cogs.timely.DEFER_AFTER, as on a
    busy machine), the answer that followed, which is the "thinking" placeholder filled (a
    lobby) or a refusal sent ephemerally once the placeholder was withdrawn (cogs.replies).
    Read a command's answer through this, never ``result.message`` at once: after a deferral
    that is the placeholder, without text or buttons (or gone)."""
    if result.type == 5:
        return await result.followup(0, timeout=WAIT)
    assert result.message is not None, f"a slash command is answered with a message: {result}"
    return result.message


def offers(hand: Message) -> Callable[[], bool | None]:
    """A condition: ``hand`` offers moves (its owner's turn has come)."""
    return lambda: True if action_buttons(hand) or hand.selects else None


Chooser = Callable[[Member, Message], tuple[str, str | None]]


def first_button(member: Member, hand: Message) -> tuple[str, str | None]:
    """Pick the first action: a select's first option if any, else the first button."""
    if hand.selects:
        select = hand.selects[0]
        return select.custom_id, select.options[0].value
    return action_buttons(hand)[0], None


async def play_out(
    fake: FakeDiscord,
    channel: TextChannel,
    members: dict[int, Member],
    choose: Chooser = first_button,
    max_steps: int = 3000,
    keep_open: bool = False,
    hands: dict[int, Message] | None = None,
) -> Message:
    """Humans open My hand when it is their turn and click until the game ends; returns the
    standings. ``keep_open``: a player keeps the hand message they opened and waits for it to
    offer their moves (the bot edits it when their turn comes) instead of pressing My hand;
    ``hands``: those already open (user id -> hand), kept up to date."""
    seen: list[tuple[int, int]] = []
    hands = hands if hands is not None else {}

    def changed() -> Turn | None:
        turn = current(channel)
        return turn if turn is not None and (not seen or turn.stamp != seen[-1]) else None

    for _ in range(max_steps):
        turn = await fake.notifier.wait_for(changed, WAIT, "the table to change")
        if turn.final is not None:
            return turn.final
        seen.append(turn.stamp)
        if turn.user_id is None or turn.table is None:
            continue  # an AI is thinking: wait for the next state
        member = members[turn.user_id]
        hand = hands.get(member.id)
        if hand is not None:
            ready = offers(hand)
            await fake.notifier.wait_for(
                lambda ready=ready: True if ready() or changed() else None, WAIT,
                f"{member.name}'s open hand to offer their moves",
            )
            if not ready():
                continue  # the table moved on (e.g. the game ended): look again
        else:
            reply = await member.click(turn.table, "My hand")
            hand = reply.message
            assert hand is not None and hand.ephemeral
            if keep_open:
                hands[member.id] = hand
        while action_buttons(hand) or hand.selects:
            custom_id, value = choose(member, hand)
            if value is None:
                result = await member.click(hand, custom_id)
            else:
                result = await member.select(hand, value, custom_id=custom_id)
            hand = await settled(result)
            if keep_open:
                hands[member.id] = hand
    raise AssertionError("the game did not end")


@contextlib.contextmanager
def another_process_writing(path: str | Path) -> Iterator[sqlite3.Connection]:
    """Another process's write transaction on the SQLite file at ``path``, holding its write
    lock for the block (committed at its end, rolled back on an error): a store write meanwhile
    finds the file busy and waits on SQLite's thread, not the event loop."""
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        yield other
        other.execute("COMMIT")
    except BaseException:
        other.execute("ROLLBACK")
        raise
    finally:
        other.close()


def kadabra_gift_turn(names: list[str], tries: int) -> tuple[Game, PlayerView]:
    """A seeded Kadabra game played at random until a 1 (with its give-a-chip menu) is
    playable: the game and the view of the seat to act."""
    game = Game("kadabra", names, {"target": 40}, seed=3)
    chooser = random.Random(5)
    for _ in range(tries):
        seat = game.to_act
        assert seat is not None
        view = player_view(game, seat)
        if any(a.type is ActionType.PLAY and a.give_to is not None for a in view.legal):
            return game, view
        game.apply(seat, chooser.choice(view.legal))
    raise AssertionError("no Kadabra 1 was ever playable")
