"""Rule verdicts and the exit status, from hand-made results (contract: "Rule verdicts")."""

from __future__ import annotations

from typing import Any

import pytest

from steps.reports.verdicts import (
    EXPECTED_FAILURE,
    FAIL,
    NOT_RUN,
    OBSERVED,
    PASS,
    SEEN_IN,
    SKIPPED,
    UNCHECKED,
    UNEXPECTED_PASS,
    WARNING,
    compute_verdicts,
    decide,
    deviation_reasons,
    exit_status,
    section_key,
    summarize,
)

CATALOGUE = {
    "TOKEN-CODE-SINGLE-USE": {"section": "4.2", "level": "spec", "title": "A code works once"},
    "TOKEN-NO-STORE": {"section": "RFC 6749 5.1", "level": "rfc", "title": "no-store"},
    "TOKEN-FORMAT": {"section": "2.3", "level": "info", "title": "Token format"},
    "AUTHZ-STATE-ECHO": {"section": "4.1", "level": "spec", "title": "state comes back"},
    "AUTHZ-STATE-ON-ERROR": {"section": "4.1", "level": "spec", "title": "state on errors"},
    "AUTHZ-ERR-INVALID-SCOPE": {"section": "7.1", "level": "spec", "title": "invalid_scope"},
}


def scenario(rules: list[str], outcome: str, name: str = "s") -> dict[str, Any]:
    return {"nodeid": f"x::{name}", "name": name, "rules": rules, "outcome": outcome}


def verdict_map(scenarios: list[dict[str, Any]], deviations: tuple[str, ...] = ()) -> dict:
    results = {"scenarios": scenarios, "known_deviations": list(deviations)}
    return {v.id: v.verdict for v in compute_verdicts(results, CATALOGUE)}


@pytest.mark.parametrize(
    ("level", "outcomes", "deviation", "expected"),
    [
        ("spec", ["passed", "passed"], False, PASS),
        ("spec", ["passed", "failed"], False, FAIL),
        ("rfc", ["failed"], False, WARNING),
        ("info", ["failed"], False, OBSERVED),
        ("info", ["passed"], False, OBSERVED),
        ("spec", ["skipped", "skipped"], False, SKIPPED),
        ("spec", ["skipped", "passed"], False, PASS),
        ("spec", ["skipped", "failed"], False, FAIL),
        ("spec", ["failed"], True, EXPECTED_FAILURE),
        ("spec", ["passed"], True, UNEXPECTED_PASS),
        ("rfc", ["failed"], True, EXPECTED_FAILURE),
        ("spec", [], False, NOT_RUN),
        ("spec", ["passed", "unchecked"], False, UNCHECKED),
        ("spec", ["unchecked", "failed"], False, FAIL),
        ("rfc", ["unchecked", "failed"], False, WARNING),
        ("rfc", ["unchecked"], False, UNCHECKED),
        ("info", ["unchecked"], False, UNCHECKED),
        ("spec", ["skipped", "unchecked"], False, UNCHECKED),
        ("spec", ["unchecked"], True, UNCHECKED),
        ("spec", ["unchecked", "failed"], True, EXPECTED_FAILURE),
    ],
)
def test_decide(level: str, outcomes: list[str], deviation: bool, expected: str) -> None:
    assert decide(level, outcomes, deviation) == expected


def test_a_rule_fails_if_any_of_its_scenarios_failed() -> None:
    verdicts = verdict_map(
        [
            scenario(["TOKEN-CODE-SINGLE-USE"], "passed", "a"),
            scenario(["TOKEN-CODE-SINGLE-USE", "TOKEN-NO-STORE"], "failed", "b"),
        ]
    )
    assert verdicts["TOKEN-CODE-SINGLE-USE"] == FAIL
    assert verdicts["TOKEN-NO-STORE"] == WARNING
    assert verdicts["AUTHZ-STATE-ECHO"] == NOT_RUN


