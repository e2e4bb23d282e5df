"""Rule verdicts from scenario results: the one place that decides pass, fail and exit status.

A scenario can check one rule or several; the report is organised by rule, so every verdict
is derived here from the outcomes of the scenarios tagged with the rule, its level and the
profile's known deviations (contract: "Rule verdicts").
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from steps.outcomes import UNCHECKED_OUTCOME
from steps.reports.premises import SEEN_IN, blocked_by_deviations, seen_defect


class Verdict(StrEnum):
    """A rule's verdict; the value is the word the reports print."""

    PASS = "pass"  # noqa: S105 (a verdict, not a password)
    FAIL = "fail"
    WARNING = "warning"
    OBSERVED = "observed"
    SKIPPED = "skipped"
    EXPECTED_FAILURE = "expected failure"
    UNEXPECTED_PASS = "unexpected pass"  # noqa: S105
    NOT_RUN = "not run"
    #: A scenario of the rule could not establish its premise (setup failed, throttled).
    UNCHECKED = "could not be checked"


PASS, FAIL, WARNING, OBSERVED = Verdict.PASS, Verdict.FAIL, Verdict.WARNING, Verdict.OBSERVED
SKIPPED, NOT_RUN, UNCHECKED = Verdict.SKIPPED, Verdict.NOT_RUN, Verdict.UNCHECKED
EXPECTED_FAILURE, UNEXPECTED_PASS = Verdict.EXPECTED_FAILURE, Verdict.UNEXPECTED_PASS

#: Display order of verdicts (worst first) in summaries.
VERDICT_ORDER = (
    FAIL,
    UNCHECKED,
    WARNING,
    UNEXPECTED_PASS,
    EXPECTED_FAILURE,
    PASS,
    OBSERVED,
    SKIPPED,
    NOT_RUN,
)

LEVELS = ("spec", "rfc", "info")


@dataclass(frozen=True)
class ScenarioResult:
    """One scenario outcome as the plugin recorded it in results.json."""

    name: str
    nodeid: str
    outcome: str
    rules: tuple[str, ...]
    level: str = ""
    feature: str = ""
    message: str = ""
    #: For an unchecked scenario: the earlier failure it follows from (a cascade), if known.
    cause: str = ""
    duration: float = 0.0
    evidence: tuple[dict[str, Any], ...] = ()
    #: How the scenario read answers leniently, and samples it took (steps/http/readers.py).
    notes: tuple[str, ...] = ()
    #: An unchecked scenario's failed premise: the rule that judges it, and what it saw.
    see: str = ""
    what: str = ""

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ScenarioResult:
        """Read a scenario entry leniently: missing optional fields must not break a report."""
        return cls(
            name=str(data.get("name") or data.get("nodeid") or "?"),
            nodeid=str(data.get("nodeid") or ""),
            outcome=str(data.get("outcome") or SKIPPED),
            rules=tuple(str(r) for r in data.get("rules") or ()),
            level=str(data.get("level") or ""),
            feature=str(data.get("feature") or ""),
            message=str(data.get("message") or ""),
            cause=str(data.get("cause") or ""),
            duration=float(data.get("duration") or 0.0),
            evidence=tuple(data.get("evidence") or ()),
            notes=tuple(str(n) for n in data.get("notes") or ()),
            see=str(data.get("see") or ""),
            what=str(data.get("what") or ""),
        )


