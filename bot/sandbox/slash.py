"""Reading a typed slash command (``/lama start variant:kadabra target:10``) as Discord does.

The command and its options are looked up in the definitions the bot synced, so the
sandbox knows no command of its own: whatever the bot registers can be typed.
"""

from __future__ import annotations

import re
from typing import Any

from bot.words.i18n import N_
from fakediscord import Member

from .world import SandboxError

SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
OPTION_STRING, OPTION_INTEGER, OPTION_BOOLEAN, OPTION_USER = 3, 4, 5, 6
OPTION_NUMBER = 10
OPTION_NAME = re.compile(r"(?:^|\s)([\w-]+):")


def parse(
    text: str, commands: list[dict[str, Any]], members: list[Member]
) -> tuple[str, dict[str, Any]]:
    """``(command path, options)`` for the fake's driver, or a SandboxError saying why not."""
    words = text.strip().removeprefix("/").split()
    if not words:
        raise SandboxError(N_("Type a command, for example {command}."), command="/lama start")
    top = next((c for c in commands if c["name"] == words[0] and c.get("type", 1) == 1), None)
    if top is None:
        known = ", ".join(sorted("/" + c["name"] for c in commands)) or "none yet"
        raise SandboxError(N_("Unknown command /{name} (known: {known})."), name=words[0],
                           known=known)
    path, node, rest = [top["name"]], top, text.strip().removeprefix("/")[len(words[0]):]
    while any(o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP) for o in node.get("options") or []):
        subs = {o["name"]: o for o in node["options"]}
        word = rest.split()[0] if rest.split() else ""
        if word not in subs:
            names = ", ".join(f"/{' '.join(path)} {name}" for name in subs)
            raise SandboxError(N_("Choose one of: {names}."), names=names)
        path.append(word)
        node, rest = subs[word], rest.lstrip()[len(word):]
    return " ".join(path), _options(" ".join(path), rest, node.get("options") or [], members)


def _options(
    command: str, rest: str, defs: list[dict[str, Any]], members: list[Member]
) -> dict[str, Any]:
    matches = list(OPTION_NAME.finditer(rest))
    if rest[: matches[0].start() if matches else len(rest)].strip():
        raise SandboxError(N_("Give options as name:value after /{command}."), command=command)
    by_name = {d["name"]: d for d in defs}
    options: dict[str, Any] = {}
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(rest)
        name, value = match[1], rest[match.end():end].strip()
        if name not in by_name:
            known = ", ".join(by_name) or "none"
            raise SandboxError(N_("/{command} has no option {name} (options: {known})."),
                               command=command, name=name, known=known)
        options[name] = _value(command, by_name[name], value, members)
    for d in defs:
        if d.get("required") and d["name"] not in options:
            raise SandboxError(N_("/{command} needs the option {name}."), command=command,
                               name=d["name"])
    return options


def _value(command: str, d: dict[str, Any], value: str, members: list[Member]) -> Any:
    name = d["name"]
    if not value:
        raise SandboxError(N_("{name}: needs a value."), name=name)
    if d.get("choices"):
        for choice in d["choices"]:
            if value.casefold() in (str(choice["value"]).casefold(), choice["name"].casefold()):
                return choice["value"]
        names = ", ".join(str(c["value"]) for c in d["choices"])
        raise SandboxError(N_("{name}: choose one of {names}."), name=name, names=names)
    kind = d["type"]
    if kind in (OPTION_INTEGER, OPTION_NUMBER):
        try:
            number = int(value) if kind == OPTION_INTEGER else float(value)
        except ValueError:
            raise SandboxError(N_("{name}: needs a number."), name=name) from None
        low, high = d.get("min_value"), d.get("max_value")
        if (low is not None and number < low) or (high is not None and number > high):
            raise SandboxError(N_("{name}: between {low} and {high}."), name=name, low=low,
                               high=high)
        return number
    if kind == OPTION_BOOLEAN:
        if value.casefold() not in ("true", "false"):
            raise SandboxError(N_("{name}: true or false."), name=name)
        return value.casefold() == "true"
    if kind == OPTION_USER:
        wanted = value.removeprefix("@").strip("<>@!").casefold()
        for member in members:
            if wanted in (member.name.casefold(), str(member.id)):
                return member
        raise SandboxError(N_("{name}: no member called {value}."), name=name, value=value)
    if kind == OPTION_STRING:
        return value
    raise SandboxError(N_("/{command}: the sandbox cannot type option {name}."),
                       command=command, name=name)
