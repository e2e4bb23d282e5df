"""tools/bench --short runs end to end and writes a report of the documented shape.

Only the structure is checked: timings on a shared machine are never asserted.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# Runs on one xdist worker (tests/conftest.py, ONE_WORKER): its tests share a module
# fixture, one short benchmark run, that a second worker would only repeat.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "tools" / "bench"
SAMPLE_KEYS = {"rps", "p50_ms", "p99_ms", "p99_over_p50", "errors", "ratio", "repetitions"}


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tuple[dict, str]:
    output = tmp_path_factory.mktemp("bench") / "bench.json"
    result = subprocess.run(
        [sys.executable, str(BENCH), "--short", "--output", str(output)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(output.read_text()), result.stdout


def test_report_header(run) -> None:
    doc, _ = run
    assert doc["format"] == "mb-oauth-bench/1"
    assert doc["mode"] == "short"
    assert doc["machine"]["cpus"] >= 1
    assert set(doc) >= {"server", "scaling", "suite", "kit", "targets", "notes", "elapsed_s"}


def test_server_section(run) -> None:
    doc, stdout = run
    server = doc["server"]
    if shutil.which("wrk") is None and not server["available"]:
        assert server["reason"]
        return
    assert server["available"]
    table = server["keepalive"]["workers_1"]
    assert set(table) == {
        "baseline",
        "baseline_limits",
        "userinfo",
        "refresh",
        "code_exchange",
        "revoke",
    }
    for name, row in table.items():
        assert set(row) >= SAMPLE_KEYS, name
        assert row["requests"] > 0, name
        assert row["rps"] > 0, name
        assert isinstance(row["errors"], int)
        reps = server["settings"]["repetitions"]
        # a baseline run precedes every endpoint run (ratios are taken within those pairs)
        assert len(row["repetitions"]) == (reps * (len(table) - 1) if name == "baseline" else reps)
    assert table["baseline"]["ratio"] == 1.0
    assert all(row["ratio"] > 0 for row in table.values())
    fresh = server["new_connection"].get("workers_1")
    if fresh:  # hey installed
        assert "code_exchange" not in fresh
        assert {"baseline", "userinfo", "refresh", "revoke"} <= set(fresh)
    assert "| endpoint |" in stdout
    assert "POST /oauth2/token code exchange" in stdout


def test_scaling_section(run) -> None:
    scaling = run[0]["scaling"]
    if not scaling["available"]:
        assert scaling["reason"]
        return
    sizes = [row["grants"] for row in scaling["rows"]]
    assert sizes == sorted(sizes) and len(sizes) >= 2
    first = scaling["rows"][0]
    for name in ("refresh", "code_exchange"):
        assert first[name]["p50_ratio_to_smallest"] == 1.0
        assert first[name]["p50_ms"] > 0


def test_suite_and_kit_sections(run) -> None:
    doc, stdout = run
    assert doc["suite"]["available"] is False  # a full conformance run is not part of --short
    assert doc["suite"]["reason"]
    kit = doc["kit"]
    if kit["available"]:
        assert kit["baseline"]["ratio"] == 1.0
        assert kit["help"]["median_ms"] > 0
        assert "max_rss_mb" in kit["login"]
    else:
        assert kit["reason"]
    assert "### Targets" in stdout


def test_targets_are_reported_not_enforced(run) -> None:
    targets = run[0]["targets"]
    names = " ".join(t["target"] for t in targets)
    for word in ("userinfo", "refresh", "code_exchange", "mb-oauth token", "grants"):
        assert word in names
    for target in targets:
        assert set(target) == {"target", "goal", "value", "met"}
        assert target["met"] in (True, False, None)


def test_the_manual_prompts_are_counted() -> None:
    """The bench's manual run (a scripted person answering the `manual` driver) reports its
    count: the runner finds the person's driver in the checkout."""
    sys.path.insert(0, str(ROOT / "tools"))
    from bench_lib import suite

    runner = suite._runner()
    assert runner is not None
    found = suite.manual_prompts(runner)
    assert found.get("manual_prompts", 0) > 0, found
    assert found["manual_prompts"] == sum(found["manual_prompts_by_kind"].values())


def test_bench_pair_reports_each_tree_against_the_first(tmp_path: Path) -> None:
    """tools/bench_pair on this checkout against itself, one round of one endpoint."""
    output = tmp_path / "pair.json"
    trees = ["--tree", f"a={ROOT}", "--tree", f"b={ROOT}"]
    options = ["--rounds", "1", "--endpoint", "revoke", "--output", str(output)]
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "bench_pair"), *trees, *options],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    table = json.loads(output.read_text())["table"]["revoke"]
    assert set(table) == {"a", "b"}
    assert table["a"]["paired_cpu_vs_first"] == 1.0
    assert table["b"]["cpu_us_per_request"] > 0 and table["b"]["errors"] == 0
    assert "| revoke |" in result.stdout
