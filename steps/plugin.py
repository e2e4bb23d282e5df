"""The suite's pytest plugin (`-p steps.plugin`): the hooks, each handing its job to the module
of steps/run/ that does it (options, collection rewriting, selection, the approvals estimate,
the clock lock, result payloads and results). The step definitions (`STEP_MODULES`), the
isolation, the twins and the fixtures are plugins of their own.

Results travel on each report's `user_properties`, so they reach the controller intact when
pytest-xdist runs scenarios in workers."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Generator

import pytest
from pluggy import Result
from pytest_bdd.parser import Feature, Scenario, Step

from client_kit.redaction import share_mask_key
from steps.outcomes import cascade_of
from steps.profiles.profile import ProfileError
from steps.rules.catalogue import Rule
from steps.run.approvals import estimate_prompts
from steps.run.bdd_registry import STEP_MODULES, scenario_of
from steps.run.clock_lock import clock_lock
from steps.run.collection import redirect_collection
from steps.run.options import add_markers, add_options
from steps.run.payload import FAILED_STEP_KEY, FAILED_TYPE_KEY, attach
from steps.run.preflight import PreflightError, run_preflight
from steps.run.results import ResultsWriter
from steps.run.selection import (
    beyond_pairs,
    is_skipped,
    scenario_meta,
    selected,
    skip_unless_asked,
)
from steps.run.suite import STATE_KEY, build_state, suite_state
from steps.safety.text import shown
from steps.scheduling.meta import META_KEY

pytest_plugins = [
    # first: steps.scenario.grants imports it, and a plugin must not be pre-imported
    "steps.scheduling.isolation",
    "steps.run.twins",
    "steps.run.fixtures",
    *STEP_MODULES,
]

#: Characters of a rule's title shown in a prompt.
SERVING_TITLE = 90


def pytest_addoption(parser: pytest.Parser) -> None:
    """The suite's options."""
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    """Load profile and catalogue, register markers, point collection at the bound features."""
    try:
        state = build_state(config)
    except (ProfileError, tomllib.TOMLDecodeError, OSError) as error:
        raise pytest.UsageError(f"profile {config.getoption('profile')}: {error}") from None
    config.stash[STATE_KEY] = state
    share_mask_key(os.environ)  # pytest-xdist's workers mask a value as this process does
    add_markers(config, state.catalogue.values())
    redirect_collection(config, whole_suite=state.profile is not None)
    config.pluginmanager.register(ResultsWriter(config), "mb-oauth-results")


def pytest_sessionstart(session: pytest.Session) -> None:
    """The preflight, once per run (on the controller, not in xdist workers): a target that
    cannot be reached, a CA, credentials or a login that do not work stop the run here."""
    config = session.config
    state = suite_state(config)
    if state.profile is None or hasattr(config, "workerinput"):
        return
    if config.getoption("no_preflight") or config.getoption("collectonly"):
        return
    try:
        run_preflight(state.profile)
    except PreflightError as error:
        message = f"setup error: preflight: {shown(str(error))}"
        pytest.exit(message, returncode=pytest.ExitCode.USAGE_ERROR)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect by --level/--rule/feature path and the rows beyond all-pairs (unless
    --combinations product, counted for the report); skip @slow and @lasting unless asked for."""
    state = suite_state(config)
    state.combinations = config.getoption("combinations")
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        scenario = scenario_of(item)
        if scenario is None:
            kept.append(item)
            continue
        meta = scenario_meta(item, scenario, state)
        item.stash[META_KEY] = meta
        chosen = selected(meta, config)
        if chosen and beyond_pairs(meta, config):
            chosen = False
            state.product_rows_not_run += 1
        (kept if chosen else dropped).append(item)
        skip_unless_asked(item, meta, config, state)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def pytest_collection_finish(session: pytest.Session) -> None:
    """Tell the run how many prompts a person will see, the scenarios in the order they run
    (after steps/scheduling/isolation.py ordered them)."""
    state = suite_state(session.config)
    consent = state.profile.consent if state.profile is not None else None
    pages = (
        consent is None
        or consent.driver != "manual"
        or bool(consent.manual.get("hand_over_session"))
    )
    running = [
        item.stash[META_KEY]
        for item in session.items
        if META_KEY in item.stash and not is_skipped(item)
    ]
    state.run_shapes = [(meta.steps, meta.types) for meta in running]
    state.approvals_estimate = estimate_prompts(state.run_shapes, pages=pages)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Start the scenario's evidence; name it as the cause of any cascade it starts."""
    state = suite_state(item.config)
    if META_KEY not in item.stash:
        return
    meta = item.stash[META_KEY]
    cascade_of(item.config).current = f"{meta.name} ({meta.feature})"
    state.serving = serving(meta.rules, state.catalogue)
    if state.consent_driver is not None:
        state.consent_driver.serving = state.serving
    if state.http_started:
        state.http().begin()


def serving(rules: tuple[str, ...], catalogue: dict[str, Rule]) -> str:
    """What a prompt serves: the scenario's rule ids and the first one's title, shortened."""
    if not rules:
        return ""
    title = catalogue[rules[0]].title if rules[0] in catalogue else ""
    if len(title) > SERVING_TITLE:
        title = title[: SERVING_TITLE - 1].rstrip() + "…"
    return f"{', '.join(rules)}" + (f" ({title})" if title else "")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """A scenario that moves the target's clock runs alone (steps/run/clock_lock.py)."""
    meta = item.stash.get(META_KEY, None)
    if meta is None:
        yield
        return
    with clock_lock(item.config, moves_clock=meta.slow):
        yield


def pytest_bdd_step_error(
    request: pytest.FixtureRequest, feature: Feature, scenario: Scenario, step: Step
) -> None:
    """Remember which step failed (and whether it was a Given: a premise), for the result."""
    request.node.stash[FAILED_STEP_KEY] = f"{step.keyword} {step.name}"
    request.node.stash[FAILED_TYPE_KEY] = step.type


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Result[pytest.TestReport], None]:
    """Attach the scenario's result payload to its decisive report (steps/run/payload.py)."""
    outcome = yield
    meta = item.stash.get(META_KEY, None)
    if meta is not None:
        attach(item, outcome.get_result(), call, meta, suite_state(item.config))
