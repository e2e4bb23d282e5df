"""Rule ids by name, for every mention of a rule in the step layer but its check.

A rule's id is written once in steps/: in the `@check(...)` of the Then step that states the
rule (steps/scenario/kinds.py), so that searching the id finds its check. Everything else that
names a rule (the rule a failed premise points to, the rule a refusal belongs to, the rule a
leniency is noted against) writes `RULE.REFRESH_CROSS_CLIENT`: the id, its hyphens written as
underscores, checked against features/rules.toml, so a misspelt one fails when it is read and
never names a rule that is not there (tests/test_rule_thread.py reads every one written in steps/).
"""

from __future__ import annotations

from collections.abc import Iterable

from steps.rules.catalogue import load_catalogue


class RuleIds:
    """The catalogue's ids as attributes: hyphens written as underscores."""

    __slots__ = ("_ids",)

    def __init__(self, ids: Iterable[str]) -> None:
        self._ids = frozenset(ids)

    def __getattr__(self, name: str) -> str:
        rule = name.replace("_", "-")
        if name.startswith("_") or rule not in self._ids:
            raise AttributeError(f"{name}: no rule {rule} in features/rules.toml")
        return rule

    def __contains__(self, rule: object) -> bool:
        return rule in self._ids


RULE = RuleIds(load_catalogue())
