"""The long checks as tools, in their short modes: tools/soak and tools/stability.

No timing thresholds: the soak must serve without a single error and pass its crash-restart
check; the suite must give every rule the same verdict in two runs in a row.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from stability_lib.compare import Run, broken_runs, unstable_rules

from . import TOOLS_DIR

PROJECT = TOOLS_DIR.parent


def _tool(name: str, *args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOLS_DIR / name), *args],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.mark.slow
def test_soak_short_mode_serves_without_errors_and_survives_a_crash(tmp_path: Path):
    figures_file = tmp_path / "soak.json"
    result = _tool("soak", "--short", "--json", str(figures_file), timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    figures = json.loads(figures_file.read_text())
    assert figures["requests_served"] > 0
    assert figures["errors"] == 0, figures["error_samples"]
    assert figures["crash_restart"]["ok"], figures["crash_restart"]["problems"]
    assert figures["crash_restart"]["tokens_checked"] > 0
    assert figures["server_log_problems"] == []
    for line in ("requests served:", "errors: 0", "latency: p50", "crash-restart check passed"):
        assert line in result.stdout


@pytest.mark.skipif(
    not (PROJECT / "steps" / "runner.py").exists(), reason="steps/runner.py is not written yet"
)
@pytest.mark.slow
def test_conformance_suite_gives_the_same_verdicts_twice(tmp_path: Path):
    outcome_file = tmp_path / "stability.json"
    result = _tool("stability", "--runs", "2", "--json", str(outcome_file), timeout=600)
    outcome = json.loads(outcome_file.read_text()) if outcome_file.exists() else {}
    assert result.returncode == 0, result.stdout + result.stderr
    assert outcome["runs_without_verdicts"] == [] and outcome["rules"] > 0
    assert outcome["unstable"] == [], outcome["unstable"]


def _run(tmp_path: Path, index: int, verdicts: dict[str, str] | None, status: int = 0) -> Run:
    report = tmp_path / f"run-{index}"
    report.mkdir()
    if verdicts is not None:
        rules = [{"id": rule, "verdict": verdict} for rule, verdict in verdicts.items()]
        (report / "verdicts.json").write_text(json.dumps({"rules": rules}))
    return Run.read(index, status, report)


def test_stability_comparison_finds_changed_and_missing_verdicts(tmp_path: Path):
    runs = [
        _run(tmp_path, 0, {"A": "pass", "B": "pass", "C": "warning"}),
        _run(tmp_path, 1, {"A": "pass", "B": "fail", "C": "warning"}, status=1),
        _run(tmp_path, 2, {"A": "pass", "B": "pass"}),
        _run(tmp_path, 3, None, status=2),
    ]
    changed = {u.rule: u.sequence for u in unstable_rules(runs)}
    assert changed == {"B": ("pass", "fail", "pass"), "C": ("warning", "warning", "(no verdict)")}
    assert [run.index for run in broken_runs(runs)] == [3]
    assert unstable_rules(runs[:1] * 3) == []