@dataclass
class RuleVerdict:
    """The verdict on one catalogue rule and the scenarios that produced it."""

    id: str
    section: str
    level: str
    title: str
    verdict: Verdict = NOT_RUN
    scenarios: list[ScenarioResult] = field(default_factory=list)
    known_deviation: bool = False
    in_catalogue: bool = True
    #: The profile's reason for a known deviation ("" when it gave none).
    deviation_reason: str = ""
    #: Known deviations of other rules that are why this one could not be checked (each of its
    #: unchecked scenarios names one): an expected consequence, not an incomplete run.
    blocked_by: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The verdicts.json entry (scenario names and outcomes, no evidence)."""
        return {
            "id": self.id,
            "section": self.section,
            "level": self.level,
            "title": self.title,
            "verdict": str(self.verdict),
            "known_deviation": self.known_deviation,
            **({"blocked_by": list(self.blocked_by)} if self.blocked_by else {}),
            "scenarios": [scenario_json(s) for s in self.scenarios],
        }


def scenario_json(scenario: ScenarioResult) -> dict[str, Any]:
    """A scenario in verdicts.json: why it did not pass (skip reason, what could not be
    checked and its cause, the failure) rides along; evidence stays in results.json."""
    entry: dict[str, Any] = {
        "name": scenario.name,
        "outcome": scenario.outcome,
        "nodeid": scenario.nodeid,
    }
    if scenario.outcome != "passed" and scenario.message:
        entry["message"] = scenario.message
    if scenario.cause:
        entry["cause"] = scenario.cause
    if scenario.notes:
        entry["notes"] = list(scenario.notes)
    return entry


def rule_attr(rule: Any, name: str, default: str = "") -> str:
    """Read a catalogue field whether the catalogue holds objects or plain dicts."""
    value = rule.get(name, default) if isinstance(rule, Mapping) else getattr(rule, name, default)
    return default if value is None else str(value)


def decide(level: str, outcomes: Iterable[str], known_deviation: bool) -> Verdict:
    """Verdict for one rule from its scenario outcomes, in the contract's order: a real failure
    (a Then step failed) first, then a premise that could not be established, then skips."""
    outcomes = list(outcomes)
    if not outcomes:
        return NOT_RUN
    failed = any(o in ("failed", "error") for o in outcomes)
    if failed:
        if level == "info":
            return OBSERVED
        if known_deviation:
            return EXPECTED_FAILURE
        return FAIL if level == "spec" else WARNING
    if UNCHECKED_OUTCOME in outcomes:
        return UNCHECKED
    if all(o == "skipped" for o in outcomes):
        return SKIPPED
    if level == "info":
        return OBSERVED
    return UNEXPECTED_PASS if known_deviation else PASS


def deviation_reasons(results: Mapping[str, Any]) -> dict[str, str]:
    """The run's known deviations by rule id with their reasons: results.json holds a table of
    id = reason, or (older runs) a list of ids."""
    listed = results.get("known_deviations") or ()
    if isinstance(listed, Mapping):
        return {str(rule): str(why or "") for rule, why in listed.items()}
    return {str(rule): "" for rule in listed} if isinstance(listed, list | tuple) else {}


def compute_verdicts(results: Mapping[str, Any], catalogue: Mapping[str, Any]) -> list[RuleVerdict]:
    """One verdict per catalogue rule (plus any rule a scenario names that is not catalogued)."""
    deviations = deviation_reasons(results)
    verdicts = {
        rule_id: RuleVerdict(
            id=rule_id,
            section=rule_attr(rule, "section", "?"),
            level=rule_attr(rule, "level", "spec"),
            title=rule_attr(rule, "title"),
        )
        for rule_id, rule in catalogue.items()
    }
    for raw in results.get("scenarios") or ():
        scenario = ScenarioResult.from_json(raw)
        for rule_id in scenario.rules:
            if rule_id not in verdicts:
                verdicts[rule_id] = RuleVerdict(
                    id=rule_id,
                    section="?",
                    level=scenario.level or "spec",
                    title="(not in the rule catalogue)",
                    in_catalogue=False,
                )
            verdicts[rule_id].scenarios.append(scenario)
        if scenario.outcome == UNCHECKED_OUTCOME and scenario.see in verdicts:
            verdicts[scenario.see].scenarios.append(seen_defect(scenario))
    for verdict in verdicts.values():
        verdict.known_deviation = verdict.id in deviations
        verdict.deviation_reason = deviations.get(verdict.id, "")
        verdict.verdict = decide(
            verdict.level, (s.outcome for s in verdict.scenarios), verdict.known_deviation
        )
        if verdict.verdict == UNCHECKED:
            verdict.blocked_by = blocked_by_deviations(verdict.scenarios, deviations)
    return sorted(verdicts.values(), key=lambda v: (section_key(v.section), v.id))


def section_key(section: str) -> tuple[Any, ...]:
    """Natural order: spec sections by number first, then RFC clauses by RFC and clause."""
    parts = tuple(
        (0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.findall(r"\d+|[^\d\s.]+", section)
    )
    is_rfc = section.strip().upper().startswith("RFC")
    return (1 if is_rfc else 0, *parts)


def summarize(verdicts: Iterable[RuleVerdict]) -> dict[str, int]:
    """Counts per verdict (every verdict key present, so readers need no defaults)."""
    counts = Counter(v.verdict for v in verdicts)
    summary: dict[str, int] = {str(name): counts.get(name, 0) for name in VERDICT_ORDER}
    summary["total"] = sum(counts.values())
    return summary


def failing_rules(verdicts: Iterable[RuleVerdict], strict: bool = False) -> list[RuleVerdict]:
    """Rules that make the run non-conforming: spec failures, and rfc warnings when strict."""
    bad = {FAIL, WARNING} if strict else {FAIL}
    return [v for v in verdicts if v.verdict in bad]


def unchecked_rules(verdicts: Iterable[RuleVerdict], strict: bool = False) -> list[RuleVerdict]:
    """Rules that would decide conformance but could not be checked (spec; rfc too if strict)."""
    levels = {"spec", "rfc"} if strict else {"spec"}
    return [
        v for v in verdicts if v.verdict == UNCHECKED and v.level in levels and not v.blocked_by
    ]


#: Exit statuses of mb-oauth-conformance.
CONFORMS, DOES_NOT_CONFORM, SETUP_ERROR, INCOMPLETE = 0, 1, 2, 3
CHECKED = {PASS, FAIL, WARNING, OBSERVED, EXPECTED_FAILURE, UNEXPECTED_PASS}


def nothing_checked(verdicts: Iterable[RuleVerdict]) -> bool:
    """True when no rule was checked (all skipped, not run or unchecked): conforms to nothing."""
    return not any(v.verdict in CHECKED for v in verdicts)


def exit_status(verdicts: Iterable[RuleVerdict], strict: bool = False) -> int:
    """1 some spec rule fails (--strict: or an rfc rule warns); else 3 when one could not be
    checked; 2 when nothing at all was checked; 0 when every spec rule passes or is an
    expected failure."""
    verdicts = list(verdicts)
    if failing_rules(verdicts, strict):
        return DOES_NOT_CONFORM
    if unchecked_rules(verdicts, strict):
        return INCOMPLETE
    if nothing_checked(verdicts):
        return SETUP_ERROR
    return CONFORMS


#: What each exit status says, in the words of the terminal's closing line.
CONCLUSIONS = {
    CONFORMS: "CONFORMS",
    DOES_NOT_CONFORM: "DOES NOT CONFORM",
    SETUP_ERROR: "NOTHING CHECKED",
    INCOMPLETE: "INCOMPLETE (some spec rules could not be checked)",
}
