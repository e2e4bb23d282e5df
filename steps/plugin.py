"""The suite's pytest plugin (`-p steps.plugin`): options, rule markers, selection, and the
per-scenario results (outcome, redacted evidence, observations) written to results.json.

Results travel on each report's `user_properties`, so they reach the controller intact when
pytest-xdist runs scenarios in workers."""

from __future__ import annotations

import fcntl
import json
import re
import tempfile
import tomllib
from collections.abc import Generator, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pytest_bdd.parser import Feature, Scenario, Step
from pytest_bdd.scenario import scenario_wrapper_template_registry

from steps.catalogue import FEATURES_DIR, LEVELS
from steps.observations import merge_observations
from steps.outcomes import CASCADE, UNCHECKED_OUTCOME, NotChecked
from steps.preflight import PreflightError, run_preflight
from steps.profile import ProfileError
from steps.suite import STATE_KEY, SuiteState, build_state, driver_stats, suite_state
from steps.verdicts import UNCHECKED

pytest_plugins = [
    "steps.isolation",  # first: steps.grants imports it, and a plugin must not be pre-imported
    "steps.fixtures",
    "steps.authorization",
    "steps.token",
    "steps.revocation",
    "steps.userinfo",
    "steps.transport",
    "steps.lifetime",
    "steps.info",
    "steps.capabilities",
]

BINDING = Path(__file__).with_name("test_features.py")
PROPERTY = "mb_oauth_scenario"
META_KEY = pytest.StashKey[dict[str, Any]]()
FAILED_STEP_KEY = pytest.StashKey[str]()
FAILED_TYPE_KEY = pytest.StashKey[str]()
FILTER_KEY = pytest.StashKey[list[Path]]()
MESSAGE_LIMIT = 2000
#: Steps that send the user through the consent page once each.
APPROVAL_STEP = re.compile(
    r"the user (approves|denies) the request|the user opens the authorization page"
    r"|an authorization code issued to|the user has just granted"
)
SHARED_GRANT_STEP = re.compile(r"the user has granted the (.+)")


