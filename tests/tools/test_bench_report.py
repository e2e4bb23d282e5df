"""The bench's targets and table, from reports of a known shape (no benchmark is run)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

from bench_lib import report

ENDPOINTS = ("baseline", "baseline_limits", "userinfo", "refresh", "code_exchange", "revoke")


def _table(rps: float, *, p99_over_p50: float = 2.0, errors: int = 0) -> dict:
    return {
        name: {
            "rps": rps * (1.0 if name.startswith("baseline") else 0.5),
            "ratio": 1.0 if name.startswith("baseline") else 0.5,
            "cpu_ratio": 1.0 if name.startswith("baseline") else 0.7,
            "p99_over_p50": p99_over_p50,
            "errors": errors,
        }
        for name in ENDPOINTS
    }


def _doc(one: dict, two: dict | None) -> dict:
    keep = {"workers_1": one} | ({"workers_2": two} if two is not None else {})
    return {"server": {"available": True, "keepalive": keep}, "kit": {}, "scaling": {}}


def _by_name(doc: dict) -> dict[str, dict]:
    return {t["target"]: t for t in report.targets(doc)}


def test_two_workers_have_targets_of_their_own() -> None:
    found = _by_name(_doc(_table(1000), _table(1150, p99_over_p50=5.0)))
    tail = "worst p99 / p50 of the server's endpoints (keep-alive, 2 workers)"
    assert found[tail]["met"] is False
    assert found["errors under load (keep-alive, 2 workers)"]["met"] is True
    for endpoint in ("userinfo", "refresh", "code_exchange", "revoke"):
        gain = found[f"{endpoint} req/s, 2 workers / 1 worker (keep-alive, same run)"]
        assert gain["value"] == pytest.approx(1.15) and gain["met"] is True
    scaling = found["userinfo's gain from a 2nd worker / the baseline's (req/s ratios, keep-alive)"]
    assert scaling["value"] == pytest.approx(1.0) and scaling["met"] is True


def test_the_baselines_tails_with_two_workers_are_the_machines() -> None:
    """Two workers and wrk share both cores: a baseline's tail does not count for the server."""
    two = _table(1150)
    two["baseline_limits"]["p99_over_p50"] = 4.4
    found = _by_name(_doc(_table(1000, p99_over_p50=4.4), two))
    assert found["worst p99 / p50 (keep-alive, 1 worker)"]["met"] is False
    tail = found["worst p99 / p50 of the server's endpoints (keep-alive, 2 workers)"]
    assert tail["value"] == 2.0 and tail["met"] is True


def test_a_second_worker_serving_less_misses_its_target() -> None:
    two = _table(1000)
    two["refresh"]["rps"] = 400.0  # one worker: 500
    two["userinfo"]["ratio"] = 0.4  # one worker: 0.5, the baseline's gain the same
    found = _by_name(_doc(_table(1000), two))
    assert found["refresh req/s, 2 workers / 1 worker (keep-alive, same run)"]["met"] is False
    scaling = found["userinfo's gain from a 2nd worker / the baseline's (req/s ratios, keep-alive)"]
    assert scaling["value"] == pytest.approx(0.8) and scaling["met"] is False


def test_one_worker_alone_has_no_two_worker_targets() -> None:
    names = " ".join(_by_name(_doc(_table(1000), None)))
    assert "2 workers" not in names and "1 worker" in names


def test_the_manual_prompts_say_why_they_were_not_measured() -> None:
    counted = {"manual_prompts": 106, "manual_prompts_by_kind": {"approve": 97, "deny": 2}}
    assert report._manual(counted) == "106 (approve 97, deny 2)"
    missing = {"manual_reason": "the manual run said no count (exit 2): Error: preflight"}
    assert report._manual(missing) == f"not measured: {missing['manual_reason']}"
