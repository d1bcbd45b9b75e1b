"""The driver: users run slash commands, click buttons, pick options, submit modals (the
options they pass: options.py; what the bot answered: result.py)."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from .base import (
    ADMINISTRATOR,
    SEND_MESSAGES,
    USE_APPLICATION_COMMANDS,
    VIEW_CHANNEL,
    FakeDiscordError,
    WaitTimeout,
)
from .interactions import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    Interaction,
)
from .messages import Message, Select, walk_components
from .model import Member, TextChannel
from .options import (
    OPTION_CHANNEL,
    OPTION_MENTIONABLE,
    OPTION_ROLE,
    OPTION_USER,
    command_options,
    option_value,
    show,
)
from .result import InteractionResult as InteractionResult
from .validate import INVALID_FORM_BODY, ApiError

if TYPE_CHECKING:
    from .state import State

class ComponentRefused(FakeDiscordError):
    """Discord refused the user's click itself (no interaction reached the bot): ``error``
    is its answer to the client, 400 50035 ``COMPONENT_VALIDATION_FAILED``."""

    def __init__(self, error: ApiError) -> None:
        super().__init__(str(error))
        self.error = error


COMPONENT_VALIDATION_FAILED = "COMPONENT_VALIDATION_FAILED"


class Driver:
    """Builds INTERACTION_CREATE payloads the way the Discord client would."""

    def __init__(self, fake: State) -> None:
        self.fake = fake

    # --- slash commands -----------------------------------------------------------------------
    async def slash(
        self,
        member: Member,
        channel: TextChannel,
        command: str,
        options: dict[str, Any],
        focused: str | None = None,
    ) -> InteractionResult:
        """Run a chat command; with `focused`, send the autocomplete request for that option."""
        self._can_use(member, channel)
        names = command.split()
        cmd = self._find_command(member, channel, names[0])
        resolved: dict[str, dict[str, Any]] = {}
        defs: list[dict[str, Any]] = cmd.get("options") or []
        nested: list[dict[str, Any]] = []
        top = nested
        for name in names[1:]:
            sub = next((o for o in defs if o["name"] == name and o["type"] in (1, 2)), None)
            if sub is None:
                raise FakeDiscordError(f"/{command}: no subcommand {name!r}")
            node: dict[str, Any] = {"type": sub["type"], "name": name, "options": []}
            nested.append(node)
            nested, defs = node["options"], sub.get("options") or []
        if any(o["type"] in (1, 2) for o in defs):
            raise FakeDiscordError(f"/{command} needs a subcommand")
        nested.extend(command_options(command, defs, options, resolved, focused))
        data: dict[str, Any] = {"id": cmd["id"], "name": cmd["name"], "type": 1, "options": top}
        if cmd.get("guild_id"):
            data["guild_id"] = cmd["guild_id"]
        if resolved:
            data["resolved"] = resolved
        action = {"slash": command, "options": {k: show(v) for k, v in options.items()}}
        if focused is not None:
            action["autocomplete"] = focused
            return await self._interact(member, channel, AUTOCOMPLETE, data, None, action)
        return await self._interact(member, channel, APPLICATION_COMMAND, data, None, action)

    def _find_command(self, member: Member, channel: TextChannel, name: str) -> dict[str, Any]:
        guild = channel.guild
        for cmd in self.fake.guild_commands.get(guild.id, []) + self.fake.global_commands:
            if cmd["name"] == name and cmd.get("type", 1) == 1:
                needed = cmd.get("default_member_permissions")
                perms = member.permissions_in(channel)
                if (
                    needed is not None
                    and not perms & ADMINISTRATOR
                    and (int(needed) == 0 or int(needed) & perms != int(needed))
                ):
                    raise FakeDiscordError(f"{member.name} may not use /{name} (permissions)")
                return cmd
        raise FakeDiscordError(f"no slash command /{name} registered (did the bot sync?)")

    # --- components ---------------------------------------------------------------------------
    def _check_visible(self, member: Member, message: Message) -> None:
        if message.deleted or message.channel.deleted:
            raise FakeDiscordError(f"{message!r} was deleted")
        if message.ephemeral_to is not None and message.ephemeral_to is not member:
            raise FakeDiscordError(
                f"{member.name} cannot see {message.ephemeral_to.name}'s ephemeral {message!r}"
            )
        if not member.permissions_in(message.channel) & VIEW_CHANNEL:
            raise FakeDiscordError(f"{member.name} cannot see #{message.channel.name}")
        if message.loading:
            raise FakeDiscordError(f"{message!r} is still 'thinking'")

    async def click(self, member: Member, message: Message, button: str) -> InteractionResult:
        self._check_visible(member, message)
        matches = [b for b in message.buttons if button == b.custom_id]
        matches = matches or [b for b in message.buttons if button == b.label]
        if not matches:
            raise FakeDiscordError(
                f"no button {button!r} on {message!r}; buttons: "
                f"{[(b.label, b.custom_id) for b in message.buttons]}"
            )
        if len(matches) > 1:
            raise FakeDiscordError(
                f"several buttons labelled {button!r}; use a custom_id: "
                f"{[b.custom_id for b in matches]}"
            )
        found = matches[0]
        if found.disabled:
            raise FakeDiscordError(f"button {button!r} is disabled")
        if found.custom_id is None:
            raise FakeDiscordError(f"button {button!r} is a link/premium button")
        data = {"custom_id": found.custom_id, "component_type": 2}
        action = {"click": found.label or found.custom_id, "message": str(message.id)}
        return await self._interact(
            member, message.channel, MESSAGE_COMPONENT, data, message, action
        )

    async def component(
        self, member: Member, message: Message, custom_id: str, component_type: int = 2,
        values: list[str] | None = None,
    ) -> InteractionResult:
        """A component interaction as a modified client sends it: any ``custom_id`` (and, for
        a select, any ``values``), on a message the member sees. Discord refuses it unless the
        message has that component (:meth:`_check_component`)."""
        self._check_visible(member, message)
        data: dict[str, Any] = {"custom_id": custom_id, "component_type": component_type}
        if values is not None:
            data["values"] = list(values)
        action = {"forged": custom_id, "message": str(message.id)}
        return await self._interact(
            member, message.channel, MESSAGE_COMPONENT, data, message, action
        )

    def _check_component(self, message: Message, data: dict[str, Any]) -> None:
        """Discord creates a component interaction only for a component of the clicked
        message (same custom_id, same type); else it answers the client 400 50035."""
        if any(c.get("custom_id") == data.get("custom_id")
               and c.get("type") == data.get("component_type")
               for c in walk_components(message.component_dicts)):
            return
        errors = {"data": {"_errors": [{"code": COMPONENT_VALIDATION_FAILED,
                                        "message": "Component validation failed"}]}}
        error = ApiError(400, INVALID_FORM_BODY, "Invalid Form Body", errors)
        self.fake.log("click-refused", {"message": str(message.id),
                                        "custom_id": str(data.get("custom_id")),
                                        "code": error.code})
        raise ComponentRefused(error)

    async def select(
        self, member: Member, message: Message, values: list[Any], custom_id: str | None
    ) -> InteractionResult:
        self._check_visible(member, message)
        selects = [s for s in message.selects if custom_id in (None, s.custom_id)]
        if custom_id is None and len(selects) > 1:
            selects = [
                s for s in selects if s.type != 3 or all(_option(s, v) is not None for v in values)
            ]
        if len(selects) != 1:
            raise FakeDiscordError(
                f"cannot tell which select on {message!r} (custom_id=?): "
                f"{[s.custom_id for s in message.selects]}"
            )
        sel = selects[0]
        if sel.disabled:
            raise FakeDiscordError(f"select {sel.custom_id!r} is disabled")
        if not sel.min_values <= len(values) <= sel.max_values:
            raise FakeDiscordError(
                f"select {sel.custom_id!r} takes {sel.min_values}.."
                f"{sel.max_values} values, got {len(values)}"
            )
        data: dict[str, Any] = {"custom_id": sel.custom_id, "component_type": sel.type}
        if sel.type == 3:
            picked = []
            for v in values:
                opt = _option(sel, v)
                if opt is None:
                    raise FakeDiscordError(
                        f"select {sel.custom_id!r} has no option {v!r}: "
                        f"{[o.label for o in sel.options]}"
                    )
                picked.append(opt)
            data["values"] = picked
        else:
            resolved: dict[str, dict[str, Any]] = {}
            kind = {5: OPTION_USER, 6: OPTION_ROLE, 7: OPTION_MENTIONABLE, 8: OPTION_CHANNEL}
            d = {"type": kind[sel.type], "name": sel.custom_id}
            data["values"] = [option_value("select", d, v, resolved) for v in values]
            data["resolved"] = resolved
        action = {
            "select": [show(v) for v in values],
            "custom_id": sel.custom_id,
            "message": str(message.id),
        }
        return await self._interact(
            member, message.channel, MESSAGE_COMPONENT, data, message, action
        )

    async def submit_modal(
        self, member: Member, result: InteractionResult, values: dict[str, str]
    ) -> InteractionResult:
        origin = result.interaction
        modal = origin.modal
        if modal is None or origin.member is not member:
            raise FakeDiscordError(f"{member.name} has no open modal from {result!r}")
        rows: list[dict[str, Any]] = []
        seen: set[str] = set()
        for comp in modal.get("components", []):
            inputs = [c for c in walk_components([comp]) if c.get("type") == 4]
            answered = []
            for text_input in inputs:
                cid = text_input["custom_id"]
                seen.add(cid)
                value = str(values.get(cid, text_input.get("value") or ""))
                if text_input.get("required", True) and not value:
                    raise FakeDiscordError(f"modal field {cid!r} is required")
                answered.append({"type": 4, "custom_id": cid, "value": value})
            if comp.get("type") == 1:
                rows.append({"type": 1, "components": answered})
            elif comp.get("type") == 18 and answered:
                rows.append({"type": 18, "component": answered[0]})
        if set(values) - seen:
            raise FakeDiscordError(f"modal has no field(s) {sorted(set(values) - seen)}")
        data = {"custom_id": modal["custom_id"], "components": rows}
        action = {"submit": modal["custom_id"], "values": values}
        return await self._interact(
            member, origin.channel, MODAL_SUBMIT, data, origin.clicked, action
        )

    # --- plain messages -----------------------------------------------------------------------
    async def say(self, member: Member, channel: TextChannel, content: str) -> Message:
        if channel.deleted or not member.permissions_in(channel) & SEND_MESSAGES:
            raise FakeDiscordError(f"{member.name} cannot post in #{channel.name}")
        msg = self.fake.new_message(channel, {"content": content}, author=member.user)
        self.fake.log("action", {"user": member.name, "say": content, "channel": channel.name})
        self.fake.publish_create(msg)
        await self.fake.gateway.flush()
        return msg

    # --- common -------------------------------------------------------------------------------
    def _can_use(self, member: Member, channel: TextChannel) -> None:
        if channel.deleted:
            raise FakeDiscordError(f"#{channel.name} was deleted")
        perms = member.permissions_in(channel)
        if not perms & VIEW_CHANNEL or not perms & USE_APPLICATION_COMMANDS:
            raise FakeDiscordError(f"{member.name} cannot use commands in #{channel.name}")

    def build_payload(self, inter: Interaction) -> dict[str, Any]:
        """The INTERACTION_CREATE body the Discord client would cause."""
        member, channel = inter.member, inter.channel
        guild = channel.guild
        perms = member.permissions_in(channel)
        data: dict[str, Any] = {
            "id": str(inter.id),
            "application_id": str(self.fake.application_id),
            "type": inter.type,
            "data": inter.data,
            "guild_id": str(guild.id),
            "guild": {"id": str(guild.id), "locale": guild.preferred_locale, "features": []},
            "channel_id": str(channel.id),
            "channel": {**channel.payload(), "permissions": str(perms)},
            "member": {**member.payload(), "permissions": str(perms)},
            "token": inter.token,
            "version": 1,
            "app_permissions": str(guild.me.permissions_in(channel)),
            "locale": member.locale,
            "guild_locale": guild.preferred_locale,
            "entitlements": [],
            "authorizing_integration_owners": {"0": str(guild.id)},
            "context": 0,
            "attachment_size_limit": inter.attachment_size_limit,
        }
        if inter.clicked is not None:
            data["message"] = inter.clicked.payload()
        return data

    async def _interact(
        self,
        member: Member,
        channel: TextChannel,
        kind: int,
        data: dict[str, Any],
        clicked: Message | None,
        action: dict[str, Any],
    ) -> InteractionResult:
        fake = self.fake
        if not channel.guild.bot_in:
            raise FakeDiscordError(f"the bot is not in {channel.guild.name}: its commands and "
                                   "buttons are gone there")
        if kind == MESSAGE_COMPONENT and clicked is not None and fake.check_components:
            self._check_component(clicked, data)
        token = f"aW50ZXJhY3Rpb24{secrets.token_urlsafe(48)}"
        inter = Interaction(fake, kind, member, channel, data, clicked, token)
        fake.interactions[inter.id] = inter
        fake.tokens[token] = inter
        fake.log(
            "action",
            {"user": member.name, "channel": channel.name, "interaction": str(inter.id), **action},
        )
        fake.gateway.dispatch_nowait(
            "INTERACTION_CREATE", self.build_payload(inter), channel.guild.id
        )
        timeout = fake.interaction_timeout

        def answered() -> bool | None:
            if inter.response_type is not None:
                return True
            if inter.failed:  # e.g. answered after the test advanced the fake clock
                raise FakeDiscordError(f"{member.name}: {action}: {fake.failures[-1].reason}")
            return None

        try:
            await fake.notifier.wait_for(answered, timeout, "the answer")
        except WaitTimeout:
            inter.fail(f"This interaction failed (no answer within {timeout}s)")
            why = "".join(
                f"\n  refused: {e.status} {e.code} {e.message} {e.errors or ''}"
                for e in inter.refusals
            )
            raise FakeDiscordError(
                f"{member.name}: {action}: the bot did not answer within {timeout}s "
                f"(This interaction failed){why}"
            ) from None
        return InteractionResult(inter)


def _option(sel: Select, value: Any) -> str | None:
    for opt in sel.options:
        if value in (opt.value, opt.label):
            return opt.value
    return None
