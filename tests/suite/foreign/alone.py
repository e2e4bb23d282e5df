"""Run the suite once per rule, each rule alone, in one interpreter (`pytest.main` per rule:
97 fresh interpreters would cost minutes of start-up), and write the verdicts to a JSON file.

    python -m tests.suite.foreign.alone --profile P --report-dir DIR RULE [RULE ...]

Each run gets the plugin and options `mb-oauth-conformance --rule RULE --run-lasting` would
give it; the verdict is computed from its results.json by the reports' own code."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from steps.reports import build_report, load_results
from steps.rules.catalogue import load_catalogue
from steps.runner import COLLECT_TARGET, PYTEST_PLUGINS, RunOptions, suite_arguments


def run_alone(profile: Path, report_dir: Path, rule: str) -> dict[str, Any]:
    """One rule alone: its verdict and the messages of its scenarios."""
    options = RunOptions(report_dir=report_dir, profile=profile, rules=(rule,), run_lasting=True)
    args = [*(f"-p{p}" for p in PYTEST_PLUGINS), "-q", "--tb=no", "--no-header"]
    args += ["-pno:unraisableexception", "-pno:threadexception"]  # a gc.collect() per run
    with Path(os.devnull).open("w") as quiet, contextlib.redirect_stdout(quiet):
        status = pytest.main([*args, *suite_arguments(options), str(COLLECT_TARGET)])
    try:
        results = load_results(report_dir)
    except (OSError, ValueError):
        return {"verdict": f"no results (pytest exit {status})", "messages": []}
    verdict = next(v for v in build_report(results, load_catalogue()).verdicts if v.id == rule)
    messages = [f"{s.name}: {s.outcome}: {s.message}" for s in verdict.scenarios]
    return {"verdict": verdict.verdict, "messages": messages}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--profile", type=Path, required=True)
    parser.add_argument("--report-dir", type=Path, required=True)
    parser.add_argument("rules", nargs="+")
    options = parser.parse_args()
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # as the runner starts pytest
    options.report_dir.mkdir(parents=True, exist_ok=True)
    verdicts = {
        rule: run_alone(options.profile, options.report_dir / rule, rule) for rule in options.rules
    }
    out = options.report_dir / "alone.json"
    out.write_text(json.dumps(verdicts, indent=2, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
