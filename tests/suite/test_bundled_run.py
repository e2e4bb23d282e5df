"""The whole suite against the bundled server: every rule holds, and the results document is
complete and free of secrets. Also the plugin's selection options."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from steps.profiles.bundled import DEVIATIONS_FILE, bundled_deviations
from steps.rules.catalogue import load_catalogue
from tests.suite.target import Target, bundled_target
from tests.support.matrix_artefact import keep_run

# Runs on one xdist worker (tests/conftest.py, ONE_WORKER): its tests share a module
# fixture, one full suite run, that a second worker would only repeat.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    with bundled_target(tmp_path_factory.mktemp("bundled")) as running:
        yield running


def run_suite(target: Target, report_dir: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    """The suite in a pytest subprocess, as the runner starts it."""
    command = [
        sys.executable, "-m", "pytest", "-p", "steps.plugin", "-q", "-p", "no:cacheprovider",
        f"--profile={target.profile_path}", "--report-dir", str(report_dir), *args,
    ]  # fmt: skip
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    results_file = report_dir / "results.json"
    results = json.loads(results_file.read_text()) if results_file.exists() else {}
    return done.returncode, results, done.stdout + done.stderr


@pytest.fixture(scope="module")
def full_run(target: Target, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    report_dir = tmp_path_factory.mktemp("report")
    status, results, output = run_suite(target, report_dir, "--run-lasting", "steps/")
    keep_run("bundled-server", report_dir)  # a column of the CI's deployment matrix
    # pytest fails the scenarios of rules the server does not meet yet (the reports read them
    # as known deviations); test_every_scenario_passes_... says which failed and why
    assert status == 0 or (status == 1 and bundled_deviations()), output[-3000:]
    results["_text"] = (report_dir / "results.json").read_text()
    return results


def unmet_problems(scenarios: list[dict[str, Any]], pending: set[str]) -> list[str]:
    """Scenarios that did not pass, except those of rules the server does not meet yet
    ("spec first, server later"), and pending rules whose every scenario passes."""
    where = DEVIATIONS_FILE.relative_to(ROOT).as_posix()
    problems = [
        f"{s['nodeid']}: {s['outcome']}: {(s.get('message') or '')[:300]}"
        for s in scenarios
        if s["outcome"] != "passed" and not set(s["rules"]) & pending
    ]
    met = sorted(
        rule
        for rule in pending
        if all(s["outcome"] == "passed" for s in scenarios if rule in s["rules"])
    )
    problems += [
        f"{rule} passes: the bundled server meets it now, so remove it from {where} (and name "
        "it beside the server line that enforces it, and mark the test of that behaviour)"
        for rule in met
    ]
    return problems


def test_every_scenario_passes_against_the_bundled_server(full_run: dict[str, Any]) -> None:
    """Every scenario passes, but those of a rule steps/profiles/bundled_deviations.toml lists
    as not met yet, which must fail (the run reads them as known deviations)."""
    outcomes = {s["nodeid"]: s["outcome"] for s in full_run["scenarios"]}
    assert len(outcomes) > 100
    problems = unmet_problems(full_run["scenarios"], set(bundled_deviations()))
    assert not problems, "\n".join(problems)
    assert set(full_run["known_deviations"]) == set(bundled_deviations())


def test_a_rule_not_met_yet_may_fail_and_must_not_pass() -> None:
    scenarios = [
        {"nodeid": "a", "outcome": "failed", "rules": ["RULE-NEW"], "message": "no scope"},
        {"nodeid": "b", "outcome": "failed", "rules": ["RULE-OLD"], "message": "broken"},
        {"nodeid": "c", "outcome": "passed", "rules": ["RULE-MET"]},
    ]
    problems = unmet_problems(scenarios, {"RULE-NEW", "RULE-MET"})
    assert problems[0] == "b: failed: broken"
    assert problems[1].startswith("RULE-MET passes: the bundled server meets it now, so remove")
    assert "steps/profiles/bundled_deviations.toml" in problems[1] and len(problems) == 2


def test_every_catalogued_rule_was_checked(full_run: dict[str, Any]) -> None:
    checked = {rule for s in full_run["scenarios"] for rule in s["rules"]}
    assert set(load_catalogue()) - checked == set()


def test_results_carry_evidence_with_every_secret_masked(
    full_run: dict[str, Any], target: Target
) -> None:
    scenarios = full_run["scenarios"]
    assert all(
        s["evidence"]
        for s in scenarios
        if s["name"] != "Each registered application has a Client ID of its own"
    )
    text = full_run["_text"]
    for secret in target.secrets():
        assert secret not in text
    assert re.search(r"\*\*\*-[0-9a-f]{4}", text)  # tokens and codes appear masked


def test_the_section_9_description_is_observed(full_run: dict[str, Any]) -> None:
    description = full_run["observations"]["description"]
    assert description == {
        "pkce": True,
        "revocation_endpoint": True,
        "userinfo_post_body": True,
        "token_type_mac": False,
    }
    assert full_run["observations"]["access_token_length"] > 0


def scenarios_of(rules: set[str]) -> list[str]:
    """The names of the scenarios of features/ tagged with any of `rules` (each Examples row
    of an outline its own)."""
    from steps.rules.catalogue import FEATURES_DIR
    from steps.rules.coverage import rendered_scenarios

    return sorted(s.name for s in rendered_scenarios(FEATURES_DIR) if s.tags & rules)


def test_rule_and_level_options_select_scenarios(target: Target, tmp_path: Path) -> None:
    status, results, output = run_suite(
        target, tmp_path, "--rule", "PKCE-S256", "--rule", "USERINFO-QUERY", "steps/"
    )
    assert status == 0, output[-2000:]
    wanted = {"PKCE-S256", "USERINFO-QUERY"}
    assert sorted(s["name"] for s in results["scenarios"]) == scenarios_of(wanted)
    assert {r for s in results["scenarios"] for r in s["rules"]} == wanted
    status, results, _ = run_suite(target, tmp_path, "--level", "info", "features/")
    assert {s["level"] for s in results["scenarios"]} == {"info"}


def test_lasting_scenarios_are_skipped_unless_asked_for(target: Target, tmp_path: Path) -> None:
    status, results, output = run_suite(
        target, tmp_path, "--rule", "REVOKE-MANUAL", "features/revocation.feature"
    )
    assert status == 0, output[-2000:]
    scenarios = results["scenarios"]
    assert len(scenarios) == len(scenarios_of({"REVOKE-MANUAL"})) > 1
    for scenario in scenarios:
        assert scenario["outcome"] == "skipped" and "--run-lasting" in scenario["message"]