def pytest_addoption(parser: pytest.Parser) -> None:
    """The suite's options (pytest's own --strict doubles as the suite's strict verdicts)."""
    group = parser.getgroup("mb-oauth", "MusicBrainz OAuth 2.0 conformance suite")
    group.addoption("--profile", help="Deployment profile (TOML) of the target.")
    group.addoption("--target", help="Base URL overriding the profile's base_url.")
    group.addoption("--report-dir", help="Where results.json and the reports go.")
    group.addoption("--level", action="append", choices=LEVELS, help="Run only rules of a level.")
    group.addoption("--rule", action="append", help="Run only scenarios of a rule id (repeatable).")
    group.addoption("--run-slow", action="store_true", help="Run real-time waits (@slow).")
    group.addoption(
        "--run-lasting", action="store_true", help="Run scenarios that change lasting state."
    )
    group.addoption("--min-interval", type=float, help="Seconds between requests (pacing).")
    group.addoption(
        "--no-preflight",
        action="store_true",
        help="Skip the checks of target, TLS, credentials and login (the runner did them).",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Load profile and catalogue, register markers, point collection at the bound features."""
    try:
        state = build_state(config)
    except (ProfileError, tomllib.TOMLDecodeError, OSError) as error:
        raise pytest.UsageError(f"profile {config.getoption('profile')}: {error}") from None
    config.stash[STATE_KEY] = state
    for rule in state.catalogue.values():
        config.addinivalue_line(
            "markers", f"{rule.id}: [{rule.level}, {rule.section}] {rule.title}"
        )
    for level in LEVELS:
        config.addinivalue_line("markers", f"{level}: a rule level of the conformance suite")
    config.addinivalue_line(
        "markers", "slow: waits in real time unless the target has a test clock"
    )
    config.addinivalue_line("markers", "lasting: changes lasting state on the target")
    _redirect_collection(config, state)
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
        pytest.exit(f"setup error: preflight: {error}", returncode=pytest.ExitCode.USAGE_ERROR)


def _redirect_collection(config: pytest.Config, state: SuiteState) -> None:
    """features/ (or a .feature file) on the command line means the binding module; with no
    paths at all and a profile, the whole suite."""
    base = Path(config.invocation_params.dir)
    features = FEATURES_DIR.resolve()
    args: list[str] = []
    filters: list[Path] = []
    for arg in config.args:
        path = (base / arg.split("::", 1)[0]).resolve()
        if path == features or features in path.parents:
            filters.append(path)
            args.append(str(BINDING))
        else:
            args.append(arg)
    if state.profile is not None and config.args_source != pytest.Config.ArgsSource.ARGS:
        args = [str(BINDING)]
    config.args = list(dict.fromkeys(args))
    config.stash[FILTER_KEY] = [] if features in filters else filters


# --- collection ----------------------------------------------------------------------------


def _scenario_of(item: pytest.Item) -> Scenario | None:
    template = scenario_wrapper_template_registry.get(getattr(item, "obj", None))
    if template is None:
        return None
    params = getattr(item, "callspec", None)
    example = params.params.get("_pytest_bdd_example", {}) if params else {}
    return template.render(example)


def _meta(item: pytest.Item, scenario: Scenario, state: SuiteState) -> dict[str, Any]:
    names = {mark.name for mark in item.iter_markers()}
    rules = sorted(names & set(state.catalogue))
    unknown = sorted(n for n in names if re.fullmatch(r"[A-Z][A-Z0-9]*(-[A-Z0-9]+)+", n))
    levels = sorted(names & set(LEVELS))
    return {
        "nodeid": item.nodeid,
        "feature": scenario.feature.name,
        "feature_file": scenario.feature.rel_filename,
        "name": scenario.name,
        "rules": sorted(set(rules) | set(unknown)),
        "level": levels[0] if len(levels) == 1 else ",".join(levels),
        "slow": "slow" in names,
        "lasting": "lasting" in names,
        "steps": [step.name for step in scenario.steps],
    }


def _selected(meta: dict[str, Any], config: pytest.Config) -> bool:
    levels = config.getoption("level")
    rules = config.getoption("rule")
    filters = config.stash.get(FILTER_KEY, [])
    feature_file = (FEATURES_DIR / Path(meta["feature_file"]).name).resolve()
    if filters and not any(f == feature_file or f in feature_file.parents for f in filters):
        return False
    if levels and meta["level"] not in levels:
        return False
    return not rules or bool(set(rules) & set(meta["rules"]))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect by --level/--rule/feature path; skip @slow and @lasting unless asked for."""
    state = suite_state(config)
    kept, dropped = [], []
    for item in items:
        scenario = _scenario_of(item)
        if scenario is None:
            kept.append(item)
            continue
        meta = _meta(item, scenario, state)
        item.stash[META_KEY] = meta
        (kept if _selected(meta, config) else dropped).append(item)
        _skip_unless_asked(item, meta, config, state)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
    state.approvals_estimate = estimate_approvals(
        item.stash[META_KEY] for item in kept if META_KEY in item.stash and not _skipped(item)
    )


def _skip_unless_asked(
    item: pytest.Item, meta: dict[str, Any], config: pytest.Config, state: SuiteState
) -> None:
    clock = state.profile is not None and state.profile.capabilities.test_clock is not None
    if meta["slow"] and not clock and not config.getoption("run_slow"):
        item.add_marker(pytest.mark.skip(reason="waits in real time: needs --run-slow"))
    if meta["lasting"] and not config.getoption("run_lasting"):
        item.add_marker(pytest.mark.skip(reason="changes lasting state: needs --run-lasting"))


def _skipped(item: pytest.Item) -> bool:
    return any(mark.name == "skip" for mark in item.iter_markers())


def estimate_approvals(metas: Iterable[dict[str, Any]]) -> int:
    """Consent-page visits a run needs: one per approving step, one per distinct shared grant."""
    visits = 0
    shared: set[str] = set()
    for meta in metas:
        for step in meta["steps"]:
            if APPROVAL_STEP.search(step):
                visits += 1
            elif match := SHARED_GRANT_STEP.search(step):
                shared.add(match.group(1))
    return visits + len(shared)


# --- running -------------------------------------------------------------------------------


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Start the scenario's evidence; name it as the cause of any cascade it starts."""
    state = suite_state(item.config)
    if META_KEY in item.stash:
        meta = item.stash[META_KEY]
        CASCADE.current = f"{meta['name']} ({meta['feature']})"
    if META_KEY in item.stash and state.http_started:
        state.http().begin()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, None]:
    """Under pytest-xdist, a scenario that moves the target's clock runs alone: it holds an
    exclusive lock that every other scenario takes shared, so no code or token of another
    worker expires halfway through its scenario."""
    workerinput = getattr(item.config, "workerinput", None)
    meta = item.stash.get(META_KEY, None)
    if workerinput is None or meta is None:
        yield
        return
    lock = Path(tempfile.gettempdir()) / f"mb-oauth-clock-{workerinput['testrunuid']}.lock"
    with lock.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX if meta["slow"] else fcntl.LOCK_SH)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def pytest_bdd_step_error(
    request: pytest.FixtureRequest, feature: Feature, scenario: Scenario, step: Step
) -> None:
    """Remember which step failed (and whether it was a Given: a premise), for the result."""
    request.node.stash[FAILED_STEP_KEY] = f"{step.keyword} {step.name}"
    request.node.stash[FAILED_TYPE_KEY] = step.type


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    """Attach the scenario's result payload to the report that decides its outcome; a premise
    that failed turns the report into a skip reading "could not be checked" (for pytest's own
    reports: JUnit, cucumber, terminal), and every text of the report is masked."""
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if META_KEY not in item.stash:
        return
    state = suite_state(item.config)
    if not _decisive(report):
        mask_report(report, state)
        return
    evidence = state.http().evidence() if state.http_started else []
    if state.http_started:
        state.http().begin()
    premise = unchecked_premise(item, report, call)
    message = _message(item, report, call, state)
    payload = {
        **{k: v for k, v in item.stash[META_KEY].items() if k not in ("slow", "lasting", "steps")},
        "when": report.when,
        "message": message,
        "evidence": evidence,
        "observations": state.observations.take_delta(),
    }
    if premise is not None:
        payload |= {"unchecked": True, "cause": _scrub(premise.cause, state)}
        payload["message"] = unchecked_message(message, premise)
        report.outcome = "skipped"
        report.longrepr = (str(item.path), _line(item), payload["message"])
    mask_report(report, state)
    report.user_properties.append((PROPERTY, payload))


