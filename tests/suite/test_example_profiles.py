"""The example profiles a user fills in (steps/profiles/*.example.toml) against the stand-ins of
the two live services: metabrainz.org (the foreign-style provider, tests/suite/foreign/) and
musicbrainz.org (tests/suite/musicbrainz/).

Each example is filled in as docs/checking-a-deployment.md says, with the stand-in's base URL,
CA, account and Client IDs and secrets and nothing else, then run with its command (plus
`--min-interval 0`: the examples pace a live service at one request a second). The run must
end CONFORMS with every rule at its true verdict (`foreign/truth.toml`,
`musicbrainz/expected.toml`), each listed deviation an expected failure; the lists must name
exactly the rules the service breaks; and a run that meets one defect more does not conform."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from steps.profiles.writer import write_profile
from steps.reports import Report, build_report
from steps.rules.catalogue import load_catalogue
from steps.rules.coverage import load_scenarios
from tests.suite.example_profiles import (
    BROKEN,
    FOREIGN_TRUTH,
    MB_EXPECTED,
    TRUTH_FILES,
    example,
    example_file,
    filled_in,
    write_filled_in,
)
from tests.suite.foreign.target import ROOT, foreign_target
from tests.suite.musicbrainz.target import musicbrainz_target
from tests.support.matrix_artefact import keep_run

pytestmark = pytest.mark.slow

CATALOGUE = load_catalogue()
README_RUN = ("--run-lasting", "--min-interval", "0")


def slow_only() -> set[str]:
    """Rules whose every scenario waits for time to pass: skipped without a clock."""
    scenarios = load_scenarios(ROOT / "features")
    rules = {rule for s in scenarios for rule in s.tags if rule in CATALOGUE}
    return {r for r in rules if all("slow" in s.tags for s in scenarios if r in s.tags)}


@dataclass
class Run:
    exit_code: int
    output: str
    verdicts: dict[str, str]
    document: dict[str, Any]
    report_dir: Path
    #: What the stand-in told the operator (ready.json), for the checks of what reports hold.
    ready: dict[str, Any] = field(default_factory=dict)

    def strictly(self) -> Report:
        """The run's verdicts read as `--strict` reads them (rfc warnings fail too)."""
        results = json.loads((self.report_dir / "results.json").read_text())
        return build_report(results, CATALOGUE, strict=True)


def _start(profile: Path, report_dir: Path, *options: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-c", "from steps.runner import main; main()"]
    command += ["--profile", str(profile), "--report-dir", str(report_dir), *options]
    env = os.environ | {"NO_COLOR": "1"}
    return subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )


def _finish(process: subprocess.Popen[str], report_dir: Path) -> Run:
    output, _ = process.communicate(timeout=900)
    verdicts_file = report_dir / "verdicts.json"
    document = json.loads(verdicts_file.read_text()) if verdicts_file.exists() else {}
    verdicts = {rule["id"]: rule["verdict"] for rule in document.get("rules", ())}
    return Run(process.returncode, output, verdicts, document, report_dir)


def _run(profile: Path, report_dir: Path, *options: str) -> Run:
    return _finish(_start(profile, report_dir, *options), report_dir)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Run]]:
    """Both README-following runs at once, each against a stand-in of its own."""
    work = tmp_path_factory.mktemp("examples")
    with ExitStack() as stack:
        meb = stack.enter_context(foreign_target(work / "metabrainz"))
        mb = stack.enter_context(musicbrainz_target(work / "musicbrainz"))
        meb_profile = write_filled_in("metabrainz", meb.ready, work / "metabrainz.toml")
        started = {
            "metabrainz": _start(meb_profile, work / "meb-report", *README_RUN),
            "musicbrainz": _start(mb.profile_path, work / "mb-report", *README_RUN),
        }
        done = {
            "metabrainz": _finish(started["metabrainz"], work / "meb-report"),
            "musicbrainz": _finish(started["musicbrainz"], work / "mb-report"),
        }
        done["musicbrainz"].ready = mb.ready
    keep_run("musicbrainz-stand-in", work / "mb-report")  # a column of CI's matrix
    yield done


def _expected(truth: dict[str, dict[str, str]], listed: set[str]) -> dict[str, str]:
    """The verdict of every rule in a run whose profile lists `listed`."""
    expected = {}
    for rule, spec in CATALOGUE.items():
        verdict = truth.get(rule, {}).get("verdict", "observed" if spec.level == "info" else "pass")
        expected[rule] = "expected failure" if verdict in BROKEN and rule in listed else verdict
    return expected


def _explain(run: Run, rule: str, name: str, expected: str) -> str:
    """A wrong verdict: what the suite said, what the stand-in's truth says, and where."""
    truth = (FOREIGN_TRUTH if name == "metabrainz" else MB_EXPECTED).get(rule)
    said_by = f"{TRUTH_FILES[name]} says {expected!r}"
    if truth is None:
        said_by = (
            f"{TRUTH_FILES[name]} has no entry, so it must pass; if the stand-in breaks it, "
            'add [RULE-ID] verdict = "..." and reason = "..." there'
        )
    entry = next((r for r in run.document.get("rules", ()) if r["id"] == rule), {})
    said = [
        f"{s['name']}: {s['outcome']}: {s.get('message', '')[:300]}"
        for s in entry.get("scenarios", ())
    ]
    return (
        f"{rule}: the suite says {run.verdicts.get(rule)!r}; {said_by}"
        + (f" ({truth['reason']})" if truth else "")
        + "\n  "
        + "\n  ".join(said)
    )


