"""Which scenarios a run checks: each scenario's metadata (rules, level, @slow, @lasting, its
steps), selection by --level, --rule and feature path, and the skip of @slow and @lasting
scenarios that were not asked for."""

from __future__ import annotations

import re

import pytest
from pytest_bdd.parser import Scenario

from steps.rules.catalogue import LEVELS
from steps.run.collection import in_filter
from steps.run.suite import SuiteState
from steps.scheduling.meta import ScenarioMeta

#: A marker name shaped like a rule id (one the catalogue may not know).
RULE_ID = re.compile(r"[A-Z][A-Z0-9]*(-[A-Z0-9]+)+")


def scenario_meta(item: pytest.Item, scenario: Scenario, state: SuiteState) -> ScenarioMeta:
    """The scenario's metadata from its markers (tags) and steps."""
    names = {mark.name for mark in item.iter_markers()}
    rules = names & set(state.catalogue)
    unknown = {n for n in names if RULE_ID.fullmatch(n)}
    levels = sorted(names & set(LEVELS))
    return ScenarioMeta(
        nodeid=item.nodeid,
        feature=scenario.feature.name,
        feature_file=scenario.feature.rel_filename,
        name=scenario.name,
        rules=tuple(sorted(rules | unknown)),
        level=levels[0] if len(levels) == 1 else ",".join(levels),
        slow="slow" in names,
        lasting="lasting" in names,
        steps=tuple(step.name for step in scenario.steps),
        types=tuple(step.type for step in scenario.steps),
        product_only="product" in names,
    )


def beyond_pairs(meta: ScenarioMeta, config: pytest.Config) -> bool:
    """A combination beyond all-pairs that this run does not take (--combinations pairs): the
    run says how many it left out."""
    return meta.product_only and config.getoption("combinations") != "product"


def selected(meta: ScenarioMeta, config: pytest.Config) -> bool:
    """Whether --level, --rule and the feature paths keep the scenario."""
    levels = config.getoption("level")
    rules = config.getoption("rule")
    if not in_filter(config, meta.feature_file):
        return False
    if levels and meta.level not in levels:
        return False
    return not rules or bool(set(rules) & set(meta.rules))


def skip_unless_asked(
    item: pytest.Item, meta: ScenarioMeta, config: pytest.Config, state: SuiteState
) -> None:
    """@slow needs --run-slow (unless the target has a test clock), @lasting --run-lasting."""
    clock = state.profile is not None and state.profile.capabilities.test_clock is not None
    if meta.slow and not clock and not config.getoption("run_slow"):
        item.add_marker(pytest.mark.skip(reason="waits in real time: needs --run-slow"))
    if meta.lasting and not config.getoption("run_lasting"):
        item.add_marker(pytest.mark.skip(reason="changes lasting state: needs --run-lasting"))


def is_skipped(item: pytest.Item) -> bool:
    """Whether the item carries a skip marker."""
    return any(mark.name == "skip" for mark in item.iter_markers())
