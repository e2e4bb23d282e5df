"""Setup mistakes are exit 2 with one line, before any scenario; premises that fail are "could
not be checked" (exit 3) in every report; a selection that checks nothing never conforms;
secrets quoted in assertion messages never reach a report. Against a bundled server of its own
through `mb-oauth-conformance`, with deliberately broken profiles."""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import certifi
import pytest

from reference_server.app import DATABASE_NAME
from steps.http.layer import HttpLayer
from steps.reports.junit import JUNIT_TYPE
from steps.reports.verdicts import UNCHECKED
from tests.suite.broken.harness import Run, run_conformance
from tests.suite.target import Target, bundled_target, profile_text

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    with bundled_target(tmp_path_factory.mktemp("setup-errors")) as running:
        yield running


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def profile(target: Target, tmp_path: Path, **changes: str) -> Path:
    """The target's profile with text replaced (old=new pairs given as keyword values)."""
    text = target.profile_path.read_text(encoding="utf-8")
    for old, new in changes.values():  # type: ignore[misc]
        assert old in text
        text = text.replace(old, new)
    return write(tmp_path / "profile.toml", text)


def setup_error(run: Run, *expected: str) -> str:
    """The run stopped with exit 2 and one error line naming what to fix, and no verdicts."""
    errors = [line for line in run.output.splitlines() if line.startswith("Error:")]
    assert run.exit_code == 2, run.output[-3000:]
    assert len(errors) == 1, run.output[-3000:]
    assert "Traceback" not in run.output
    assert not (run.report_dir / "verdicts.json").exists()
    for words in expected:
        assert words in errors[0], errors[0]
    return errors[0]


def login_failures(target: Target) -> int:
    """The guard's count of failed logins for alice, over every source address (the guard keys
    failures by address and name)."""
    database = sqlite3.connect(target.server.data_dir / DATABASE_NAME)
    with database:
        (count,) = database.execute(
            "SELECT COALESCE(SUM(failures), 0) FROM throttle WHERE key LIKE '% user:alice'"
        ).fetchone()
    database.close()
    return int(count)


def new_failures(before: int, after: int) -> int:
    """Failed logins between two readings."""
    return after - before


def test_a_wrong_password_is_tried_once_and_stops_the_run(target: Target, tmp_path: Path) -> None:
    before = login_failures(target)
    wrong = profile(target, tmp_path, pw=(target.password, target.password + "x"))
    run = run_conformance(["--profile", str(wrong)], tmp_path / "reports")
    setup_error(run, "preflight", "'alice' cannot log in", "password")
    assert new_failures(before, login_failures(target)) == 1


def test_a_wrong_client_secret_stops_the_run(target: Target, tmp_path: Path) -> None:
    secret = target.clients["other_web"]["client_secret"]
    wrong = profile(target, tmp_path, s=(secret, secret[:-1] + ("A" if secret[-1] != "A" else "B")))
    run = run_conformance(["--profile", str(wrong)], tmp_path / "reports")
    setup_error(run, "refused the credentials of [clients.other_web]", "client_secret")


def test_a_missing_ca_file_stops_the_run(target: Target, tmp_path: Path) -> None:
    missing = tmp_path / "no-such-ca.pem"
    broken = profile(target, tmp_path, ca=(str(target.server.ca_file), str(missing)))
    run = run_conformance(["--profile", str(broken)], tmp_path / "reports")
    setup_error(run, f"ca_file {missing} does not exist")


def test_a_certificate_the_ca_file_does_not_sign_stops_the_run(
    target: Target, tmp_path: Path
) -> None:
    broken = profile(target, tmp_path, ca=(str(target.server.ca_file), certifi.where()))
    run = run_conformance(["--profile", str(broken)], tmp_path / "reports")
    setup_error(run, "TLS certificate", "does not verify", "ca_file")


