"""Discord's rules for application commands: refused at sync, honoured when a user runs one.

Numbers and rules from Discord's application-commands documentation ("Application Command
Naming", the command, option and choice structures) and its locales reference. A bulk
overwrite is all or nothing: the fake checks every command before replacing any.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from .validate import FormErrors


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


LOCALES = _words(
    "id da de en-GB en-US es-ES es-419 fr hr it lt hu nl no pl pt-BR ro fi sv-SE vi tr cs "
    "el bg ru uk hi th zh-CN ja zh-TW ko "
)
"""Discord's locales (its "Locales" reference): the only keys a *_localizations map may use."""

CHAT_INPUT, USER, MESSAGE, PRIMARY_ENTRY_POINT = 1, 2, 3, 4
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
STRING, INTEGER, NUMBER = 3, 4, 10
OPTION_TYPES = frozenset(range(1, 12))
MAX_OPTIONS = MAX_CHOICES = 25
MAX_CHAT_COMMANDS = 100
MAX_USER_OR_MESSAGE_COMMANDS = 5
MAX_COMMAND_CHARS = 4000  # name + description + choice names/values, in one language
MAX_TEXT_LENGTH = 6000  # min_length / max_length bounds
MAX_SAFE_NUMBER = 2**53  # option values must fit a double

COMMAND_FIELDS = _words(
    "id type application_id guild_id name name_localizations description "
    "description_localizations options default_member_permissions dm_permission "
    "default_permission nsfw integration_types contexts version handler "
)
OPTION_FIELDS = _words(
    "type name name_localizations description description_localizations required choices "
    "options channel_types min_value max_value min_length max_length autocomplete "
)
CHOICE_FIELDS = _words("name name_localizations value ")


def _script_ok(char: str) -> bool:
    """One character of ``^[-_'\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]$``."""
    if char in "-_'":
        return True
    if unicodedata.category(char)[0] in "LN":
        return True
    point = ord(char)
    return 0x0900 <= point <= 0x097F or 0xA8E0 <= point <= 0xA8FF or 0x0E00 <= point <= 0x0E7F


def valid_chat_name(name: Any) -> bool:
    """Discord's naming rule for chat commands and options (lowercase where a case exists)."""
    if not isinstance(name, str) or not 1 <= len(name) <= 32:
        return False
    return all(_script_ok(c) and c.lower() == c for c in name)


