"""Twins share one run of their premise (which scenarios are twins: steps/scheduling/twin_keys.py).

The first twin that only checks after its premise runs the premise and *records* the state it
led to: the scenario's state objects (`Scene`, with its token history, and `Revocations`),
the products the premise steps handed on (code, grant, authorization request, ...), and the
exchanges and notes of its evidence. A later twin *replays* it: it takes a copy of that state,
shows the same exchanges as its evidence (with a note saying so), and its premise steps do not
run (`steps.scenario.kinds.replay_of`); its checks then read what they would have read after
taking the steps themselves, since nothing changed since (below). Each replaying twin gets
copies of its own, so one twin's checks never see what another's did.

A recording is valid in one isolation epoch only: the one in which the recording twin finished
(its own writes end the epoch it ran in). A writer that ran since may have changed the state,
so then the twin runs its premise itself. A twin whose checks do more than read uses a
recording at most once, as its last user. steps/scheduling/isolation.py has the rest of the
argument."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

import pytest
from pytest_bdd.compat import inject_fixture
from pytest_bdd.parser import Feature, Scenario, Step

from steps.http.evidence import Exchange
from steps.reports.json_report import TWIN_NOTE
from steps.run.bdd_registry import target_fixture
from steps.scenario.kinds import replay_of
from steps.scheduling.isolation import isolation
from steps.scheduling.meta import META_KEY
from steps.scheduling.twin_keys import Twin, twin_of
from steps.scheduling.writers import is_writer

#: Per-scenario fixtures whose objects the premise changes in place (restored field by field).
STATE_FIXTURES = ("scene", "revocations")


@dataclass
class Recording:
    """The state a twin's premise led to, and where it is valid."""

    epoch: int
    recorder: str
    states: dict[str, Any]
    products: dict[str, Any]
    exchanges: list[Exchange]
    notes: list[str]
    used: bool = False


@dataclass
class Twins:
    """The recordings of a run (one process), and the running twin's part in them."""

    recordings: dict[tuple[str, ...], Recording] = field(default_factory=dict)
    twin: Twin | None = None
    recording: bool = False
    replay: dict[str, Any] | None = None


TWINS_KEY = pytest.StashKey[Twins]()


def twins(config: pytest.Config) -> Twins:
    """The run's twins (one per process)."""
    if TWINS_KEY not in config.stash:
        config.stash[TWINS_KEY] = Twins()
    return config.stash[TWINS_KEY]


def clone(value: Any, memo: dict[int, Any]) -> Any:
    """A copy of the state objects in `value` (mutable dataclasses, lists, dicts), sharing
    everything else (responses, frozen values, functions); identity kept through `memo`."""
    if id(value) in memo:
        return memo[id(value)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if getattr(value, "__dataclass_params__").frozen:  # noqa: B009 - not in typeshed
            return value
        duplicate = copy.copy(value)
        memo[id(value)] = duplicate
        for item in dataclasses.fields(value):
            setattr(duplicate, item.name, clone(getattr(value, item.name), memo))
        return duplicate
    if isinstance(value, list):
        memo[id(value)] = duplicate_list = []
        duplicate_list += [clone(item, memo) for item in value]
        return duplicate_list
    if isinstance(value, dict):
        return {key: clone(item, memo) for key, item in value.items()}
    return value


def _twin(request: pytest.FixtureRequest) -> Twin | None:
    meta = request.node.stash.get(META_KEY, None)
    return None if meta is None else twin_of(meta.steps, meta.types)


def pytest_bdd_before_scenario(
    request: pytest.FixtureRequest, feature: Feature, scenario: Scenario
) -> None:
    """Replay a valid recording of the twin's premise, or record it if the twin may share."""
    state = twins(request.config)
    state.twin, state.recording, state.replay = _twin(request), False, None
    if state.twin is None:
        return
    found = state.recordings.get(state.twin.key)
    epoch = isolation(request.config).epoch()
    if found is not None and found.epoch == epoch and not found.used:
        _replay(request, state, found)
    elif state.twin.pure:
        state.recording = True


def _replay(request: pytest.FixtureRequest, state: Twins, found: Recording) -> None:
    assert state.twin is not None
    memo: dict[int, Any] = {}
    for name, saved in found.states.items():
        target = request.getfixturevalue(name)
        for item in dataclasses.fields(target):
            setattr(target, item.name, getattr(clone(saved, memo), item.name))
    state.replay = {name: clone(value, memo) for name, value in found.products.items()}
    http = request.getfixturevalue("http")
    for exchange in found.exchanges:
        http.record(exchange, reused=True)
    for note in found.notes:
        http.note(note)
    http.note(f"{TWIN_NOTE}: {found.recorder}")
    meta = request.node.stash[META_KEY]
    isolation(request.config).writer = is_writer(state.twin.tail(meta.steps))
    found.used = not state.twin.pure
    replay_of(request.config).active = True


def pytest_bdd_after_step(
    request: pytest.FixtureRequest,
    feature: Feature,
    scenario: Scenario,
    step: Step,
    step_func: Any,
    step_func_args: dict[str, Any],
) -> None:
    """After the premise's last step: hand on the replayed products, or record the state."""
    state = twins(request.config)
    if state.twin is None or _index(scenario, step) != state.twin.size - 1:
        return
    if state.replay is not None:
        replay_of(request.config).active = False
        for name, value in state.replay.items():
            inject_fixture(request, name, value)
    elif state.recording:
        _record(request, scenario, state)


def _record(request: pytest.FixtureRequest, scenario: Scenario, state: Twins) -> None:
    assert state.twin is not None
    found = (target_fixture(request, step) for step in scenario.steps[: state.twin.size])
    names = {name for name in found if name}
    memo: dict[int, Any] = {}
    http = request.getfixturevalue("http")
    guard = isolation(request.config)
    meta = request.node.stash[META_KEY]
    state.recordings[state.twin.key] = Recording(
        epoch=guard.epoch() + (1 if guard.writer else 0),
        recorder=f"{meta.name} ({meta.feature})",
        states={name: clone(request.getfixturevalue(name), memo) for name in STATE_FIXTURES},
        products={name: clone(request.getfixturevalue(name), memo) for name in sorted(names)},
        exchanges=list(http.exchanges),
        notes=list(http.notes),
    )


def _index(scenario: Scenario, step: Step) -> int:
    return next(i for i, candidate in enumerate(scenario.steps) if candidate is step)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, None]:
    """Never leave a replay switched on past its scenario (a premise step that failed)."""
    try:
        yield
    finally:
        replay_of(item.config).active = False
        state = twins(item.config)
        state.twin, state.recording, state.replay = None, False, None
