"""Raw HTTP against the fake Discord: Discord's exact answer (status, body, headers)."""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import pytest

from fakediscord import FakeDiscord, Guild, Member, TextChannel
from fakediscord.interactions import Interaction
from fakediscord.messages import Message
from fakediscord.threads import Thread


@dataclass
class Answer:
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def code(self) -> int | None:
        return self.body.get("code") if isinstance(self.body, dict) else None


class Env:
    """A fake with a guild, a channel, a bot message, threads and open interactions."""

    def __init__(self, fake: FakeDiscord, session: aiohttp.ClientSession) -> None:
        self.fake = fake
        self.session = session
        self.guild: Guild = fake.add_guild("Lama Club")
        self.table: TextChannel = self.guild.add_text_channel("lama")
        self.ana: Member = self.guild.add_member("ana")
        self.message: Message = self.bot_message(self.table, "hello")
        self.thread = self.thread_in(archived=False, locked=False)
        self.archived = self.thread_in(archived=True, locked=False)
        self.locked = self.thread_in(archived=True, locked=True)

    def bot_message(self, channel: TextChannel, content: str) -> Message:
        return self.fake.new_message(channel, {"content": content}, author=self.fake.bot_user)

    def thread_in(self, *, archived: bool, locked: bool) -> Thread:
        thread = self.table.create_thread(f"t{len(self.guild.threads)}")
        assert isinstance(thread, Thread)
        thread.archived, thread.locked = archived, locked
        return thread

    def interaction(self, kind: int = 2) -> Interaction:
        token = secrets.token_urlsafe(16)
        data = {"id": "1", "name": "lama", "type": 1, "options": []} if kind in (2, 4) else {}
        inter = Interaction(self.fake, kind, self.ana, self.table, data, None, token)
        self.fake.interactions[inter.id] = inter
        self.fake.tokens[token] = inter
        return inter

    def fill(self, path: str) -> str:
        """Replace {app}, {guild}, {channel}, {message}, {thread}, {archived}, {locked},
        {callback} (a new slash interaction's callback path), {autocomplete} and {followup}."""
        values = {
            "app": self.fake.application_id,
            "guild": self.guild.id,
            "channel": self.table.id,
            "message": self.message.id,
            "thread": self.thread.id,
            "archived": self.archived.id,
            "locked": self.locked.id,
        }
        if "{callback}" in path:
            inter = self.interaction(2)
            values["callback"] = f"interactions/{inter.id}/{inter.token}/callback"
        if "{followup}" in path:
            inter = self.interaction(2)
            inter.response_type = 5  # deferred: followups are open
            values["followup"] = f"webhooks/{self.fake.application_id}/{inter.token}"
        if "{autocomplete}" in path:
            inter = self.interaction(4)
            values["autocomplete"] = f"interactions/{inter.id}/{inter.token}/callback"
        return path.format(**values)

    async def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        token: str | None = None,
        data: aiohttp.FormData | None = None,
    ) -> Answer:
        headers = {"Authorization": f"Bot {token or self.fake.token}"}
        kwargs: dict[str, Any] = {"headers": headers}
        if data is not None:
            kwargs["data"] = data
        elif body is not None:
            kwargs["data"] = json.dumps(body)
            headers["Content-Type"] = "application/json"
        url = self.fake.api_url + self.fill(path)
        async with self.session.request(method, url, **kwargs) as response:
            text = await response.text()
            try:
                parsed: Any = json.loads(text) if text else None
            except ValueError:
                parsed = text
            return Answer(response.status, parsed, dict(response.headers))


@pytest.fixture
async def env(request: pytest.FixtureRequest) -> AsyncIterator[Env]:
    pacing = getattr(request, "param", None)
    async with FakeDiscord(pacing=pacing) as fake, aiohttp.ClientSession() as session:
        yield Env(fake, session)
