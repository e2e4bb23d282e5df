"""Checks that the catalogue and the feature files agree: every rule has a scenario, every
rule tag names a catalogued rule, every scenario has exactly one level tag matching its rules.
Used by tests/suite/test_catalogue.py (and usable before a run)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gherkin.parser import Parser

from steps.rules.catalogue import LEVELS, Rule

#: Tags that are not rule ids.
MODIFIER_TAGS = frozenset({"slow", "lasting", "product"})


@dataclass(frozen=True)
class TaggedScenario:
    """A scenario (or outline) as written: where it is and the tags that apply to it."""

    file: str
    line: int
    name: str
    tags: frozenset[str]

    @property
    def where(self) -> str:
        """file:line "name", for messages."""
        return f'{self.file}:{self.line} "{self.name}"'


def _tags(node: Mapping[str, Any]) -> set[str]:
    return {tag["name"].lstrip("@") for tag in node.get("tags", [])}


def _scenarios(
    children: Iterable[Mapping[str, Any]], inherited: set[str], file: str
) -> Iterator[TaggedScenario]:
    for child in children:
        if "rule" in child:
            rule = child["rule"]
            yield from _scenarios(rule["children"], inherited | _tags(rule), file)
        elif "scenario" in child:
            node = child["scenario"]
            tags = inherited | _tags(node)
            for examples in node.get("examples", []):
                tags |= _tags(examples)
            yield TaggedScenario(file, node["location"]["line"], node["name"], frozenset(tags))


def parse_feature(text: str, file: str = "<text>") -> list[TaggedScenario]:
    """The scenarios of one feature file's text."""
    # typed as always there, but a file with no Feature (comments only) parses without one
    feature: Mapping[str, Any] | None = Parser().parse(text).get("feature")
    if not feature:
        return []
    return list(_scenarios(feature["children"], _tags(feature), file))


def load_scenarios(features_dir: Path) -> list[TaggedScenario]:
    """The scenarios of every .feature file under a folder."""
    found: list[TaggedScenario] = []
    for path in sorted(features_dir.rglob("*.feature")):
        found += parse_feature(path.read_text(encoding="utf-8"), path.name)
    return found


def check_coverage(catalogue: Mapping[str, Rule], scenarios: Iterable[TaggedScenario]) -> list[str]:
    """Every problem between catalogue and scenarios, as readable lines (empty: all good)."""
    problems: list[str] = []
    covered: set[str] = set()
    names: dict[tuple[str, str], TaggedScenario] = {}
    for scenario in scenarios:
        key = (scenario.file, scenario.name)
        if key in names:
            problems.append(f"{scenario.where}: scenario name used twice in the file")
        names[key] = scenario
        problems += _check_scenario(catalogue, scenario)
        covered |= scenario.tags
    problems += [f"rule {rid} has no scenario" for rid in sorted(set(catalogue) - covered)]
    return problems


def _check_scenario(catalogue: Mapping[str, Rule], scenario: TaggedScenario) -> list[str]:
    levels = scenario.tags & set(LEVELS)
    rule_tags = scenario.tags - set(LEVELS) - MODIFIER_TAGS
    problems = [
        f"{scenario.where}: tag @{t} names no rule" for t in sorted(rule_tags - set(catalogue))
    ]
    rules = [catalogue[t] for t in sorted(rule_tags) if t in catalogue]
    if not rule_tags:
        problems.append(f"{scenario.where}: no rule tag")
    if len(levels) != 1:
        problems.append(f"{scenario.where}: needs exactly one level tag, has {sorted(levels)}")
    elif wrong := [r.id for r in rules if r.level not in levels]:
        problems.append(f"{scenario.where}: level @{next(iter(levels))} but {wrong} differ")
    return problems


@dataclass(frozen=True)
class RenderedScenario:
    """A scenario as it runs: an outline's Examples row filled in."""

    file: str
    name: str
    tags: frozenset[str]
    steps: tuple[str, ...]
    #: Each step's kind as Gherkin gives it ("given", "when", "then"; And/But inherit it).
    step_types: tuple[str, ...] = ()
    #: The Examples row it was rendered from (column, cell), in the table's order.
    row: tuple[tuple[str, str], ...] = ()

    @property
    def cells(self) -> dict[str, str]:
        """The Examples row by column."""
        return dict(self.row)


def rendered_scenarios(features_dir: Path) -> list[RenderedScenario]:
    """Every scenario of the feature files, one per Examples row of an outline."""
    from pytest_bdd.parser import FeatureParser  # the suite's own parser, not at import time

    found = []
    for path in sorted(features_dir.glob("*.feature")):
        feature = FeatureParser(str(features_dir), path.name).parse()
        for template in feature.scenarios.values():
            for examples, context in _rows(template):
                scenario = template.render(context)
                tags = frozenset(template.tags | feature.tags | examples)
                steps = tuple(step.name for step in scenario.steps)
                types = tuple(step.type for step in scenario.steps)
                row = tuple(context.items())
                found.append(RenderedScenario(path.name, scenario.name, tags, steps, types, row))
    return found


def _rows(template: Any) -> list[tuple[frozenset[str], dict[str, str]]]:
    rows = [
        (frozenset(getattr(ex, "tags", ()) or ()), context)
        for ex in template.examples
        for context in ex.as_contexts()
    ]
    return rows or [(frozenset(), {})]
