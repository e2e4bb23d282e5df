"""'Could not be checked' in every report, skip reasons, long bodies, and pytest's own reports
(JUnit XML, cucumber JSON) told which scenarios could not be checked. From hand-made results."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from steps.reports import build_report, write_reports
from steps.reports.description import describe
from steps.reports.junit import JUNIT_TYPE, annotate_pytest_reports
from steps.reports.verdicts import UNCHECKED, compute_verdicts
from steps.run.payload import PROPERTY
from steps.run.results import Results
from steps.run.suite import driver_stats

CATALOGUE = {
    "TOKEN-CODE-SINGLE-USE": {"section": "4.2", "level": "spec", "title": "A code works once"},
    "REVOKE-STATUS-200": {"section": "4.4", "level": "spec", "title": "Revoke answers 200"},
    "TOKEN-NO-STORE": {"section": "RFC 6749 5.1", "level": "rfc", "title": "no-store"},
    "VERSION-PKCE": {"section": "9", "level": "spec", "title": "PKCE is supported"},
}
REASON = "no authorization code for web (profile): the consent page was not found"
CAUSE = "The access token lasts an hour (Token endpoint): " + REASON
SKIP = "waits in real time: needs --run-slow"


def scenario(rule: str, outcome: str, name: str, **extra: Any) -> dict[str, Any]:
    return {
        "nodeid": f"steps/test_features.py::test_{name}",
        "feature": "Token endpoint",
        "name": name.replace("_", " "),
        "rules": [rule],
        "level": CATALOGUE[rule]["level"],
        "outcome": outcome,
        "message": extra.get("message", ""),
        "cause": extra.get("cause", ""),
        "evidence": extra.get("evidence", []),
    }


def results() -> dict[str, Any]:
    unchecked = f"could not be checked: Given the user has granted ...: {REASON}"
    return {
        "target": "https://127.0.0.1:8443",
        "profile_name": "p",
        "scenarios": [
            scenario("TOKEN-CODE-SINGLE-USE", "passed", "a_code_works_once"),
            scenario("REVOKE-STATUS-200", "unchecked", "revoke_answers_200", message=unchecked),
            scenario(
                "REVOKE-STATUS-200",
                "unchecked",
                "revoke_again",
                message=f"could not be checked: {REASON} (caused by: {CAUSE})",
                cause=CAUSE,
            ),
            scenario("TOKEN-NO-STORE", "skipped", "no_store", message=SKIP),
        ],
        "observations": {"description": {}},
    }


def test_unchecked_is_its_own_verdict_and_exit_status_3(tmp_path: Path) -> None:
    report = write_reports(tmp_path, results(), CATALOGUE)
    doc = json.loads((tmp_path / "verdicts.json").read_text())
    by_id = {rule["id"]: rule for rule in doc["rules"]}
    assert by_id["REVOKE-STATUS-200"]["verdict"] == UNCHECKED
    assert (doc["exit_status"], doc["conforms"], report.exit_status) == (3, False, 3)
    assert doc["summary"][UNCHECKED] == 1
    assert doc["unchecked_rules"] == ["REVOKE-STATUS-200"]
    assert doc["failing_rules"] == []
    second = by_id["REVOKE-STATUS-200"]["scenarios"][1]
    assert (second["outcome"], second["cause"]) == ("unchecked", CAUSE)
    assert REASON in second["message"]


def test_the_terminal_never_says_conforms_when_a_spec_rule_was_not_checked() -> None:
    text = build_report(results(), CATALOGUE).summary(colour=False)
    assert "CONFORMS" not in text.replace("DOES NOT CONFORM", "")
    assert "INCOMPLETE" in text.splitlines()[-1] and text.rstrip().endswith("(exit 3)")
    assert "1 could not be checked" in text
    assert "UNCHECKED REVOKE-STATUS-200" in " ".join(text.split())
    assert f"caused by: {CAUSE}"[:80] in text
    assert REASON[:40] in text


def test_skip_reasons_reach_the_terminal_and_verdicts_json(tmp_path: Path) -> None:
    report = write_reports(tmp_path, results(), CATALOGUE)
    assert f"Skipped 1 scenario(s): {SKIP}" in report.summary()
    doc = json.loads((tmp_path / "verdicts.json").read_text())
    assert doc["skip_reasons"] == {SKIP: 1}
    no_store = next(r for r in doc["rules"] if r["id"] == "TOKEN-NO-STORE")
    assert no_store["scenarios"][0]["message"] == SKIP
    assert SKIP in (tmp_path / "report.html").read_text()


def test_the_page_shows_unchecked_scenarios_open_with_reason_and_cause(tmp_path: Path) -> None:
    write_reports(tmp_path, results(), CATALOGUE)
    page = (tmp_path / "report.html").read_text()
    block = page.split('id="REVOKE-STATUS-200" open>', 1)[1].split("</details>", 1)[0]
    assert 'class="v v-could-not-be-checked"' in block
    assert "o-unchecked" in block and REASON in block
    assert "caused by:" in block
    assert "could not be checked completely" in page


def test_a_long_body_shows_start_and_end_and_in_full_when_opened(tmp_path: Path) -> None:
    body = "<html>" + "x" * 9000 + "<p>error: invalid_grant_at_the_end</p></html>"
    exchange = {
        "request": {"method": "POST", "url": "https://t/oauth2/token", "headers": {}, "body": ""},
        "response": {"status": 400, "headers": {}, "body": body},
    }
    data = results()
    data["scenarios"][0] |= {"outcome": "failed", "message": "m", "evidence": [exchange]}
    write_reports(tmp_path, data, CATALOGUE)
    page = (tmp_path / "report.html").read_text()
    block = page.split('id="TOKEN-CODE-SINGLE-USE" open>', 1)[1].split("</details></li>", 1)[0]
    shown, _, full = block.partition("<details>")
    assert "&lt;html&gt;xxx" in shown and "invalid_grant_at_the_end" in shown
    assert "characters left out" in shown
    assert "x" * 9000 in full


def test_the_description_ignores_rules_that_could_not_be_checked() -> None:
    data = {
        "scenarios": [scenario("VERSION-PKCE", "unchecked", "pkce", message="could not be...")],
        "observations": {"description": {}},
    }
    description = describe(data, compute_verdicts(data, CATALOGUE))
    pkce = next(item for item in description["items"] if item["item"] == "pkce")
    assert pkce["follows"] == "undetermined"


def test_junit_and_cucumber_say_could_not_be_checked(tmp_path: Path) -> None:
    message = "could not be checked: Given x: y"
    (tmp_path / "junit.xml").write_text(
        '<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">'
        '<testcase classname="steps.test_features" name="test_revoke_answers_200">'
        f'<skipped type="pytest.skip" message="{message}">f:1: {message}</skipped></testcase>'
        '<testcase classname="steps.test_features" name="test_a_code_works_once"/>'
        "</testsuite></testsuites>"
    )
    steps = [
        {"keyword": "Given", "name": "x", "result": {"status": "skipped", "duration": 1}},
        {"keyword": "Then", "name": "y", "result": {"status": "passed", "duration": 1}},
    ]
    cucumber = [{"elements": [{"id": "test_revoke_answers_200", "steps": steps}]}]
    (tmp_path / "cucumber.json").write_text(json.dumps(cucumber))
    data = results()
    data["scenarios"][1]["message"] = message
    annotate_pytest_reports(tmp_path, data)
    tree = ET.parse(tmp_path / "junit.xml")  # noqa: S314 (our own file)
    cases = {c.get("name"): c for c in tree.iter("testcase")}
    skipped = cases["test_revoke_answers_200"].find("skipped")
    assert skipped is not None and skipped.get("type") == JUNIT_TYPE
    assert skipped.get("message") == message
    assert cases["test_a_code_works_once"].find("skipped") is None
    written = json.loads((tmp_path / "cucumber.json").read_text())
    assert written[0]["elements"][0]["steps"][0]["result"]["error_message"] == message


class FakeReport:
    """What Results.add reads of a pytest report."""

    def __init__(self, outcome: str, payload: dict[str, Any]) -> None:
        self.nodeid = payload["nodeid"]
        self.duration = 0.1
        self.failed, self.skipped = outcome == "failed", outcome == "skipped"
        self.user_properties = [(PROPERTY, payload)]


def payload(name: str, observed: bool, **extra: Any) -> dict[str, Any]:
    return {
        "nodeid": f"x::{name}",
        "feature": "f",
        "name": name,
        "rules": ["VERSION-PKCE"],
        "level": "spec",
        "message": extra.get("message", ""),
        "evidence": [],
        "observations": {"description": {"pkce": observed}},
        **extra,
    }


def test_observations_of_scenarios_that_could_not_be_checked_are_not_used() -> None:
    results = Results()
    unchecked = payload("a", False, unchecked=True, cause="login failed", message="m")
    results.add(FakeReport("skipped", unchecked))
    assert results.scenarios["x::a"].outcome == "unchecked"
    assert results.scenarios["x::a"].cause == "login failed"
    assert results.observations.get("description", {}).get("pkce") is None
    results.add(FakeReport("passed", payload("b", True)))
    assert results.observations["description"]["pkce"] is True


@dataclass
class Stats:
    prompts: int = 23
    approvals: int = 20


class Driver:
    name = "manual"

    def __init__(self, stats: object) -> None:
        self.stats = stats


def test_the_consent_drivers_counters_reach_the_reports(tmp_path: Path) -> None:
    assert driver_stats(Driver(Stats())) == {"prompts": 23, "approvals": 20}
    assert driver_stats(Driver({"prompts": 3})) == {"prompts": 3}
    assert driver_stats(Driver(None)) == {} == driver_stats(object())
    kinds = {"approve": 20, "deny": 1, "open": 2, "revoke": 0}
    data = results() | {"consent": {"driver": "manual", **kinds}}
    report = write_reports(tmp_path, data, CATALOGUE)
    expected = "Prompts to a person (manual driver): 23 (approve 20, deny 1, open 2, revoke 0)"
    assert expected in report.summary()
    doc = json.loads((tmp_path / "verdicts.json").read_text())
    assert doc["consent"]["approve"] == 20
    quiet = results() | {"consent": {"driver": "form"} | dict.fromkeys(kinds, 0)}
    assert "form driver: no person was asked" in write_reports(tmp_path, quiet, CATALOGUE).summary()


def test_what_the_suite_stopped_is_a_line_of_every_report_once(tmp_path: Path) -> None:
    """A browser stopped on its way to another origin (each worker says it again): one line in
    the terminal summary, report.html and verdicts.json."""
    line = "The browser driver stopped a form (username, password) to http://evil.example:80"
    collected = Results()
    for name in ("a", "b"):
        collected.add(FakeReport("passed", payload(name, True, safety=[line])))
    assert collected.safety == [line]
    report = write_reports(tmp_path, results() | {"safety": [line]}, CATALOGUE)
    assert f"Safety: {line}" in report.summary()
    assert line in (tmp_path / "report.html").read_text()
    assert json.loads((tmp_path / "verdicts.json").read_text())["safety"] == [line]
