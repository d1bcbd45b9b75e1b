"""The game-record format of docs/record.md: load (validated), write, replay.

A record fixes a whole game: rule set, players, every chance outcome and
every action. Loading checks everything that can be checked without playing
(docs/record.md fine point 2) and raises :class:`MalformedRecord` naming the
place; :func:`replay` then plays the actions and never draws randomness.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from game import rules
from game.actions import SIMPLE as SIMPLE_ACTIONS
from game.actions import Action, ActionType, discard, play, take
from game.cards import Card
from game.errors import MalformedRecord, MissingChance, RulesError
from game.game import Game
from game.state import RoundChance
from game.views import summary

FORMAT = "lama-record/1"

FIELDS: dict[ActionType, frozenset[str]] = {
    ActionType.PLAY: frozenset({"card", "give_to"}),
    ActionType.TAKE: frozenset({"tile"}),
    ActionType.DISCARD: frozenset({"tiles"}),
}
"""The fields each action type may carry besides ``player`` and ``type``."""


@dataclass
class Record:
    """A validated record: ready to replay."""

    variant: str
    players: list[str]
    options: dict[str, int] = field(default_factory=dict)
    rounds: list[RoundChance] = field(default_factory=list)
    actions: list[tuple[int, Action]] = field(default_factory=list)

    def new_game(self) -> Game:
        """The game at its start, with every recorded chance outcome and no seed."""
        return Game(self.variant, self.players, self.options, chance=self.rounds)


@dataclass
class ReplayResult:
    """What :func:`replay` found: the game as far as it went, and any refusal."""

    game: Game
    error_index: int | None = None
    error: RulesError | None = None

    @property
    def exit_code(self) -> int:
        """docs/record.md: 0 all applied, 3 an action refused, 2 missing chance."""
        if self.error is None:
            return 0
        return 2 if isinstance(self.error, MissingChance) else 3

    def summary(self) -> dict[str, Any]:
        """The summary docs/record.md prints (exit 2 prints only the error)."""
        if isinstance(self.error, MissingChance):
            return error_document(self.error)
        result = summary(self.game)
        if self.error is not None:
            result["error"] = {
                "index": self.error_index,
                "code": self.error.code,
                "message": str(self.error),
            }
        return result


def error_document(error: RulesError) -> dict[str, Any]:
    """docs/record.md fine point 1: exit 2 prints exactly this."""
    return {"error": {"index": None, "code": error.code, "message": str(error)}}


def replay(record: Record) -> ReplayResult:
    """Play every action of ``record``; stop at the first refusal."""
    game = record.new_game()
    for index, (seat, action) in enumerate(record.actions):
        try:
            game.apply(seat, action)
        except RulesError as error:
            return ReplayResult(game, index, error)
    return ReplayResult(game)


# ---- loading ---------------------------------------------------------------


def loads(text: str) -> Record:
    """Parse and validate a record from JSON text."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise MalformedRecord(f"not JSON: {exc}") from None
    return from_dict(data)


def from_dict(data: object) -> Record:
    """Validate a decoded record (docs/record.md, Format and fine points 2–6)."""
    if not isinstance(data, dict):
        raise MalformedRecord("a record is a JSON object")
    if data.get("format") != FORMAT:
        raise MalformedRecord(f"format must be {FORMAT!r}, not {data.get('format')!r}")
    for key in ("variant", "players", "rounds", "actions"):
        if key not in data:
            raise MalformedRecord(f"missing {key!r}")
    if not isinstance(data["variant"], str):
        raise MalformedRecord("variant must be a string")
    rule_set = rules.find(data["variant"])
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise MalformedRecord("options must be an object")
    rule_set.validate_options(options)
    players = _players(data["players"])
    rounds = _rounds(rule_set, data["rounds"])
    actions = _actions(rule_set, players, data["actions"])
    return Record(rule_set.name, players, dict(options), rounds, actions)


def _players(value: object) -> list[str]:
    if not isinstance(value, list) or not 2 <= len(value) <= 6:
        raise MalformedRecord("players must be a list of 2 to 6 names")
    for i, name in enumerate(value):
        if not isinstance(name, str) or not name:
            raise MalformedRecord(f"players[{i}] must be a non-empty string")
    if len(set(value)) != len(value):
        raise MalformedRecord("players must be distinct")
    return list(value)


def _card(rule_set: rules.RuleSet, value: object, where: str) -> Card:
    if not isinstance(value, str) or value not in rule_set.card_tokens():
        raise MalformedRecord(f"{where}: {value!r} is not a card of {rule_set.name}")
    return Card.parse(value)


def _rounds(rule_set: rules.RuleSet, value: object) -> list[RoundChance]:
    if not isinstance(value, list):
        raise MalformedRecord("rounds must be a list")
    expected = Counter(c.token for c in rule_set.deck())
    result = []
    for r, entry in enumerate(value):
        where = f"rounds[{r}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("deck"), list):
            raise MalformedRecord(f"{where} must be an object with a deck list")
        deck = tuple(_card(rule_set, t, f"{where}.deck") for t in entry["deck"])
        if Counter(c.token for c in deck) != expected:
            raise MalformedRecord(
                f"{where}.deck is not the {rule_set.name} deck "
                f"({len(deck)} cards; it must be exactly the {sum(expected.values())} "
                "cards of the rule set)"
            )
        rolls = []
        if rule_set.uses_row:
            rolls = _rolls(rule_set, entry.get("rolls", []), f"{where}.rolls")
        result.append(RoundChance(deck, rolls))
    return result


