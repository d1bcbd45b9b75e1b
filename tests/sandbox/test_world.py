"""What the page is sent: a message's images only from the bot's own uploads, kept locally."""

from __future__ import annotations

from bot.sandbox.page import imghdr_type
from bot.sandbox.world import SandboxError, World
from fakediscord import FakeDiscord

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
    assert seen["attachments"] == [{"filename": "hand.png", "url": "/attachments/5",
                                    "image": True}]
    assert seen["embeds"][0]["image"] == "/attachments/5"
    assert seen["embeds"][0]["thumbnail"] is None  # nothing is loaded from elsewhere


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