class CommandChecker:
    """Collects the errors and lint of one bulk overwrite."""

    def __init__(self) -> None:
        self.err = FormErrors("")
        self.lint: list[str] = []

    def _unknown(self, path: str, data: dict[str, Any], known: frozenset[str]) -> None:
        for key in sorted(set(data) - known):
            self.lint.append(f"{path}.{key}: unknown field (Discord ignores it)")

    def _name(self, path: str, name: Any, chat: bool) -> None:
        if chat:
            if not valid_chat_name(name):
                self.err.add(path, "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
        elif not isinstance(name, str) or not 1 <= len(name) <= 32:
            self.err.add(path, "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 32 in length.")

    def _description(self, path: str, text: Any, required: bool = True) -> None:
        if not required:
            if text not in (None, ""):
                self.err.add(
                    path,
                    "APPLICATION_COMMAND_INVALID_DESCRIPTION",
                    "Only chat input commands have a description.",
                )
            return
        if not isinstance(text, str) or not 1 <= len(text) <= 100:
            self.err.add(path, "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")

    def _localizations(self, path: str, data: dict[str, Any], chat: bool, desc: bool) -> None:
        for field in ("name_localizations", "description_localizations"):
            mapping = data.get(field)
            if mapping is None:
                continue
            if not isinstance(mapping, dict):
                self.err.add(f"{path}.{field}", "DICT_TYPE_CONVERT", "Must be a map.")
                continue
            for locale, text in mapping.items():
                where = f"{path}.{field}.{locale}"
                if locale not in LOCALES:
                    self.err.add(
                        where, "ENUM_TYPE_COERCE", f'Value "{locale}" is not a valid enum value.'
                    )
                elif field == "name_localizations":
                    self._name(where, text, chat)
                elif desc:
                    self._description(where, text)

    def check(self, commands: Any) -> None:
        """Check a PUT .../commands body (raises ApiError 50035 if Discord would refuse it)."""
        if not isinstance(commands, list):
            self.err.add("_root", "BASE_TYPE_ARRAY", "Must be an array.")
            self.err.raise_if_any()
        seen: set[tuple[int, str]] = set()
        counts = {CHAT_INPUT: 0, USER: 0, MESSAGE: 0}
        for i, cmd in enumerate(commands):
            path = str(i)
            if not isinstance(cmd, dict):
                self.err.add(path, "DICT_TYPE_CONVERT", "Only dictionaries may be used.")
                continue
            self._unknown(path, cmd, COMMAND_FIELDS)
            kind = cmd.get("type", CHAT_INPUT)
            if kind not in (CHAT_INPUT, USER, MESSAGE, PRIMARY_ENTRY_POINT):
                self.err.add(
                    f"{path}.type", "BASE_TYPE_CHOICES", "Value must be one of (1, 2, 3, 4)."
                )
                continue
            counts[kind] = counts.get(kind, 0) + 1
            chat = kind == CHAT_INPUT
            self._name(f"{path}.name", cmd.get("name"), chat)
            self._description(f"{path}.description", cmd.get("description"), chat)
            self._localizations(path, cmd, chat, chat)
            key = (kind, str(cmd.get("name")))
            if key in seen:
                self.err.add(
                    f"{path}.name",
                    "APPLICATION_COMMANDS_DUPLICATE_NAME",
                    f"Application command names must be unique: {key[1]}",
                )
            seen.add(key)
            options = cmd.get("options") or []
            if options and not chat:
                self.err.add(
                    f"{path}.options",
                    "APPLICATION_COMMAND_OPTIONS_NOT_ALLOWED",
                    "Only chat input commands have options.",
                )
            self._options(f"{path}.options", options, depth=0)
            if chat and _chars(cmd) > MAX_COMMAND_CHARS:
                self.err.add(
                    path,
                    "APPLICATION_COMMAND_TOO_LARGE",
                    f"Command exceeds maximum size ({MAX_COMMAND_CHARS})",
                )
        if counts[CHAT_INPUT] > MAX_CHAT_COMMANDS:
            self.err.add("_root", "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
        if max(counts[USER], counts[MESSAGE]) > MAX_USER_OR_MESSAGE_COMMANDS:
            self.err.add(
                "_root",
                "APPLICATION_COMMANDS_TOO_MANY",
                "Maximum number of context menu commands reached (5)",
            )
        self.err.raise_if_any()

    def _options(self, path: str, options: Any, depth: int) -> None:
        if not isinstance(options, list):
            self.err.add(path, "BASE_TYPE_ARRAY", "Must be an array.")
            return
        if len(options) > MAX_OPTIONS:
            self.err.add(path, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        names: set[str] = set()
        optional_seen = False
        kinds = {o.get("type") for o in options if isinstance(o, dict)}
        if kinds & {SUB_COMMAND, SUB_COMMAND_GROUP} and kinds - {SUB_COMMAND, SUB_COMMAND_GROUP}:
            self.err.add(
                path,
                "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID",
                "Sub-command and sub-command group option types are mutually exclusive to all "
                "other types",
            )
        for j, opt in enumerate(options):
            where = f"{path}.{j}"
            if not isinstance(opt, dict):
                self.err.add(where, "DICT_TYPE_CONVERT", "Only dictionaries may be used.")
                continue
            self._unknown(where, opt, OPTION_FIELDS)
            kind = opt.get("type")
            if kind not in OPTION_TYPES:
                self.err.add(f"{where}.type", "BASE_TYPE_CHOICES", "Value must be one of (1..11).")
                continue
            self._name(f"{where}.name", opt.get("name"), True)
            self._description(f"{where}.description", opt.get("description"))
            self._localizations(where, opt, True, True)
            if opt.get("name") in names:
                self.err.add(
                    f"{where}.name",
                    "APPLICATION_COMMAND_OPTION_NAME_ALREADY_EXISTS",
                    "Option names must be unique",
                )
            names.add(str(opt.get("name")))
            if kind in (SUB_COMMAND, SUB_COMMAND_GROUP):
                if depth >= (1 if kind == SUB_COMMAND_GROUP else 2):
                    self.err.add(
                        f"{where}.type",
                        "APPLICATION_COMMAND_OPTION_NESTING",
                        "Sub-commands nest at most group > sub-command",
                    )
                inner = opt.get("options") or []
                if kind == SUB_COMMAND_GROUP and any(
                    isinstance(o, dict) and o.get("type") != SUB_COMMAND for o in inner
                ):
                    self.err.add(
                        f"{where}.options",
                        "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID",
                        "A sub-command group holds sub-commands only",
                    )
                self._options(f"{where}.options", inner, depth + 1)
                continue
            if opt.get("required"):
                if optional_seen:
                    self.err.add(
                        f"{where}.required",
                        "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                        "Required options must be placed before non-required options",
                    )
            else:
                optional_seen = True
            self._value_rules(where, opt, kind)

    def _value_rules(self, where: str, opt: dict[str, Any], kind: int) -> None:
        choices = opt.get("choices")
        if choices:
            if kind not in (STRING, INTEGER, NUMBER):
                self.err.add(
                    f"{where}.choices",
                    "APPLICATION_COMMAND_OPTION_CHOICES_NOT_ALLOWED",
                    "Only string, integer and number options have choices",
                )
            if opt.get("autocomplete"):
                self.err.add(
                    f"{where}.autocomplete",
                    "APPLICATION_COMMAND_AUTOCOMPLETE_CHOICES",
                    "Autocomplete cannot be set with choices",
                )
            if len(choices) > MAX_CHOICES:
                self.err.add(
                    f"{where}.choices", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."
                )
            for k, choice in enumerate(choices):
                self._choice(f"{where}.choices.{k}", choice, kind)
        for bound in ("min_value", "max_value"):
            value = opt.get(bound)
            if value is None:
                continue
            if kind not in (INTEGER, NUMBER):
                self.err.add(
                    f"{where}.{bound}",
                    "APPLICATION_COMMAND_OPTION_BOUND_NOT_ALLOWED",
                    "Only integer and number options have min_value/max_value",
                )
            elif not _number(value, kind) or abs(value) > MAX_SAFE_NUMBER:
                self.err.add(
                    f"{where}.{bound}", "NUMBER_TYPE_COERCE", f'Value "{value}" is not a number.'
                )
        lo, hi = opt.get("min_value"), opt.get("max_value")
        if _number(lo, NUMBER) and _number(hi, NUMBER) and lo > hi:
            self.err.add(f"{where}.min_value", "NUMBER_TYPE_MAX", "min_value must be <= max_value")
        for bound, low in (("min_length", 0), ("max_length", 1)):
            value = opt.get(bound)
            if value is None:
                continue
            if kind != STRING:
                self.err.add(
                    f"{where}.{bound}",
                    "APPLICATION_COMMAND_OPTION_BOUND_NOT_ALLOWED",
                    "Only string options have min_length/max_length",
                )
            elif not _number(value, INTEGER) or not low <= value <= MAX_TEXT_LENGTH:
                self.err.add(
                    f"{where}.{bound}",
                    "NUMBER_TYPE_MAX",
                    f"int value should be <= {MAX_TEXT_LENGTH} and >= {low}.",
                )

    def _choice(self, where: str, choice: Any, kind: int) -> None:
        if not isinstance(choice, dict):
            self.err.add(where, "DICT_TYPE_CONVERT", "Only dictionaries may be used.")
            return
        self._unknown(where, choice, CHOICE_FIELDS)
        name = choice.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            self.err.add(
                f"{where}.name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length."
            )
        for locale, text in (choice.get("name_localizations") or {}).items():
            if locale not in LOCALES:
                self.err.add(
                    f"{where}.name_localizations.{locale}",
                    "ENUM_TYPE_COERCE",
                    f'Value "{locale}" is not a valid enum value.',
                )
            elif not isinstance(text, str) or not 1 <= len(text) <= 100:
                self.err.add(
                    f"{where}.name_localizations.{locale}",
                    "BASE_TYPE_BAD_LENGTH",
                    "Must be between 1 and 100 in length.",
                )
        value = choice.get("value")
        if kind == STRING:
            if not isinstance(value, str) or not 1 <= len(value) <= 100:
                self.err.add(
                    f"{where}.value", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length."
                )
        elif not _number(value, kind):
            self.err.add(
                f"{where}.value", "NUMBER_TYPE_COERCE", f'Value "{value}" is not a number.'
            )


def _number(value: Any, kind: int) -> bool:
    if isinstance(value, bool):
        return False
    if kind == INTEGER:
        return isinstance(value, int)
    return isinstance(value, int | float)


def _chars(cmd: dict[str, Any]) -> int:
    """Characters Discord counts toward a command's 4000 (default language only)."""

    def walk(options: list[dict[str, Any]]) -> int:
        total = 0
        for o in options:
            total += len(str(o.get("name", ""))) + len(str(o.get("description", "")))
            for c in o.get("choices") or []:
                total += len(str(c.get("name", ""))) + len(str(c.get("value", "")))
            total += walk(o.get("options") or [])
        return total

    return (
        len(str(cmd.get("name", "")))
        + len(str(cmd.get("description", "")))
        + walk(cmd.get("options") or [])
    )


def check_commands(commands: Any) -> list[str]:
    """Refuse a bulk overwrite Discord would refuse (ApiError); return its lint."""
    checker = CommandChecker()
    checker.check(commands)
    return checker.lint


def option_problem(definition: dict[str, Any], value: Any) -> str | None:
    """Why the Discord client would not send ``value`` for this option (None: it would)."""
    kind = definition.get("type")
    if kind in (INTEGER, NUMBER) and _number(value, kind):
        lo, hi = definition.get("min_value"), definition.get("max_value")
        if lo is not None and value < lo:
            return f"{value} is below the minimum {lo}"
        if hi is not None and value > hi:
            return f"{value} is above the maximum {hi}"
    if kind == STRING and isinstance(value, str):
        lo, hi = definition.get("min_length"), definition.get("max_length")
        if lo is not None and len(value) < lo:
            return f"{value!r} is shorter than {lo}"
        if hi is not None and len(value) > hi:
            return f"{value!r} is longer than {hi}"
    return None
