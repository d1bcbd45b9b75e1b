"""Slash command options as the Discord client sends them: typed, checked against the
command's definition (choices, ranges, lengths), users, roles and channels resolved."""

from __future__ import annotations

from typing import Any

from .base import FakeDiscordError
from .commands_check import option_problem
from .model import Member, Role, TextChannel, User

OPTION_STRING, OPTION_INTEGER, OPTION_BOOLEAN, OPTION_USER = 3, 4, 5, 6
OPTION_CHANNEL, OPTION_ROLE, OPTION_MENTIONABLE, OPTION_NUMBER = 7, 8, 9, 10
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2


def command_options(
    command: str,
    defs: list[dict[str, Any]],
    given: dict[str, Any],
    resolved: dict[str, dict[str, Any]],
    focused: str | None = None,
) -> list[dict[str, Any]]:
    """The options of one (sub)command, from ``given`` (name -> value); ``focused``: the
    one being typed (an autocomplete request)."""
    by_name = {o["name"]: o for o in defs}
    if focused is not None and focused not in by_name:
        raise FakeDiscordError(f"/{command}: no option {focused!r} to autocomplete")
    unknown = set(given) - set(by_name)
    if unknown:
        raise FakeDiscordError(f"/{command}: unknown option(s) {sorted(unknown)}")
    out = []
    for d in defs:
        if d["name"] == focused:
            value = str(given.get(focused, ""))
            out.append({"type": d["type"], "name": focused, "value": value, "focused": True})
            continue
        if d["name"] not in given:
            if d.get("required") and focused is None:
                raise FakeDiscordError(f"/{command}: option {d['name']!r} is required")
            continue
        value = option_value(command, d, given[d["name"]], resolved)
        out.append({"type": d["type"], "name": d["name"], "value": value})
    return out


def option_value(
    command: str, d: dict[str, Any], value: Any, resolved: dict[str, dict[str, Any]]
) -> Any:
    """One option's value as sent; a user, role or channel also goes into ``resolved``."""
    kind = d["type"]
    if d.get("choices"):
        for choice in d["choices"]:
            if value in (choice["value"], choice["name"]):
                return choice["value"]
        raise FakeDiscordError(f"/{command}: {value!r} is not a choice of {d['name']!r}")
    if kind in (OPTION_STRING, OPTION_INTEGER, OPTION_NUMBER):
        typed = {OPTION_STRING: str, OPTION_INTEGER: int, OPTION_NUMBER: float}[kind](value)
        problem = option_problem(d, typed)
        if problem is not None:  # the Discord client refuses to send it
            raise FakeDiscordError(f"/{command} {d['name']}: {problem}")
        return typed
    if kind == OPTION_BOOLEAN:
        return bool(value)
    if kind in (OPTION_USER, OPTION_MENTIONABLE) and isinstance(value, Member | User):
        member = value if isinstance(value, Member) else None
        user = value.user if isinstance(value, Member) else value
        resolved.setdefault("users", {})[str(user.id)] = user.payload()
        if member is not None:
            data = member.payload(with_user=False)
            data["permissions"] = str(member.guild_permissions())
            resolved.setdefault("members", {})[str(user.id)] = data
        return str(user.id)
    if kind == OPTION_CHANNEL and isinstance(value, TextChannel):
        data = value.payload()
        resolved.setdefault("channels", {})[str(value.id)] = data
        return str(value.id)
    if kind in (OPTION_ROLE, OPTION_MENTIONABLE) and isinstance(value, Role):
        resolved.setdefault("roles", {})[str(value.id)] = value.payload()
        return str(value.id)
    raise FakeDiscordError(f"/{command}: cannot pass {value!r} as option type {kind}")


def show(value: Any) -> Any:
    """An option's value as the traffic log shows it."""
    if isinstance(value, Member | User | Role | TextChannel):
        return f"{type(value).__name__}:{value.name}"
    return value
