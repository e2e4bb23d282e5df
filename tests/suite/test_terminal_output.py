"""What a run prints on the terminal: pytest's progress and the verdicts, not pytest's closing
report. A deployment with known deviations fails dozens of scenarios on purpose; their
tracebacks go to pytest-output.txt (and to the terminal with -v), never between the progress
and the summary by default."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from steps.reports.stream import ProgressOnly
from tests.suite.broken.harness import run_conformance
from tests.suite.target import Target, bundled_target

#: pytest -q's output of a run with one failed scenario, as the runner relays it.
TRANSCRIPT = [
    "bringing up nodes...\n",
    "..F.",
    ".s  [ 50%]\n",
    "\x1b[1m[prompt 3 of about 9: approve] for AUTHZ-STATE-ECHO\x1b[0m\n",
    "..... [100%]\n",
    "\x1b[31m" + "=" * 35 + " FAILURES " + "=" * 35 + "\x1b[0m\n",
    "____________________________ test_state_echo[web] _____________________________\n",
    "E   AssertionError: state came back None\n",
    "---------- generated json file: /tmp/r/cucumber.json -----------\n",
    "=========================== short test summary info ============================\n",
    "FAILED steps/test_features.py::test_state_echo[web] - AssertionError: state\n",
    "1 failed, 8 passed, 1 skipped in 2.61s\n",
]


def test_the_terminal_keeps_the_progress_and_the_questions_and_holds_the_closing_report() -> None:
    out = io.StringIO()
    terminal = ProgressOnly(out)
    for chunk in TRANSCRIPT:
        terminal.write(chunk)
    assert out.getvalue() == "".join(TRANSCRIPT[:5])
    assert "".join(terminal.held) == "".join(TRANSCRIPT[5:])
    assert terminal.failed_scenarios == 1


def test_a_run_without_failures_holds_only_the_count() -> None:
    terminal = ProgressOnly(io.StringIO())
    terminal.write(".... [100%]\n4 passed in 0.50s\n")
    assert terminal.held == ["4 passed in 0.50s\n"] and terminal.failed_scenarios == 0


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    with bundled_target(tmp_path_factory.mktemp("terminal")) as running:
        yield running


def no_oob_profile(target: Target, tmp_path: Path) -> str:
    """The bundled server's profile declaring no out-of-band support: CODE-OOB-SHOWN fails."""
    path = tmp_path / "profile.toml"
    path.write_text(target.profile_path.read_text().replace("oob = true", "oob = false"))
    return str(path)


@pytest.mark.parametrize("verbose", [False, True])
def test_failed_scenarios_tracebacks_reach_the_terminal_only_with_v(
    target: Target, tmp_path: Path, verbose: bool
) -> None:
    args = ["--profile", no_oob_profile(target, tmp_path), "--rule", "CODE-OOB-SHOWN"]
    run = run_conformance([*args, *(["-v"] if verbose else [])], tmp_path / "reports")
    assert run.exit_code == 1, run.output[-3000:]
    log = (tmp_path / "reports" / "pytest-output.txt").read_text()
    assert "FAILED" in log and "declares no out-of-band support" in log
    shown = "FAILED" in run.output or "= FAILURES =" in run.output
    assert shown is verbose, run.output
    assert "FAIL      CODE-OOB-SHOWN" in run.output  # the verdict is there either way
    pointer = "failed scenario(s) are in"
    assert (pointer in run.output) is not verbose
