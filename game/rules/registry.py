"""The rule-set registry: each rule-set module registers itself here on import.

It lives apart from ``game/rules/__init__.py``, which imports every rule set (so all are
registered once the package is imported) and re-exports :func:`find` and :func:`names`: a
rule set imports this module, never its package's ``__init__``, so no import runs in a
circle.
"""

from __future__ import annotations

from game.errors import MalformedRecord
from game.rules.base import RuleSet

_REGISTRY: dict[str, RuleSet] = {}


def register(rule_set: RuleSet) -> RuleSet:
    """Add a rule set to the registry under its ``name``."""
    _REGISTRY[rule_set.name] = rule_set
    return rule_set


def find(name: str) -> RuleSet:
    """The rule set called ``name``; ``MalformedRecord`` if there is none."""
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise MalformedRecord(
            f"unknown variant {name!r}; known: {', '.join(sorted(_REGISTRY))}"
        ) from None


def names() -> list[str]:
    """The registered rule sets, in a stable order (the order ``game.rules`` imports them)."""
    return list(_REGISTRY)
