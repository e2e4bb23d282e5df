"""The run's results, assembled on the controller from every scenario's payload (also those of
pytest-xdist workers), and written as results.json, the input of every report."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from steps.outcomes import UNCHECKED_OUTCOME
from steps.profiles.profile import TargetProfile
from steps.run.payload import PROPERTY, Evidence, ScenarioPayload
from steps.run.suite import SuiteState, driver_stats, suite_state
from steps.scenario.observations import merge_observations


@dataclass
class ScenarioEntry:
    """A scenario in results.json: its worst outcome over its reports, and all its evidence."""

    nodeid: str
    feature: str
    name: str
    rules: list[str]
    level: str
    outcome: str = "passed"
    message: str = ""
    duration: float = 0.0
    evidence: list[Evidence] = field(default_factory=list)
    #: For an unchecked scenario: the earlier failure it follows from, if known.
    cause: str = ""
    #: Where the scenario read an answer leniently, and which rule judges that.
    notes: list[str] = field(default_factory=list)
    #: Requests it sent.
    requests: int = 0
    #: A premise that did not hold: the rule it names, and what it saw.
    see: str = ""
    what: str = ""

    @classmethod
    def of(cls, payload: ScenarioPayload) -> ScenarioEntry:
        """A new entry named as the payload names its scenario."""
        return cls(payload.nodeid, payload.feature, payload.name, payload.rules, payload.level)

    def to_json(self) -> dict[str, Any]:
        """The entry of results.json (`cause` only when there is one)."""
        entry = asdict(self)
        for optional in ("cause", "notes", "see", "what"):
            if not entry[optional]:
                del entry[optional]
        return entry


@dataclass
class Pacing:
    """Seconds the run waited so as not to trip the target's guard, and for its throttling."""

    failure_budget_wait: float = 0.0
    throttle_wait: float = 0.0

    @classmethod
    def of(cls, state: SuiteState) -> Pacing:
        """The waits of the run's HTTP layer (none before it was used)."""
        if not state.http_started:
            return cls()
        http = state.http()
        return cls(round(http.budget.waited, 1), round(http.throttle.waited, 1))


class Results:
    """Per-scenario results and observations, assembled on the controller."""

    def __init__(self) -> None:
        self.started = datetime.now(UTC).isoformat(timespec="seconds")
        self.scenarios: dict[str, ScenarioEntry] = {}
        self.observations: dict[str, Any] = {}
        #: What the suite kept the deployment from doing, each once (HttpLayer.safety).
        self.safety: list[str] = []

    def add(self, report: pytest.TestReport) -> None:
        """Fold one report's payload into the scenario's entry."""
        wire = next((v for k, v in report.user_properties if k == PROPERTY), None)
        if not isinstance(wire, dict):
            return
        payload = ScenarioPayload.from_wire(wire)
        entry = self.scenarios.setdefault(report.nodeid, ScenarioEntry.of(payload))
        entry.duration += report.duration
        entry.requests += payload.requests
        entry.evidence += payload.evidence
        entry.notes += [n for n in payload.notes if n not in entry.notes]
        self.safety += [line for line in payload.safety if line not in self.safety]
        if not payload.unchecked:  # conclusions only from requests that got through
            merge_observations(self.observations, payload.observations)
        outcome = "failed" if report.failed else "skipped" if report.skipped else "passed"
        if payload.unchecked:
            outcome = UNCHECKED_OUTCOME
        if entry.outcome not in ("failed", UNCHECKED_OUTCOME):
            entry.outcome, entry.message = outcome, payload.message
            if payload.cause:
                entry.cause = payload.cause
            entry.see, entry.what = payload.see, payload.what

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
            "known_deviations": known_deviations(profile),
            "scenarios": [entry.to_json() for entry in self.scenarios.values()],
            "observations": observations,
            "pacing": asdict(Pacing.of(state)),
            "consent": consent_stats(state),
            "safety": self.safety + [s for s in _own_safety(state) if s not in self.safety],
            "prompts_estimate": prompts_estimate(state),
            "requests": sum(entry.requests for entry in self.scenarios.values()),
            "combinations": {
                "mode": state.combinations,
                "not_run": state.product_rows_not_run,
            },
        }


def _own_safety(state: SuiteState) -> list[str]:
    """This process's safety notes (a sequential run's, or the controller's preflight)."""
    return list(state.http().safety) if state.http_started else []


def prompts_estimate(state: SuiteState) -> int | None:
    """The prompts the run expected to ask a person (the driver's count of its visits)."""
    driver, visits = state.consent_driver, state.approvals_estimate
    if driver is None or visits is None:
        return visits
    return int(driver.prompts_for(visits))


def known_deviations(profile: TargetProfile | None) -> dict[str, str]:
    """The profile's known deviations by rule id, each with its reason ("" when none given)."""
    if profile is None:
        return {}
    return {rule: profile.deviation_reasons.get(rule, "") for rule in profile.known_deviations}


def consent_stats(state: SuiteState) -> dict[str, Any]:
    """The consent driver's name and counters (prompts a person answered, ...)."""
    driver = state.consent_driver
    if driver is None:
        return {}
    return {"driver": str(getattr(driver, "name", "?")), **driver_stats(driver)}


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
