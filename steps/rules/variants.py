"""The combination one scenario covers, read from its own words: for each dimension of its
rule (steps/rules/dimensions.py), the Examples column named after the dimension, else the
value whose words its name or steps say, else the dimension's default (what the steps do
when they say nothing). So no declaration can claim more than a scenario does; the generated
proof then breaks each combination alone and wants the rule to fail (tools/proof)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

from steps.rules.catalogue import Rule
from steps.rules.coverage import RenderedScenario
from steps.rules.dimensions import Dimension, Dimensions, Domain

#: What a scenario says of a dimension when its words name two values of it.
AMBIGUOUS = "?"


def covered(
    scenario: RenderedScenario, domain: Domain, dimensions: dict[str, Dimension]
) -> dict[str, str | None]:
    """Dimension -> the value the scenario covers (None: it does not say; AMBIGUOUS: two)."""
    return {name: _value(scenario, dimensions[name], allowed) for name, allowed in domain.items()}


def _value(scenario: RenderedScenario, dimension: Dimension, allowed: Sequence[str]) -> str | None:
    if len(allowed) == 1:
        return allowed[0]  # the rule keeps the dimension to one value
    cell = scenario.cells.get(dimension.name)
    if cell is not None:
        return dimension.value_of_cell(cell)
    text = (scenario.name, *scenario.steps)
    said = [value for value, words in dimension.words.items() if _says(text, words)]
    said = [value for value in said if not _inside_another(value, said, dimension)]
    if len(said) > 1:
        return AMBIGUOUS
    return said[0] if said else dimension.default


def _says(steps: Sequence[str], words: str) -> bool:
    pattern = _pattern(words)
    return any(pattern.search(step) for step in steps)


@cache
def _pattern(words: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w-]){re.escape(words)}(?![\w-])")


def _inside_another(value: str, said: list[str], dimension: Dimension) -> bool:
    """Words found only as part of another value's longer words do not count."""
    words = dimension.words[value]
    return any(other != value and words in dimension.words[other] for other in said)


#: The Examples tag of rows beyond all-pairs, run only with `--combinations product`.
PRODUCT_TAG = "product"


@dataclass(frozen=True)
class CoveredRow:
    """One scenario row of a rule and the combination it covers."""

    scenario: RenderedScenario
    combination: dict[str, str | None]

    @property
    def product_only(self) -> bool:
        """A row beyond all-pairs, run only when the full product is asked for."""
        return PRODUCT_TAG in self.scenario.tags

    @property
    def complete(self) -> bool:
        """Whether the row says a value for every dimension of its rule."""
        return all(v not in (None, AMBIGUOUS) for v in self.combination.values())


def rule_rows(
    rule: Rule, dimensions: Dimensions, scenarios: Iterable[RenderedScenario]
) -> list[CoveredRow]:
    """The rows of a rule's scenarios, each with the combination it covers (settled: values a
    row has that free others leave those NOT_APPLICABLE)."""
    space = dimensions.space(rule)
    rows = []
    for scenario in scenarios:
        if rule.id in scenario.tags:
            said = covered(scenario, space.domain, dimensions.dimensions)
            known = {k: v for k, v in said.items() if v not in (None, AMBIGUOUS)}
            said |= space.settle(known)
            rows.append(CoveredRow(scenario, said))
    return rows


def coverage_by_rule(
    catalogue: Mapping[str, Rule], dimensions: Dimensions, scenarios: Sequence[RenderedScenario]
) -> dict[str, list[CoveredRow]]:
    """Every rule's rows (the printout of `mb-oauth-conformance coverage` and the proof's list
    of what each rule claims to cover)."""
    return {rule.id: rule_rows(rule, dimensions, scenarios) for rule in catalogue.values()}
