"""What the page is sent: a message's images only from the bot's own uploads, kept locally."""

from __future__ import annotations

from bot.sandbox.page import imghdr_type, meta
from bot.sandbox.world import SandboxError, World
from fakediscord import FakeDiscord
from tests.fake.test_dms import call

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 16


async def test_embed_images_come_only_from_the_messages_own_files() -> None:
    async with FakeDiscord() as fake:
        fake.keep_files = True
        world = World(fake)
        fake.files[5] = PNG
        body = {
            "content": "hand",
            "attachments": [
                {"id": "5", "filename": "hand.png", "url": "https://cdn.fake.invalid/a/5/hand.png"},
                {"id": "6", "filename": "gone.png", "url": "https://cdn.fake.invalid/a/6/gone.png"},
            ],
            "embeds": [{"title": "t", "image": {"url": "attachment://hand.png"},
                        "thumbnail": {"url": "https://tracker.example/pixel.png"}}],
        }
        msg = fake.new_message(world.channel, body, author=fake.bot_user)
        seen = world.message_json(msg)
    assert seen["attachments"] == []  # hand.png is the embed's picture: not shown twice
    assert seen["embeds"][0]["image"] == "/attachments/5"
    assert seen["embeds"][0]["thumbnail"] is None  # nothing is loaded from elsewhere


def upload(aid: int, name: str) -> dict[str, object]:
    """An attachment as the fake stores an upload."""
    url = f"https://cdn.fake.invalid/a/{aid}/{name}"
    return {"id": str(aid), "filename": name, "url": url, "proxy_url": url, "size": 8,
            "content_type": "application/octet-stream"}


V2_HAND = {
    "flags": 1 << 15,
    "attachments": [
        upload(5, "hand.png"), upload(7, "unused.png"), upload(8, "record.json"),
    ],
    "components": [{
        "type": 17, "accent_color": 0xF0B232, "components": [
            {"type": 10, "content": "## Your hand <t:1700000000:R>"},
            {"type": 9, "components": [{"type": 10, "content": "ana"}],
             "accessory": {"type": 11, "media": {"url": "attachment://hand.png"},
                           "description": "3 cards"}},
            {"type": 12, "items": [{"media": {"url": "https://cdn.fake.invalid/a/5/hand.png"}},
                                   {"media": {"url": "https://tracker.example/pixel.png"}}]},
            {"type": 14, "divider": False, "spacing": 2},
            {"type": 13, "file": {"url": "attachment://record.json"}},
            {"type": 1, "components": [
                {"type": 2, "style": 1, "label": "Play 3", "custom_id": "lama:v2:act:g:1"},
                {"type": 2, "style": 5, "label": "Rules", "url": "https://example.com"},
            ]},
            {"type": 1, "components": [{"type": 3, "custom_id": "pick", "options": [
                {"label": "ben", "value": "1"}]}]},
            {"type": 99, "content": "a type the page does not know"},
        ],
    }],
}


async def test_a_v2_message_is_sent_as_its_tree_with_only_its_referenced_files() -> None:
    async with FakeDiscord() as fake:
        fake.keep_files = True
        world = World(fake)
        fake.files.update({5: PNG, 7: PNG, 8: b"{}"})
        msg = fake.new_message(world.channel, V2_HAND, author=fake.bot_user)
        seen = world.message_json(msg)
    assert seen["v2"] is True
    assert seen["attachments"] == [] and seen["embeds"] == [] and seen["rows"] == []
    [card] = seen["layout"]
    assert card["t"] == 17 and card["accent"] == 0xF0B232
    kinds = [c["t"] for c in card["children"]]
    assert kinds == [10, 9, 12, 14, 13, 1, 1]  # the unknown type is left out
    text, section, gallery, separator, file, buttons, menu = card["children"]
    assert text["text"] == "## Your hand <t:1700000000:R>"
    assert section["accessory"]["url"] == "/attachments/5"  # by attachment://name
    assert section["accessory"]["description"] == "3 cards"
    assert [i["url"] for i in gallery["items"]] == ["/attachments/5", None]  # by its own URL
    assert separator == {"t": 14, "divider": False, "spacing": 2}
    assert (file["name"], file["file"], file["url"]) == ("record.json", "/attachments/8", None)
    assert [b["label"] for b in buttons["items"]] == ["Play 3", "Rules"]
    assert buttons["items"][1]["link"] is True
    assert menu["items"][0]["kind"] == "select"
    assert "unused" not in str(seen)  # a file no component references is not shown


def test_a_file_is_an_image_by_its_bytes_not_its_name() -> None:
    assert imghdr_type(PNG) == "image/png"
    assert imghdr_type(b"<svg onload=alert(1)>") is None


async def test_a_thread_of_the_channel_is_a_channel_the_page_can_switch_to() -> None:
    """A game's thread shows as a channel of its own: listed, its messages sent (tagged with
    their channel), its messages clickable, slash commands sent to it; another channel's
    thread is none of the page's."""
    async with FakeDiscord() as fake:
        world = World(fake)
        thread = world.channel.create_thread("L.L.A.M.A. — ana, ben")
        other = world.guild.add_text_channel("other").create_thread("elsewhere")
        inside = fake.new_message(thread, {"content": "table"}, author=fake.bot_user)
        away = fake.new_message(other, {"content": "no"}, author=fake.bot_user)
        listed = world.snapshot()["channels"]
        assert [(c["name"], c["thread"]) for c in listed] == [
            ("lama", False), ("L.L.A.M.A. — ana, ben", True)]
        shown = {m["id"]: m["channel"] for m in world.snapshot()["messages"]}
        assert shown == {str(inside.id): str(thread.id)}
        assert world.message(inside.id) is inside
        assert world.channel_of(str(thread.id)) is thread
        assert world.channel_of(None) is world.channel
        for refused in (lambda: world.message(away.id), lambda: world.channel_of(other.id)):
            try:
                refused()
            except SandboxError:
                continue
            raise AssertionError("another channel's thread is not the page's")


async def test_a_members_direct_messages_are_theirs_only_and_drawn_like_messages() -> None:
    """The bot's DMs (a relaxed game's opt-in DM, cogs/direct.py) reach the page by member:
    each member the page plays as has their own list, oldest first, in a message's shape;
    a DM Discord refused (50007) is nowhere."""
    async with FakeDiscord() as fake:
        world = World(fake)
        ana, ben, cleo = world.members
        fake.dms.refuse(cleo)
        sent = []
        for member, text in ((ana, "🔔 It is your turn"), (ben, "for ben"),
                             (ana, "🔔 again"), (cleo, "refused")):
            _, channel = await call(fake, "/users/@me/channels", {"recipient_id": member.id})
            status, data = await call(fake, f"/channels/{channel['id']}/messages",
                                      {"content": text})
            sent.append((member, status, data))
        assert [status for _, status, _ in sent] == [200, 200, 200, 403]
        dms = world.snapshot()["dms"]
        assert meta(world)["dms"] == dms, "the page is sent them again when one arrives"
    assert list(dms) == [str(m.id) for m in (ana, ben, cleo)]
    assert [d["content"] for d in dms[str(ana.id)]] == ["🔔 It is your turn", "🔔 again"]
    assert [d["content"] for d in dms[str(ben.id)]] == ["for ben"]
    assert dms[str(cleo.id)] == [], "refused: never delivered"
    first = dms[str(ana.id)][0]
    assert first["id"] == sent[0][2]["id"] and first["channel"] == "dm" and first["bot"]
    assert first["to"] is None and first["rows"] == [] and first["attachments"] == []
    assert not first["v2"] and first["author"] == fake.bot_user.name