def test_scenarios_naming_unknown_rules_still_get_a_verdict() -> None:
    results = {"scenarios": [scenario(["NOT-CATALOGUED"], "failed")]}
    verdict = next(v for v in compute_verdicts(results, CATALOGUE) if v.id == "NOT-CATALOGUED")
    assert (verdict.verdict, verdict.in_catalogue) == (FAIL, False)


def test_catalogue_objects_with_attributes_work_like_dicts() -> None:
    class Rule:
        section, level, title = "4.4", "spec", "Revoke answers 200"

    results = {"scenarios": [scenario(["REVOKE-200"], "passed")]}
    (verdict,) = compute_verdicts(results, {"REVOKE-200": Rule()})
    assert (verdict.section, verdict.verdict) == ("4.4", PASS)


@pytest.mark.parametrize(
    ("scenarios", "deviations", "strict", "status"),
    [
        ([scenario(["TOKEN-CODE-SINGLE-USE"], "passed")], (), False, 0),
        ([scenario(["TOKEN-CODE-SINGLE-USE"], "failed")], (), False, 1),
        ([scenario(["TOKEN-CODE-SINGLE-USE"], "failed")], ("TOKEN-CODE-SINGLE-USE",), False, 0),
        ([scenario(["TOKEN-CODE-SINGLE-USE"], "passed")], ("TOKEN-CODE-SINGLE-USE",), False, 0),
        ([scenario(["TOKEN-NO-STORE"], "failed")], (), False, 0),
        ([scenario(["TOKEN-NO-STORE"], "failed")], (), True, 1),
        ([scenario(["TOKEN-NO-STORE"], "failed")], ("TOKEN-NO-STORE",), True, 0),
        ([scenario(["TOKEN-FORMAT"], "failed")], (), True, 0),
        # could not be checked: incomplete (3) unless a spec rule fails (1)
        ([scenario(["TOKEN-CODE-SINGLE-USE"], "unchecked")], (), False, 3),
        ([scenario(["TOKEN-CODE-SINGLE-USE"], "unchecked")], ("TOKEN-CODE-SINGLE-USE",), False, 3),
        (
            [
                scenario(["TOKEN-CODE-SINGLE-USE"], "unchecked"),
                scenario(["AUTHZ-STATE-ECHO"], "failed"),
            ],
            (),
            False,
            1,
        ),
        ([scenario(["TOKEN-NO-STORE"], "unchecked")], (), False, 2),
        (
            [scenario(["TOKEN-NO-STORE"], "unchecked"), scenario(["AUTHZ-STATE-ECHO"], "passed")],
            (),
            False,
            0,
        ),
        (
            [scenario(["TOKEN-NO-STORE"], "unchecked"), scenario(["AUTHZ-STATE-ECHO"], "passed")],
            (),
            True,
            3,
        ),
        # a run that checked nothing conforms to nothing
        ([], (), False, 2),
        ([scenario(["TOKEN-CODE-SINGLE-USE"], "skipped")], (), False, 2),
    ],
)
def test_exit_status(scenarios: list, deviations: tuple, strict: bool, status: int) -> None:
    results = {"scenarios": scenarios, "known_deviations": list(deviations)}
    assert exit_status(compute_verdicts(results, CATALOGUE), strict) == status


def test_summary_counts_every_rule_once() -> None:
    results = {
        "scenarios": [
            scenario(["TOKEN-CODE-SINGLE-USE"], "failed"),
            scenario(["TOKEN-NO-STORE"], "passed"),
            scenario(["TOKEN-FORMAT"], "skipped"),
        ]
    }
    summary = summarize(compute_verdicts(results, CATALOGUE))
    assert summary[FAIL] == 1
    assert summary[PASS] == 1
    assert summary[SKIPPED] == 1
    assert summary[NOT_RUN] == len(CATALOGUE) - 3
    assert summary["total"] == len(CATALOGUE)


