"""Section 2: one full `mb-oauth-conformance` run against the bundled server.

Wall time of the whole command (it starts and provisions the server itself), HTTP requests
and consent approvals counted from the evidence in its results.json (secrets are masked there;
the consent decision is not a secret).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .common import ROOT, log

TIMEOUT = 900


def _runner() -> list[str] | None:
    if not (ROOT / "steps" / "runner.py").exists():
        return None
    script = Path(sys.executable).parent / "mb-oauth-conformance"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "import sys; from steps.runner import main; sys.exit(main())"]


def _is_approval(exchange: dict) -> bool:
    request = exchange.get("request") or {}
    body = request.get("body")
    text = body if isinstance(body, str) else json.dumps(body or "")
    return request.get("method") == "POST" and "decision=approve" in text


def count(results: dict) -> dict:
    scenarios = results.get("scenarios", [])
    evidence = [e for s in scenarios for e in (s.get("evidence") or [])]
    outcomes: dict[str, int] = {}
    for s in scenarios:
        outcomes[s.get("outcome", "?")] = outcomes.get(s.get("outcome", "?"), 0) + 1
    found = {
        "scenarios": len(scenarios),
        "outcomes": outcomes,
        "http_requests": len(evidence),
        "consent_approvals": sum(1 for e in evidence if _is_approval(e)),
    }
    # Figures the runner may record itself one day (preferred over our counting).
    for key in ("http_requests", "consent_approvals", "approvals", "approvals_estimate"):
        for where in (results, results.get("statistics") or {}, results.get("counts") or {}):
            if isinstance(where.get(key), int):
                found[f"runner_{key}"] = where[key]
    return found


def run(short: bool, notes: list[str]) -> dict:
    if short:
        return {"available": False, "reason": "skipped in --short mode (a full run takes minutes)"}
    command = _runner()
    if command is None:
        return {"available": False, "reason": "steps/runner.py (mb-oauth-conformance) not found"}
    report_dir = Path(tempfile.mkdtemp(prefix="mb-bench-suite-"))
    try:
        log("running the conformance suite against the bundled server")
        started = time.monotonic()
        try:
            result = subprocess.run(
                [*command, "--report-dir", str(report_dir)],
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return {"available": False, "reason": f"the run took more than {TIMEOUT} s"}
        wall = time.monotonic() - started
        results_file = report_dir / "results.json"
        if not results_file.exists():
            tail = (result.stderr or result.stdout)[-400:]
            return {
                "available": False,
                "reason": f"no results.json (exit status {result.returncode}): {tail}",
            }
        figures = count(json.loads(results_file.read_text()))
        notes.append(
            "suite: HTTP requests and approvals are counted from the evidence in results.json "
            "(requests recorded outside any scenario, e.g. by session fixtures, are not there; "
            "a counter in the runner's results.json would be exact)"
        )
        return {
            "available": True,
            "wall_s": round(wall, 2),
            "exit_status": result.returncode,
            **figures,
        }
    finally:
        shutil.rmtree(report_dir, ignore_errors=True)
