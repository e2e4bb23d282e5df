"""Throttling is never a verdict: two full runs in a row against one long-running bundled
server (its guard refuses a client after 20 failed attempts a minute) give the same verdicts,
because the suite paces its deliberate failures and waits out any 429 it still meets."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.suite.broken.harness import Run, run_conformance
from tests.suite.target import Target, bundled_target

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    with bundled_target(tmp_path_factory.mktemp("throttled")) as running:
        yield running


def statuses(run: Run) -> list[int]:
    results = json.loads((run.report_dir / "results.json").read_text())
    return [
        exchange["response"]["status"]
        for scenario in results["scenarios"]
        for exchange in scenario["evidence"]
    ]


def profile_without_test_clock(target: Target, path: Path) -> Path:
    """The profile an operator writes: no test clock, so time on the target is real time."""
    text = target.profile_path.read_text(encoding="utf-8")
    assert 'test_clock = "/_test/clock"' in text
    path.write_text(text.replace('test_clock = "/_test/clock"\n', ""), encoding="utf-8")
    return path


def test_a_second_run_in_a_row_gives_the_same_verdicts(target: Target, tmp_path: Path) -> None:
    profile = profile_without_test_clock(target, tmp_path / "profile.toml")
    args = ["--profile", str(profile), "--run-lasting"]
    first = run_conformance(args, tmp_path / "first")
    second = run_conformance(args, tmp_path / "second")
    assert first.exit_code == 0, first.summary()[-3000:]
    assert second.by_rule == first.by_rule, second.summary()[-3000:]
    assert second.exit_code == 0
    assert 429 not in statuses(first) + statuses(second)
    assert second.verdicts["pacing"]["throttle_wait"] == 0