def test_a_wrong_base_url_stops_the_run(target: Target, tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"https://127.0.0.1:{probe.getsockname()[1]}"
    run = run_conformance(
        ["--profile", str(target.profile_path), "--target", closed], tmp_path / "reports"
    )
    setup_error(run, f"cannot reach {closed}", "base_url")


def test_a_driver_that_cannot_be_imported_stops_the_run(target: Target, tmp_path: Path) -> None:
    text = profile_text(
        target.server, target.password, target.clients, driver="no_such_package.driver:make"
    )
    run = run_conformance(
        ["--profile", str(write(tmp_path / "p.toml", text))], tmp_path / "reports"
    )
    setup_error(run, "consent driver 'no_such_package.driver:make' cannot be loaded")


def test_a_profile_that_cannot_load_stops_the_run(target: Target, tmp_path: Path) -> None:
    broken = profile(target, tmp_path, user=('username = "alice"', ""))
    run = run_conformance(["--profile", str(broken)], tmp_path / "reports")
    assert run.exit_code == 2 and "lacks [user] username" in run.output
    assert "Traceback" not in run.output


@pytest.mark.parametrize("tags", ["no_such_tag", "spec and ("])
def test_a_selection_of_nothing_is_exit_2_and_never_conforms(
    target: Target, tmp_path: Path, tags: str
) -> None:
    run = run_conformance(
        ["--profile", str(target.profile_path), "--tags", tags], tmp_path / "reports"
    )
    assert run.exit_code == 2, run.output[-2000:]
    assert "CONFORMS" not in run.output
    assert "no scenario selected" in run.output or "bad selection" in run.output
    verdicts = tmp_path / "reports" / "verdicts.json"
    assert not verdicts.exists() or json.loads(verdicts.read_text())["conforms"] is False


def test_a_run_whose_every_scenario_was_skipped_checked_nothing(
    target: Target, tmp_path: Path
) -> None:
    run = run_conformance(
        ["--profile", str(target.profile_path), "--rule", "REVOKE-MANUAL"], tmp_path / "reports"
    )
    assert run.exit_code == 2, run.output[-2000:]
    assert "needs --run-lasting" in run.summary()
    assert "NOTHING CHECKED" in run.summary().splitlines()[-1]
    assert run.verdicts["conforms"] is False
    assert any("--run-lasting" in reason for reason in run.verdicts["skip_reasons"])


def test_a_premise_that_fails_is_could_not_be_checked_in_every_report(
    target: Target, tmp_path: Path
) -> None:
    text = target.profile_path.read_text() + '[scopes]\nprofile = "no-such-scope"\n'
    rules = ["TOKEN-TYPE-BEARER", "TOKEN-EXPIRES-IN-3600"]
    args = ["--profile", str(write(tmp_path / "p.toml", text))]
    run = run_conformance([*args, *(f"--rule={rule}" for rule in rules)], tmp_path / "reports")
    assert {run.by_rule[rule] for rule in rules} == {UNCHECKED}, run.output[-3000:]
    # what the premise saw is the fail of the rule it names, selected or not (none set aside)
    seen = {rule for rule, verdict in run.by_rule.items() if verdict == "fail"}
    assert seen and not seen & set(rules), run.output[-3000:]
    assert run.exit_code == 1, run.output[-3000:]
    assert run.verdicts["conforms"] is False
    assert run.verdicts["summary"][UNCHECKED] == 2
    assert "DOES NOT CONFORM" in run.summary().splitlines()[-1]
    junit = ET.parse(run.report_dir / "junit.xml")  # noqa: S314 (written by this run)
    unchecked = [s for s in json.loads((run.report_dir / "results.json").read_text())["scenarios"]]
    assert {s["outcome"] for s in unchecked} == {"unchecked"}
    assert all("no authorization code" in s["message"] for s in unchecked)  # the premise's word
    skipped = [case.find("skipped") for case in junit.iter("testcase")]
    assert [s.get("type") for s in skipped if s is not None] == [JUNIT_TYPE] * len(unchecked)
    assert not list(junit.iter("failure"))
    cucumber = json.loads((run.report_dir / "cucumber.json").read_text())
    messages = [
        step["result"].get("error_message", "")
        for feature in cucumber
        for element in feature["elements"]
        for step in element["steps"]
    ]
    assert sum(m.startswith("could not be checked") for m in messages) == len(unchecked)
    assert "could not be checked" in (run.report_dir / "report.html").read_text()


def test_a_live_token_in_an_assertion_message_reaches_no_report(
    target: Target, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    leak = tmp_path / "leaked-token.txt"
    monkeypatch.setenv("MB_OAUTH_LEAK_FILE", str(leak))
    reports = tmp_path / "reports"
    args = ["--profile", str(target.profile_path), "--rule", "TOKEN-TYPE-BEARER"]
    args += ["--report-dir", str(reports), "--", "-p", "tests.suite.plugins.leak"]
    run = run_conformance(args, reports)  # its own --report-dir comes after `--`: ignored
    assert run.exit_code == 1, run.output[-3000:]
    token = leak.read_text()
    assert len(token) >= 16
    files = sorted(p.name for p in run.report_dir.iterdir())
    assert {"pytest-output.txt", "junit.xml", "cucumber.json", "results.json"} <= set(files)
    for path in run.report_dir.iterdir():
        if path.name != "profile.toml":
            assert token not in path.read_text(errors="replace"), path.name
    assert token not in run.output
    assert "still works after its code was replayed" in (run.report_dir / "junit.xml").read_text()


def test_the_api_client_sends_no_cookie_back(target: Target) -> None:
    http = HttpLayer(str(target.server.ca_file))
    try:
        login = http.request("GET", target.server.url("/login"))
        assert "set-cookie" in login.headers  # the target hands out a session cookie
        http.request("POST", target.server.url("/oauth2/token"), data={"grant_type": "x"})
    finally:
        http.close()
    sent = {name.lower() for name, _ in http.exchanges[-1].request_headers}
    assert "cookie" not in sent


def pytest_direct(profile_path: Path, report_dir: Path) -> subprocess.CompletedProcess[str]:
    """The suite run by pytest itself (no runner): the plugin checks the same things."""
    command = [
        sys.executable, "-m", "pytest", "-p", "steps.plugin", "-q", "-p", "no:cacheprovider",
        f"--profile={profile_path}", "--report-dir", str(report_dir), "steps/",
    ]  # fmt: skip
    return subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )


def test_pytest_alone_runs_the_preflight_too(target: Target, tmp_path: Path) -> None:
    wrong = profile(target, tmp_path, pw=(target.password, target.password + "x"))
    before = login_failures(target)
    done = pytest_direct(wrong, tmp_path / "reports")
    assert done.returncode == 4, done.stdout[-2000:]
    assert "setup error: preflight: the user 'alice' cannot log in" in done.stdout + done.stderr
    assert new_failures(before, login_failures(target)) == 1
    assert not (tmp_path / "reports" / "results.json").exists()


def test_pytest_alone_says_what_is_wrong_with_a_profile(target: Target, tmp_path: Path) -> None:
    broken = profile(target, tmp_path, user=('username = "alice"', ""))
    done = pytest_direct(broken, tmp_path / "reports")
    assert done.returncode == 4
    assert "lacks [user] username" in done.stderr and "Traceback" not in done.stderr


def test_a_fixture_that_fails_makes_its_scenarios_unchecked_not_failed(
    target: Target, tmp_path: Path
) -> None:
    text = profile_text(target.server, target.password, target.clients, driver="no_such.mod:make")
    reports = tmp_path / "reports"
    command = [
        sys.executable, "-m", "pytest", "-p", "steps.plugin", "-q", "-p", "no:cacheprovider",
        f"--profile={write(tmp_path / 'p.toml', text)}", "--report-dir", str(reports),
        "--no-preflight", "--rule", "TOKEN-TYPE-BEARER", "steps/",
    ]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:]  # skipped, not failed
    scenarios = json.loads((reports / "results.json").read_text())["scenarios"]
    assert scenarios  # one per kind of grant
    for scenario in scenarios:
        assert scenario["outcome"] == "unchecked"
        assert "No module named 'no_such'" in scenario["message"]
        assert scenario["message"].startswith("could not be checked")


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ("failures_per_minute = ", "min_intervall = 1\nfailures_per_minute = ", ("min_intervall",)),
        ("failures_per_minute = ", "failures_per_minut = ", ("failures_per_minut", "known:")),
        ("oob = true", "ob = true", ("[capabilities]: ob", "known: test_clock, oob")),
    ],
)
def test_a_typo_in_the_profile_stops_the_run_and_lists_the_known_keys(
    target: Target, tmp_path: Path, old: str, new: str, words: tuple[str, ...]
) -> None:
    """Each of these once ran to CONFORMS, the typo ignored."""
    broken = profile(target, tmp_path, typo=(old, new))
    run = run_conformance(["--profile", str(broken)], tmp_path / "reports")
    setup_error(run, "unknown key", *words)


def test_a_plain_http_base_url_is_a_setup_error_that_says_https(
    target: Target, tmp_path: Path
) -> None:
    broken = profile(target, tmp_path, scheme=('base_url = "https://', 'base_url = "http://'))
    run = run_conformance(["--profile", str(broken)], tmp_path / "reports")
    setup_error(run, "HTTPS-only", "https://")
