"""A scenario's result as it leaves the process that ran it: outcome, masked message, evidence
and observations, on the report's `user_properties` (plain data there, so pytest-xdist carries
it from a worker to the controller). A premise that failed turns the report into a skip that
reads "could not be checked".

Whatever the deployment sent reaches these texts (an assertion message quoting an answer,
pytest's diff of two values, a page in the evidence): each is masked, then its control and
bidirectional characters are shown escaped (steps/safety/text.py), here, before pytest's
terminal, JUnit XML, cucumber JSON or any report sees them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import pytest

from steps.outcomes import NotChecked, PremiseFailed
from steps.reports.verdicts import UNCHECKED
from steps.run.suite import SuiteState
from steps.safety.text import shown, shown_tree
from steps.scheduling.meta import ScenarioMeta

PROPERTY = "mb_oauth_scenario"
FAILED_STEP_KEY = pytest.StashKey[str]()
FAILED_TYPE_KEY = pytest.StashKey[str]()
MESSAGE_LIMIT = 2000
#: A redacted exchange as results.json holds it (see steps.http.evidence.Exchange.redacted).
Evidence = dict[str, Any]


@dataclass
class ScenarioPayload:
    """One decisive report of a scenario (its call, or a setup or teardown that failed)."""

    nodeid: str
    feature: str
    name: str
    rules: list[str]
    level: str
    message: str
    evidence: list[Evidence]
    #: Observations made during the scenario (steps.scenario.observations, JSON-shaped).
    observations: dict[str, Any]
    feature_file: str = ""
    when: str = "call"
    unchecked: bool = False
    cause: str = ""
    #: Where the scenario read an answer leniently, and which rule judges that (readers.py).
    notes: list[str] = field(default_factory=list)
    #: Requests it sent (its share of what the run cost the target).
    requests: int = 0
    #: A premise that did not hold: the rule it names as judging the defect, and what it saw
    #: (that rule fails on it: verdicts.py).
    see: str = ""
    what: str = ""
    #: The run's safety notes so far in this process (HttpLayer.safety): what the suite kept
    #: the deployment from doing; the controller keeps each once.
    safety: list[str] = field(default_factory=list)

    def to_wire(self) -> dict[str, Any]:
        """Plain data for the report's user_properties."""
        return asdict(self)

    @classmethod
    def from_wire(cls, data: Mapping[str, Any]) -> ScenarioPayload:
        """Read it back (on the controller)."""
        fields = cls.__dataclass_fields__
        return cls(**{k: v for k, v in data.items() if k in fields})

    @classmethod
    def of(
        cls,
        meta: ScenarioMeta,
        when: str,
        message: str,
        evidence: list[Evidence],
        observations: dict[str, Any],
    ) -> ScenarioPayload:
        """The payload of a scenario's report."""
        return cls(
            nodeid=meta.nodeid,
            feature=meta.feature,
            name=meta.name,
            rules=list(meta.rules),
            level=meta.level,
            message=message,
            evidence=evidence,
            observations=observations,
            feature_file=meta.feature_file,
            when=when,
        )


def attach(
    item: pytest.Item,
    report: pytest.TestReport,
    call: pytest.CallInfo[None],
    meta: ScenarioMeta,
    state: SuiteState,
) -> None:
    """Attach the scenario's payload to the report that decides its outcome; mask the report."""
    if not _decisive(report):
        mask_report(report, state)
        return
    evidence = state.http().evidence() if state.http_started else []
    notes = state.http().scenario_notes() if state.http_started else []
    sent = state.http().sent_in_scenario if state.http_started else 0
    if state.http_started:
        state.http().begin()
    premise = unchecked_premise(item, report, call)
    payload = ScenarioPayload.of(
        meta,
        report.when,
        _message(item, report, call, state),
        evidence,
        state.observations.take_delta(),
    )
    payload.notes = notes
    payload.requests = sent
    payload.safety = list(state.http().safety) if state.http_started else []
    if premise is not None:
        payload.unchecked, payload.cause = True, _scrub(premise.cause, state)
        if isinstance(premise, PremiseFailed) and premise.see and not premise.cause:
            payload.see, payload.what = premise.see, _scrub(premise.what, state)
        payload.message = unchecked_message(payload.message, premise)
        report.outcome = "skipped"
        report.longrepr = (str(item.path), (item.location[1] or 0) + 1, payload.message)
    mask_report(report, state)
    report.user_properties.append((PROPERTY, shown_tree(payload.to_wire())))


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


def mask_report(report: pytest.TestReport, state: SuiteState) -> None:
    """Mask every secret the run has seen in the texts pytest writes (terminal, JUnit XML,
    cucumber JSON), and show their control characters escaped: a token quoted in an assertion
    message must not leak from there, nor an escape sequence of the deployment's act there."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):
        report.longrepr = (longrepr[0], longrepr[1], _safe(str(longrepr[2]), state))
    elif longrepr is not None:
        text = str(longrepr)
        safe = _safe(text, state)
        if safe != text:
            report.longrepr = safe
    report.sections = [(name, _safe(content, state)) for name, content in report.sections]


def _safe(text: str, state: SuiteState) -> str:
    return shown(_scrub(text, state))


def _scrub(text: str, state: SuiteState) -> str:
    return state.http().redactor.scrub(text) if state.http_started and text else text


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
