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


ENDPOINTS = {"baseline", "baseline_limits", "userinfo", "refresh", "code_exchange", "revoke"}
#: With a new connection per request (hey), a code can be exchanged only once: no code exchange.
FRESH_ENDPOINTS = {"baseline", "userinfo", "refresh", "revoke"}


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def server_shape_problems(server: dict) -> list[str]:
    """What is missing or mistyped in the bench's server section. How much load got through
    is never judged: a busy machine may complete no code exchange in a short run (rps 0, no
    ratio), and that is a measurement, not a broken bench."""
    table = server["keepalive"]["workers_1"]
    problems = [] if set(table) == ENDPOINTS else [f"endpoints {sorted(table)}"]
    reps = server["settings"]["repetitions"]
    for name, row in table.items():
        problems += [f"{name}: no {key}" for key in sorted(SAMPLE_KEYS - set(row))]
        if not (isinstance(row.get("requests"), int) and row["requests"] >= 0):
            problems.append(f"{name}: requests {row.get('requests')!r}")
        if not (is_number(row.get("rps")) and row["rps"] >= 0):
            problems.append(f"{name}: rps {row.get('rps')!r}")
        if not isinstance(row.get("errors"), int):
            problems.append(f"{name}: errors {row.get('errors')!r}")
        ratio = row.get("ratio")
        if not (ratio is None or (is_number(ratio) and ratio >= 0)):
            problems.append(f"{name}: ratio {ratio!r}")
        # a baseline run precedes every endpoint run (ratios are taken within those pairs)
        wanted = reps * (len(table) - 1) if name == "baseline" else reps
        if len(row.get("repetitions", ())) != wanted:
            problems.append(f"{name}: {len(row.get('repetitions', ()))} repetitions, not {wanted}")
    if table.get("baseline", {}).get("ratio") != 1.0:
        problems.append("the baseline's ratio is not 1.0")
    fresh = set(server["new_connection"].get("workers_1") or ())  # hey installed
    if fresh and ("code_exchange" in fresh or not fresh >= FRESH_ENDPOINTS):
        problems.append(f"new-connection endpoints {sorted(fresh)}")
    return problems


def test_server_section(run) -> None:
    doc, stdout = run
    server = doc["server"]
    if shutil.which("wrk") is None and not server["available"]:
        assert server["reason"]
        return
    assert server["available"]
    assert server_shape_problems(server) == []
    assert "| endpoint |" in stdout
    assert "POST /oauth2/token code exchange" in stdout


def short_section(reps: int = 1) -> dict:
    """A server section as a short bench writes it, every endpoint's load run through."""

    def row(name: str) -> dict:
        runs = reps * (len(ENDPOINTS) - 1) if name == "baseline" else reps
        sample = {"rps": 900.0, "p50_ms": 1.0, "p99_ms": 3.0, "requests": 900, "errors": 0}
        ratio = 1.0 if name == "baseline" else 0.5
        return {**sample, "p99_over_p50": 3.0, "ratio": ratio, "repetitions": [sample] * runs}

    return {
        "available": True,
        "settings": {"repetitions": reps},
        "keepalive": {"workers_1": {name: row(name) for name in ENDPOINTS}},
        "new_connection": {},
    }


def test_a_short_run_that_got_no_code_exchange_through_has_the_same_shape() -> None:
    """On a busy machine a short bench may complete no code exchange (every pair exhausted
    its codes): the section keeps its shape with rps 0 and no ratio, which is a figure of that
    machine, not a failure of the bench. A section of another shape still fails."""
    server = short_section()
    assert server_shape_problems(server) == []
    row = server["keepalive"]["workers_1"]["code_exchange"]
    row |= {"requests": 0, "rps": 0.0, "ratio": None, "p50_ms": None, "p99_ms": None}
    assert server_shape_problems(server) == []
    del row["ratio"]
    row["requests"] = -1
    assert server_shape_problems(server) == [
        "code_exchange: no ratio",
        "code_exchange: requests -1",
    ]


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
