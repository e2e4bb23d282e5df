"""Which targets a proof builds: for every rule with a fault, each combination its scenarios
claim to cover (steps/rules/variants.py), once; rows that do not say a value for every
dimension of their rule are counted, not built (a claim the proof cannot read)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from steps.rules.catalogue import FEATURES_DIR, load_catalogue
from steps.rules.coverage import rendered_scenarios
from steps.rules.dimensions import load_dimensions
from steps.rules.variants import CoveredRow, coverage_by_rule
from tests.suite.proof import faults as _faults  # noqa: F401 - registers the faults
from tests.suite.proof.fault import FAULTS
from tests.suite.proof.target import target_name

#: The suite's ways of running combinations: all-pairs rows, or the product rows too.
COMBINATIONS = ("pairs", "product")


@dataclass(frozen=True)
class PlannedTarget:
    """One rule broken on one combination."""

    rule: str
    combination: tuple[tuple[str, str], ...]
    scenarios: tuple[str, ...] = field(compare=False)  # the rows that claim it

    @cached_property
    def name(self) -> str:
        return target_name(self.rule, dict(self.combination))

    @property
    def words(self) -> str:
        """The combination, readably."""
        return ", ".join(f"{k}={v}" for k, v in self.combination) or "(no dimensions)"


@dataclass
class Plan:
    """Every target the coverage claims, and what could not be read."""

    targets: list[PlannedTarget]
    #: Rules with at least one row that does not say all of its dimensions, and how many.
    incomplete: dict[str, int]
    rules: int  # rules that are not observations
    rows: int  # their scenario rows (of the chosen combinations)

    def sample(self, size: int | None, seed: int) -> list[PlannedTarget]:
        """A reproducible random sample (all of them without a size)."""
        if size is None or size >= len(self.targets):
            return list(self.targets)
        return sorted(random.Random(seed).sample(self.targets, size), key=_order)

    def per_rule(self, most: int, seed: int) -> list[PlannedTarget]:
        """At most `most` targets of each rule, drawn reproducibly (a survey of every fault)."""
        draw = random.Random(seed)
        chosen: list[PlannedTarget] = []
        for rule in sorted({t.rule for t in self.targets}):
            mine = [t for t in self.targets if t.rule == rule]
            chosen += draw.sample(mine, min(most, len(mine)))
        return sorted(chosen, key=_order)

    def of_rules(self, rules: Iterable[str]) -> Plan:
        """The plan kept to some rules."""
        wanted = set(rules)
        kept = [t for t in self.targets if t.rule in wanted]
        incomplete = {r: n for r, n in self.incomplete.items() if r in wanted}
        return Plan(kept, incomplete, len(wanted), self.rows)


def _order(target: PlannedTarget) -> tuple[str, tuple[tuple[str, str], ...]]:
    return target.rule, target.combination


def plan(combinations: str = "pairs") -> Plan:
    """The targets of the current features."""
    catalogue = load_catalogue()
    rows = coverage_by_rule(catalogue, load_dimensions(), rendered_scenarios(FEATURES_DIR))
    targets: dict[PlannedTarget, list[str]] = {}
    incomplete: dict[str, int] = {}
    counted = 0
    for rule, covered in rows.items():
        if catalogue[rule].level == "info" or rule not in FAULTS:
            continue
        for row in _chosen(covered, combinations):
            counted += 1
            if not row.complete:
                incomplete[rule] = incomplete.get(rule, 0) + 1
                continue
            key = PlannedTarget(rule, tuple((k, str(v)) for k, v in row.combination.items()), ())
            targets.setdefault(key, []).append(row.scenario.name)
    built = [PlannedTarget(t.rule, t.combination, tuple(s)) for t, s in targets.items()]
    rules = sum(1 for rule in catalogue.values() if rule.level != "info")
    return Plan(sorted(built, key=_order), incomplete, rules, counted)


def _chosen(rows: Sequence[CoveredRow], combinations: str) -> list[CoveredRow]:
    return [row for row in rows if combinations == "product" or not row.product_only]
