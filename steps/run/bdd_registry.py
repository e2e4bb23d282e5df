"""What pytest-bdd knows of the bound scenarios and step definitions, read in one place.

pytest-bdd 9 has no public API that gives, at collection time, the scenario a test item runs
or the step definitions a step text matches: it hands the scenario to hooks only while the
scenario runs (`pytest_bdd_before_scenario`), after selection and the approvals estimate need
it. So the functions below read its registries (`scenario_wrapper_template_registry`,
`step_function_context_registry`) and its lookup of a running step's definition, and nothing
else in the suite does; pytest-bdd is pinned
in constraints.txt, and tests/suite/test_catalogue.py fails when the step registry changes
shape."""

from __future__ import annotations

import importlib
from collections.abc import Callable

import pytest
from pytest_bdd.parser import Scenario, Step
from pytest_bdd.parsers import StepParser
from pytest_bdd.scenario import get_step_function, scenario_wrapper_template_registry
from pytest_bdd.steps import step_function_context_registry

#: The modules that define steps (each is also a pytest plugin of the suite).
STEP_MODULES = (
    "steps.definitions.premises",
    "steps.definitions.auth_request",
    "steps.definitions.decision",
    "steps.definitions.decision_errors",
    "steps.definitions.framing",
    "steps.definitions.exchange",
    "steps.definitions.refresh",
    "steps.definitions.token_outcomes",
    "steps.definitions.token_answers",
    "steps.definitions.revocation",
    "steps.definitions.revocation_outcomes",
    "steps.definitions.userinfo",
    "steps.definitions.userinfo_outcomes",
    "steps.definitions.transport",
    "steps.definitions.lifetime",
    "steps.definitions.info",
    "steps.definitions.capabilities",
)


def scenario_of(item: pytest.Item) -> Scenario | None:
    """The scenario (its Examples row rendered) that a test item runs; None for other tests."""
    function = getattr(item, "obj", None)
    if not callable(function):
        return None
    template = scenario_wrapper_template_registry.get(function)
    if template is None:
        return None
    params = getattr(item, "callspec", None)
    example = params.params.get("_pytest_bdd_example", {}) if params else {}
    return template.render(example)


def step_definitions() -> list[tuple[StepParser, Callable[..., object]]]:
    """Every step definition of the suite's step modules: its parser and its function."""
    for module in STEP_MODULES:
        importlib.import_module(module)  # already imported when pytest registered them
    return [(c.parser, c.step_func) for c in step_function_context_registry.values()]


def target_fixture(request: pytest.FixtureRequest, step: Step) -> str | None:
    """The fixture the step definition that runs a step hands its product to (its
    `target_fixture`), looked up as pytest-bdd looks it up for the running scenario."""
    context = get_step_function(request=request, step=step)
    return context.target_fixture if context is not None else None