def _rolls(rule_set: rules.RuleSet, value: object, where: str) -> list[tuple[Card, Card, Card]]:
    from game.rules.dice import DICE  # the faces are the dice rule set's data

    if not isinstance(value, list):
        raise MalformedRecord(f"{where} must be a list")
    rolls = []
    for i, faces in enumerate(value):
        if not isinstance(faces, list) or len(faces) != len(DICE):
            raise MalformedRecord(f"{where}[{i}] must list three faces")
        roll = []
        for die, (face, sides) in enumerate(zip(faces, DICE, strict=True)):
            card = _card(rule_set, face, f"{where}[{i}]")
            if card not in sides:
                name = "ABC"[die]
                raise MalformedRecord(f"{where}[{i}]: die {name} has no face {face!r}")
            roll.append(card)
        rolls.append((roll[0], roll[1], roll[2]))
    return rolls


def _actions(
    rule_set: rules.RuleSet, players: list[str], value: object
) -> list[tuple[int, Action]]:
    if not isinstance(value, list):
        raise MalformedRecord("actions must be a list")
    return [_action(rule_set, players, entry, f"actions[{i}]") for i, entry in enumerate(value)]


def _action(
    rule_set: rules.RuleSet, players: list[str], entry: object, where: str
) -> tuple[int, Action]:
    if not isinstance(entry, dict):
        raise MalformedRecord(f"{where} must be an object")
    player = entry.get("player")
    if not isinstance(player, str) or player not in players:
        raise MalformedRecord(f"{where}: unknown player {player!r}")
    seat = players.index(player)
    try:
        kind = ActionType(entry.get("type"))
    except ValueError:
        raise MalformedRecord(f"{where}: unknown action type {entry.get('type')!r}") from None
    if kind not in rule_set.action_types:
        raise MalformedRecord(f"{where}: {kind.value} is not an action of {rule_set.name}")
    allowed = FIELDS.get(kind, frozenset())
    if kind is ActionType.PLAY and not rule_set.uses_magic:
        allowed = frozenset({"card"})
    extra = set(entry) - {"player", "type"} - allowed
    if extra:
        raise MalformedRecord(f"{where}: {kind.value} takes no field {sorted(extra)[0]!r}")
    if kind is ActionType.PLAY:
        _require(entry, "card", where)
        card = _card(rule_set, entry["card"], f"{where}.card")
        give_to = None
        if "give_to" in entry:
            name = entry["give_to"]
            if not isinstance(name, str) or name not in players:
                raise MalformedRecord(f"{where}.give_to: unknown player {name!r}")
            give_to = players.index(name)
        return seat, play(card, give_to)
    if kind is ActionType.TAKE:
        _require(entry, "tile", where)
        return seat, take(_card(rule_set, entry["tile"], f"{where}.tile"))
    if kind is ActionType.DISCARD:
        _require(entry, "tiles", where)
        tiles = entry["tiles"]
        if not isinstance(tiles, list) or not tiles:
            raise MalformedRecord(f"{where}.tiles must be a non-empty list")
        return seat, discard([_card(rule_set, t, f"{where}.tiles") for t in tiles])
    return seat, SIMPLE_ACTIONS[kind]


def _require(entry: dict[str, Any], key: str, where: str) -> None:
    if key not in entry:
        raise MalformedRecord(f"{where}: missing {key!r}")


# ---- writing ---------------------------------------------------------------


def action_to_json(game: Game, seat: int, action: Action) -> dict[str, Any]:
    """One action as a record entry."""
    entry: dict[str, Any] = {"player": game.players[seat], "type": action.type.value}
    if action.type is ActionType.PLAY and action.card is not None:
        entry["card"] = action.card.token
        if action.give_to is not None:
            entry["give_to"] = game.players[action.give_to]
    elif action.type is ActionType.TAKE and action.card is not None:
        entry["tile"] = action.card.token
    elif action.type is ActionType.DISCARD:
        entry["tiles"] = [t.token for t in action.tiles]
    return entry


def to_dict(game: Game) -> dict[str, Any]:
    """The record of ``game`` so far: replaying it gives the same state."""
    rounds: list[dict[str, Any]] = []
    for chance in game.chance:
        entry: dict[str, Any] = {"deck": [c.token for c in chance.deck]}
        if game.rules.uses_row:
            entry["rolls"] = [[f.token for f in roll] for roll in chance.rolls]
        rounds.append(entry)
    return {
        "format": FORMAT,
        "variant": game.variant,
        "options": dict(game.options),
        "players": list(game.players),
        "rounds": rounds,
        "actions": [action_to_json(game, seat, action) for seat, action in game.history],
    }


def dumps(game: Game) -> str:
    """The record of ``game`` as compact JSON text."""
    return json.dumps(to_dict(game), separators=(",", ":"), ensure_ascii=False)