def _assert_verdicts(run: Run, expected: dict[str, str], name: str) -> None:
    """Every rule at its true verdict and the run CONFORMS; a failure names the wrong verdicts
    with what their scenarios said (a run's output alone shows only its last lines), and the
    files to edit."""
    wrong = [r for r, v in expected.items() if run.verdicts.get(r) != v]
    assert not wrong, "\n".join(_explain(run, r, name, expected[r]) for r in wrong)
    failing = run.document.get("failing_rules", [])
    assert not failing, (
        f"the {name} example does not conform: {failing} fail and {example_file(name)} does "
        "not list them under [known_deviations] (each with its reason)"
    )
    assert run.exit_code == 0 and run.document["conclusion"] == "CONFORMS", run.output[-3000:]


# --- README-following runs against the stand-ins ---------------------------------------------


def test_the_metabrainz_example_conforms_with_known_deviations_only(runs: dict[str, Run]) -> None:
    run = runs["metabrainz"]
    expected = _expected(FOREIGN_TRUTH, set(example("metabrainz")["known_deviations"]))
    expected |= dict.fromkeys(slow_only(), "skipped")
    _assert_verdicts(run, expected, "metabrainz")
    reasons = run.document["known_deviations"]
    assert reasons["SCOPE-IDENTIFIERS"].startswith("spec 2.4: five scopes are renamed")
    # The provider's rfc warnings are listed too (AUTHZ-FRAMING among them), and the rules its
    # known deviations keep from being checked leave no run incomplete: --strict CONFORMS too,
    # as the example says.
    strict = run.strictly().document
    assert (strict["failing_rules"], strict["unchecked_rules"]) == ([], [])
    assert strict["conclusion"] == "CONFORMS"
    assert "--strict" in (ROOT / example_file("metabrainz")).read_text()
    # Its dozens of failed scenarios are expected: their tracebacks stay in the log.
    assert not re.search(r"^FAILED |= FAILURES =", run.output, re.M), run.output[:3000]
    assert re.search(r"tracebacks of the \d+ failed scenario\(s\) are in", run.output)


def test_the_musicbrainz_example_conforms_with_known_deviations_only(runs: dict[str, Run]) -> None:
    run = runs["musicbrainz"]
    expected = _expected(MB_EXPECTED, set(example("musicbrainz")["known_deviations"]))
    _assert_verdicts(run, expected, "musicbrainz")
    assert slow_only() == {r for r, e in MB_EXPECTED.items() if e["verdict"] == "skipped"}
    manual = next(r for r in run.document["rules"] if r["id"] == "REVOKE-MANUAL")
    outcomes = {s["name"]: s["outcome"] for s in manual["scenarios"]}
    # revoked by name for each kind of application; not offered once the access token was revoked
    failed = [name for name, outcome in outcomes.items() if outcome == "failed"]
    assert failed == [n for n in outcomes if "after its access token was revoked" in n], outcomes
    assert len(outcomes) - len(failed) >= 1 and set(outcomes.values()) == {"failed", "passed"}


def test_the_musicbrainz_reports_hold_no_secret_of_the_accounts_other_applications(
    runs: dict[str, Run],
) -> None:
    """The applications page lists the Client Secret of every application the account owns;
    the run records that page (the manual revocation), and masks the secrets by their place."""
    run = runs["musicbrainz"]
    others = run.ready["other_client_secrets"]
    results = (run.report_dir / "results.json").read_text()
    assert "/account/applications" in results and "OAuth client secret" in results
    for path in sorted(run.report_dir.iterdir()):
        if path.suffix in (".json", ".html", ".xml", ".txt") and path.name != "profile.toml":
            text = path.read_text(errors="replace")
            assert not [s for s in others if s in text], path.name


# --- one defect more: not CONFORMS -----------------------------------------------------------


def test_a_musicbrainz_org_with_one_more_defect_does_not_conform(tmp_path: Path) -> None:
    with musicbrainz_target(tmp_path, defects=("state-dropped",)) as target:
        rules = ("AUTHZ-STATE-ECHO", "DESKTOP-LOOPBACK-PATH")
        run = _run(target.profile_path, tmp_path / "report", *[f"--rule={r}" for r in rules])
    assert run.exit_code == 1, run.output[-3000:]
    assert {r: run.verdicts[r] for r in rules} == {
        "AUTHZ-STATE-ECHO": "fail",
        "DESKTOP-LOOPBACK-PATH": "expected failure",
    }


def test_a_metabrainz_example_missing_one_deviation_does_not_conform(tmp_path: Path) -> None:
    with foreign_target(tmp_path) as target:
        data = filled_in("metabrainz", target.ready)
        del data["known_deviations"]["REVOKE-EMPTY-200"]
        profile = write_profile(tmp_path / "metabrainz.toml", data)
        rules = ("REVOKE-EMPTY-200", "REVOKE-INVALID-TOKEN-200")
        run = _run(profile, tmp_path / "report", *[f"--rule={r}" for r in rules])
    assert run.exit_code == 1, run.output[-3000:]
    assert {r: run.verdicts[r] for r in rules} == {
        "REVOKE-EMPTY-200": "fail",
        "REVOKE-INVALID-TOKEN-200": "expected failure",
    }
