"""Section 2: one full `mb-oauth-conformance` run against the bundled server.

Wall time of the whole command (it starts and provisions the server itself), HTTP requests
and consent approvals counted from the evidence in its results.json (secrets are masked there;
the consent decision is not a secret). Then a second full run (with --run-lasting) with the
`manual` driver, a scripted person answering in-process: the prompts a person would be shown,
as the run itself counts them, and the run's own estimate of them.
"""

from __future__ import annotations

import json
import os
import re
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
    # Exchanges a scenario shows but an earlier one made (a shared grant's, a twin's) are
    # marked `reused`: counted once, where they were made.
    evidence = [e for s in scenarios for e in (s.get("evidence") or []) if not e.get("reused")]
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
    for key in ("http_requests", "consent_approvals", "approvals", "prompts_estimate"):
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
            **manual_prompts(command),
        }
    finally:
        shutil.rmtree(report_dir, ignore_errors=True)


SAID = re.compile(r"\[manual driver: (\d+) prompt\(s\) in this run: ([^\];]*)")


def manual_prompts(command: list[str]) -> dict:
    """The prompts of a full manual run, as the run reports them (and as the person counted)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.suite.target import bundled_target  # the suite's own test target

    work = Path(tempfile.mkdtemp(prefix="mb-bench-manual-"))
    try:
        with bundled_target(work) as target:
            text = target.profile_path.read_text(encoding="utf-8")
            profile = work / "manual.toml"
            person = 'driver = "tests.suite.manual_person:driver"'
            profile.write_text(text.replace('driver = "form"', person), encoding="utf-8")
            log_file = work / "person.log"
            # The runner imports the person's driver by name (tests.suite.manual_person): the
            # checkout must be on its path (the console script's own path holds only the venv).
            path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
            env = os.environ | {"MB_PERSON_LOG": str(log_file), "PYTHONPATH": path}
            args = [
                "--profile",
                str(profile),
                "--report-dir",
                str(work / "report"),
                "--run-lasting",
            ]
            log("running the suite with the manual driver (a scripted person answers)")
            done = subprocess.run(
                [*command, *args],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
                check=False,
            )
        lines = log_file.read_text(encoding="utf-8").splitlines() if log_file.exists() else []
        results = work / "report" / "results.json"
        estimate = (
            json.loads(results.read_text()).get("prompts_estimate") if results.exists() else None
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    said = next((m for line in lines if (m := SAID.search(line))), None)
    if said is None:
        why = (done.stdout + done.stderr).strip().splitlines()[-1:] or ["no output"]
        return {
            "manual_available": False,
            "manual_exit_status": done.returncode,
            "manual_reason": f"the manual run said no count (exit {done.returncode}): {why[0]}",
        }
    kinds = {k: int(v) for k, v in (pair.split(" ") for pair in said.group(2).split(", "))}
    return {
        "manual_prompts": int(said.group(1)),
        "manual_prompts_by_kind": kinds,
        "manual_prompts_answered": sum(1 for line in lines if line.startswith("answered ")),
        "manual_prompts_estimate": estimate,
        "manual_exit_status": done.returncode,
    }
