"""What the bot answered to one user action, as a test reads it (``Member.click`` etc.)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .interactions import Interaction
from .messages import Message


class InteractionResult:
    """What the bot answered to one user action."""

    def __init__(self, interaction: Interaction) -> None:
        self.interaction = interaction

    @property
    def type(self) -> int | None:
        """The callback type (4 message, 5 deferred, 6 deferred update, 7 update, 9 modal)."""
        return self.interaction.response_type

    @property
    def message(self) -> Message | None:
        """The message the user sees as the answer (current state); None for a modal."""
        return self.interaction.original

    @property
    def ephemeral(self) -> bool:
        msg = self.interaction.original
        return bool(msg is not None and msg.ephemeral)

    @property
    def followups(self) -> list[Message]:
        return list(self.interaction.followups)

    @property
    def modal(self) -> dict[str, Any] | None:
        """The modal the bot opened (type 9), as sent."""
        return self.interaction.modal

    @property
    def choices(self) -> list[dict[str, Any]] | None:
        """Autocomplete choices (type 8)."""
        return self.interaction.choices

    async def wait_edit(self, count: int = 1, timeout: float = 5.0) -> Message:
        """Wait until @original was edited `count` times (e.g. after a defer); return it."""
        inter = self.interaction

        def check() -> Message | None:
            if inter.original is not None and inter.original_edits >= count:
                return inter.original
            return None

        return await inter.fake.notifier.wait_for(check, timeout, "an edit of @original")

    async def followup(self, index: int = 0, timeout: float = 5.0) -> Message:
        """Wait for the followup number `index` (0 = first) and return it."""
        inter = self.interaction

        def check() -> Message | None:
            return inter.followups[index] if len(inter.followups) > index else None

        return await inter.fake.notifier.wait_for(check, timeout, f"followup #{index}")

    async def wait_for(self, predicate: Callable[[Message], bool], timeout: float = 5.0) -> Message:
        """Wait until the answer message satisfies `predicate`."""
        inter = self.interaction

        def check() -> Message | None:
            msg = inter.original
            return msg if msg is not None and predicate(msg) else None

        return await inter.fake.notifier.wait_for(check, timeout, "the answer to match")

    def __repr__(self) -> str:
        return f"<InteractionResult type={self.type} message={self.message!r}>"