def test_sections_sort_naturally_with_rfc_clauses_last() -> None:
    sections = ["RFC 6749 4.1.2", "4.10", "RFC 6750 3", "2.3", "4.2", "RFC 6749 10.5"]
    assert sorted(sections, key=section_key) == [
        "2.3",
        "4.2",
        "4.10",
        "RFC 6749 4.1.2",
        "RFC 6749 10.5",
        "RFC 6750 3",
    ]


def test_known_deviations_keep_their_reasons_in_both_forms() -> None:
    scenarios = [scenario(["AUTHZ-STATE-ECHO"], "failed")]
    table = {"AUTHZ-STATE-ECHO": "the provider drops state"}
    for listed, reason in ((table, "the provider drops state"), (list(table), "")):
        verdicts = compute_verdicts({"scenarios": scenarios, "known_deviations": listed}, CATALOGUE)
        rule = next(v for v in verdicts if v.id == "AUTHZ-STATE-ECHO")
        assert (rule.verdict, rule.deviation_reason) == (EXPECTED_FAILURE, reason)
    assert deviation_reasons({"known_deviations": table}) == table
    assert deviation_reasons({"known_deviations": 5}) == {}


def test_a_defect_a_premise_saw_fails_the_rule_it_names_whatever_that_rules_scenarios_saw() -> None:
    """No defect seen is set aside: "could not be checked, see X" beside a passing X would
    contradict itself, so X fails in that run, with the premise's scenario as its evidence."""
    unchecked = scenario(["AUTHZ-STATE-ON-ERROR"], "unchecked", "c") | {
        "see": "AUTHZ-ERR-INVALID-SCOPE",
        "what": "no error redirect to check the state of: an error page",
    }
    results = {"scenarios": [scenario(["AUTHZ-ERR-INVALID-SCOPE"], "passed", "a"), unchecked]}
    verdicts = {v.id: v for v in compute_verdicts(results, CATALOGUE)}
    assert verdicts["AUTHZ-ERR-INVALID-SCOPE"].verdict == FAIL
    assert verdicts["AUTHZ-STATE-ON-ERROR"].verdict == UNCHECKED
    seen = [s for s in verdicts["AUTHZ-ERR-INVALID-SCOPE"].scenarios if s.outcome == "failed"]
    assert "an error page" in seen[0].message and SEEN_IN in seen[0].name


def test_a_cascade_without_a_named_rule_fails_nothing() -> None:
    results = {"scenarios": [scenario(["TOKEN-NO-STORE"], "unchecked", "c")]}
    verdicts = {v.id: v.verdict for v in compute_verdicts(results, CATALOGUE)}
    assert verdicts["TOKEN-NO-STORE"] == UNCHECKED
    assert FAIL not in verdicts.values()


def test_a_rule_a_known_deviation_keeps_from_being_checked_leaves_the_run_complete() -> None:
    """A deployment that never returns the email cannot show that a token without the email
    scope withholds it: the rule could not be checked because of a declared deviation, which
    the profile owner expects; a rule unchecked for any other reason leaves the run
    incomplete."""
    blocked = scenario(["AUTHZ-STATE-ECHO"], "unchecked", "b") | {"see": "AUTHZ-STATE-ON-ERROR"}
    results = {
        "scenarios": [blocked, scenario(["AUTHZ-STATE-ON-ERROR"], "failed", "f")],
        "known_deviations": ["AUTHZ-STATE-ON-ERROR"],
    }
    verdicts = {v.id: v for v in compute_verdicts(results, CATALOGUE)}
    assert verdicts["AUTHZ-STATE-ECHO"].verdict == UNCHECKED
    assert verdicts["AUTHZ-STATE-ECHO"].blocked_by == ("AUTHZ-STATE-ON-ERROR",)
    assert exit_status(verdicts.values()) == 0
    results["known_deviations"] = []
    assert exit_status(compute_verdicts(results, CATALOGUE)) == 1
    results["scenarios"] = [scenario(["AUTHZ-STATE-ECHO"], "unchecked", "throttled")]
    assert exit_status(compute_verdicts(results, CATALOGUE)) == 3