def _line(item: pytest.Item) -> int:
    location = item.location
    return (location[1] or 0) + 1


def unchecked_premise(
    item: pytest.Item, report: pytest.TestReport, call: pytest.CallInfo[None]
) -> NotChecked | None:
    """The NotChecked a failed scenario stands for, or None when it is a real failure: a step
    raised NotChecked (anywhere), a Given step raised any error, or a fixture failed (set up
    or torn down: neither says anything about the rule)."""
    if not report.failed or call.excinfo is None:
        return None
    error = call.excinfo.value
    if isinstance(error, NotChecked):
        return error
    if report.when != "call" or item.stash.get(FAILED_TYPE_KEY, "") == "given":
        return NotChecked(call.excinfo.exconly())
    return None


def unchecked_message(message: str, premise: NotChecked) -> str:
    """'could not be checked: <step>: <reason> (caused by: <earlier failure>)'."""
    text = f"{UNCHECKED}: {message or premise.reason}"
    if premise.cause and premise.cause not in text:
        text += f" (caused by: {premise.cause})"
    return text


def _scrub(text: str, state: SuiteState) -> str:
    return state.http().secrets.scrub(text) if state.http_started and text else text


def mask_report(report: pytest.TestReport, state: SuiteState) -> None:
    """Mask every secret the run has seen in the texts pytest writes (terminal, JUnit XML,
    cucumber JSON): a token quoted in an assertion message must not leak from there."""
    if not state.http_started:
        return
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):
        report.longrepr = (longrepr[0], longrepr[1], _scrub(str(longrepr[2]), state))
    elif longrepr is not None:
        text = str(longrepr)
        masked = _scrub(text, state)
        if masked != text:
            report.longrepr = masked
    report.sections = [(name, _scrub(content, state)) for name, content in report.sections]


def _decisive(report: pytest.TestReport) -> bool:
    return report.when == "call" or not report.passed


def _message(
    item: pytest.Item, report: pytest.TestReport, call: pytest.CallInfo[None], state: SuiteState
) -> str:
    if report.skipped:
        longrepr = report.longrepr
        return str(longrepr[2]) if isinstance(longrepr, tuple) else str(longrepr or "")
    if report.passed or call.excinfo is None:
        return ""
    error = call.excinfo.value
    text = error.reason if isinstance(error, NotChecked) else call.excinfo.exconly()
    step = item.stash.get(FAILED_STEP_KEY, "")
    message = f"{step}: {text}" if step else text
    return _scrub(message, state)[:MESSAGE_LIMIT]


