"""Fixtures of the suite. The target and the tools that talk to it are built once per run (per
pytest-xdist worker), so TLS connections, the login session and shared grants are reused; the
steps that need several of them take the `target` (steps/scenario/target.py). What a scenario
owns is its `scene`, new for each."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from steps.consent import ConsentDriver, make_driver
from steps.consent.manual import OperatorConsole
from steps.http.layer import HttpLayer
from steps.outcomes import cascade_of
from steps.profiles.profile import RegisteredApp, TargetProfile
from steps.run.approvals import estimate_prompts
from steps.run.suite import SuiteState, suite_state
from steps.scenario.clock import Clock
from steps.scenario.grants import Authorizer, GrantCache
from steps.scenario.observations import Observations
from steps.scenario.scene import AuthRequest, HeldGrant, IssuedCode, Scene
from steps.scenario.service import Service
from steps.scenario.target import Target
from steps.scheduling.isolation import isolation
from steps.scheduling.meta import META_KEY


@pytest.fixture(scope="session")
def suite(pytestconfig: pytest.Config) -> SuiteState:
    """The run's shared state (profile, HTTP layer, observations)."""
    state = suite_state(pytestconfig)
    if state.profile is None:
        pytest.fail("the conformance scenarios need a deployment profile: --profile FILE")
    return state


@pytest.fixture(scope="session")
def profile(suite: SuiteState) -> TargetProfile:
    """The deployment under test."""
    assert suite.profile is not None
    return suite.profile


@pytest.fixture(scope="session")
def http(suite: SuiteState) -> HttpLayer:
    """The recording, pacing HTTP layer."""
    return suite.http()


@pytest.fixture(scope="session")
def observations(suite: SuiteState) -> Observations:
    """Facts observed about the target."""
    return suite.observations


@pytest.fixture(scope="session")
def service(profile: TargetProfile, http: HttpLayer) -> Service:
    """The target's endpoints."""
    return Service(profile, http)


def consent_driver(config: pytest.Config, suite: SuiteState, http: HttpLayer) -> ConsentDriver:
    """The consent driver the profile names, told how many prompts the run is expected to ask
    (for its own way of visiting: whether it reads pages) and, per scenario, the rule it
    serves."""
    assert suite.profile is not None
    capture = config.pluginmanager.getplugin("capturemanager")
    suspend = capture.global_and_fixture_disabled if capture is not None else None
    worker = hasattr(config, "workerinput")
    consent = make_driver(suite.profile, http, OperatorConsole(suspend, worker=worker))
    suite.approvals_estimate = estimate_prompts(suite.run_shapes, pages=consent.observes_pages)
    consent.remaining = suite.approvals_estimate
    consent.expected_prompts = consent.prompts_for(suite.approvals_estimate)
    consent.serving = suite.serving
    suite.consent_driver = consent  # its counters reach the reports
    return consent


class BuiltOnFirstUse:
    """The consent driver, built on the first call; after it the same driver, or the same error
    (as pytest keeps a session fixture's result or error)."""

    def __init__(self, build: Callable[[], ConsentDriver]) -> None:
        self._build = build
        self._driver: ConsentDriver | None = None
        self._error: Exception | None = None

    def __call__(self) -> ConsentDriver:
        if self._error is not None:
            raise self._error
        if self._driver is None:
            try:
                self._driver = self._build()
            except Exception as error:
                self._error = error
                raise
        return self._driver

    def close(self) -> None:
        """Close the driver, if one was built."""
        if self._driver is not None:
            self._driver.close()


@pytest.fixture(scope="session")
def clock(pytestconfig: pytest.Config, profile: TargetProfile, http: HttpLayer) -> Clock:
    """Time on the target (test clock, or real waits with --run-slow)."""
    return Clock(profile, http, real_waits=bool(pytestconfig.getoption("run_slow")))


@pytest.fixture(scope="session")
def target(
    pytestconfig: pytest.Config,
    suite: SuiteState,
    profile: TargetProfile,
    service: Service,
    clock: Clock,
    observations: Observations,
) -> Iterator[Target]:
    """The target as every scenario reaches it; its consent driver is built on first use (a
    manual driver asks a person), and closed at the end of the run."""
    consent = BuiltOnFirstUse(lambda: consent_driver(pytestconfig, suite, service.http))
    yield Target(profile, service, clock, observations, consent)
    consent.close()


@pytest.fixture(scope="session")
def driver(target: Target) -> ConsentDriver:
    """The consent driver the profile names (built on first use)."""
    return target.driver


@pytest.fixture(scope="session")
def authorizer(target: Target) -> Authorizer:
    """Runs authorizations for scenarios that need codes or grants of their own."""
    return Authorizer(target)


@pytest.fixture(scope="session")
def grants(pytestconfig: pytest.Config, authorizer: Authorizer, clock: Clock) -> GrantCache:
    """Grants shared by reader scenarios (steps/scheduling/isolation.py)."""
    return GrantCache(authorizer, clock, isolation(pytestconfig), cascade_of(pytestconfig))


@pytest.fixture
def scenario_rules(request: pytest.FixtureRequest) -> tuple[str, ...]:
    """The rules the running scenario is tagged with (a check fails only for its own)."""
    meta = request.node.stash.get(META_KEY, None)
    return meta.rules if meta is not None else ()


@pytest.fixture
def scenario_steps(request: pytest.FixtureRequest) -> tuple[str, ...]:
    """The running scenario's step texts (a step that visits may depend on what follows)."""
    meta = request.node.stash.get(META_KEY, None)
    return meta.steps if meta is not None else ()


@pytest.fixture
def scene() -> Scene:
    """What the scenario owns: new for each."""
    return Scene()


# --- what a step hands to the steps after it (`target_fixture`); until then: -----------------


@pytest.fixture
def code() -> IssuedCode | None:
    """The code to exchange: none until a Given issues one or the user's visit brings one."""
    return None


@pytest.fixture
def grant() -> HeldGrant:
    """The grant a Given issued."""
    raise AssertionError("no grant from an earlier step")


@pytest.fixture
def auth_request() -> AuthRequest:
    """The authorization request a step started."""
    raise AssertionError("no authorization request was started")


@pytest.fixture
def other_client() -> RegisteredApp:
    """The other application a Given chose."""
    raise AssertionError("no other application chosen by an earlier step")