# --- results -------------------------------------------------------------------------------


class Results:
    """Per-scenario results and observations, assembled on the controller."""

    def __init__(self) -> None:
        self.started = datetime.now(UTC).isoformat(timespec="seconds")
        self.scenarios: dict[str, dict[str, Any]] = {}
        self.observations: dict[str, Any] = {}

    def add(self, report: pytest.TestReport) -> None:
        """Fold one report's payload into the scenario's entry."""
        payload = next((v for k, v in report.user_properties if k == PROPERTY), None)
        if payload is None:
            return
        entry = self.scenarios.setdefault(report.nodeid, self._entry(payload))
        entry["duration"] += report.duration
        entry["evidence"] += payload["evidence"]
        if not payload.get("unchecked"):  # conclusions only from requests that got through
            merge_observations(self.observations, payload["observations"])
        outcome = "failed" if report.failed else "skipped" if report.skipped else "passed"
        if payload.get("unchecked"):
            outcome = UNCHECKED_OUTCOME
        if entry["outcome"] not in ("failed", UNCHECKED_OUTCOME):
            entry["outcome"], entry["message"] = outcome, payload["message"]
            if payload.get("cause"):
                entry["cause"] = payload["cause"]

    @staticmethod
    def _entry(payload: dict[str, Any]) -> dict[str, Any]:
        keys = ("nodeid", "feature", "name", "rules", "level")
        entry = {k: payload[k] for k in keys}
        return entry | {"outcome": "passed", "message": "", "duration": 0.0, "evidence": []}

    def document(self, state: SuiteState) -> dict[str, Any]:
        """The results.json document of the contract."""
        profile = state.profile
        observations = dict(self.observations)
        observations.setdefault("description", state.observations.data["description"])
        return {
            "target": profile.base_url if profile else None,
            "profile_name": profile.name if profile else None,
            "started": self.started,
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
            "known_deviations": list(profile.known_deviations) if profile else [],
            "scenarios": list(self.scenarios.values()),
            "observations": observations,
            "pacing": pacing(state),
            "consent": consent_stats(state),
        }


def consent_stats(state: SuiteState) -> dict[str, Any]:
    """The consent driver's name and counters (prompts a person answered, ...)."""
    driver = state.consent_driver
    if driver is None:
        return {}
    return {"driver": str(getattr(driver, "name", "?")), **driver_stats(driver)}


def pacing(state: SuiteState) -> dict[str, float]:
    """Seconds the run waited so as not to trip the target's guard, and for its throttling."""
    if not state.http_started:
        return {"failure_budget_wait": 0.0, "throttle_wait": 0.0}
    http = state.http()
    return {
        "failure_budget_wait": round(http.budget.waited, 1),
        "throttle_wait": round(http.throttle.waited, 1),
    }


class ResultsWriter:
    """Collects results (on the controller, also for xdist workers' reports) and writes them."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.results = Results()
        self.is_worker = hasattr(config, "workerinput")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Fold a report into the results."""
        if not self.is_worker:
            self.results.add(report)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """Write results.json and, when the reports module is there, the reports."""
        state = suite_state(self.config)
        state.close()
        report_dir = self.config.getoption("report_dir")
        if self.is_worker or not report_dir:
            return
        directory = Path(report_dir)
        directory.mkdir(parents=True, exist_ok=True)
        results = self.results.document(state)
        text = json.dumps(results, indent=2, ensure_ascii=False) + "\n"
        (directory / "results.json").write_text(text, encoding="utf-8")
        write_reports(directory, results, state, bool(self.config.getini("strict")))


def write_reports(
    directory: Path, results: dict[str, Any], state: SuiteState, strict: bool
) -> None:
    """Hand over to steps.reports (written separately; absent in a partial checkout)."""
    try:
        from steps.reports import write_reports as render
    except ImportError:
        return
    profile = state.profile
    secrets: list[str] = []
    if profile is not None:
        secrets = [c.client_secret for c in profile.clients.values()] + [profile.user.password]
    render(directory, results, state.catalogue, strict, secrets=[s for s in secrets if s])
