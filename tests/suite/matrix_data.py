"""Hand-made report folders for the matrix tests: a new run, another one that differs from it
(every kind of verdict), each with verdicts.json and a report.html with an id per rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from steps.rules.catalogue import load_catalogue

CATALOGUE = load_catalogue()
FAILED = "Then the revocation is answered 200 with an empty body: AssertionError: body is '{}'"


def entry(rule_id: str, verdict: str, outcome: str = "passed", message: str = "") -> dict[str, Any]:
    rule = CATALOGUE[rule_id]
    scenario = {"name": f"checks {rule_id}", "outcome": outcome, "nodeid": f"t::{rule_id}"}
    scenario |= {"message": message} if message else {}
    return {"id": rule_id, "section": rule.section, "level": rule.level, "title": rule.title,
            "verdict": verdict, "known_deviation": verdict == "expected failure",
            "scenarios": [scenario]}  # fmt: skip


def report_folder(path: Path, rules: list[dict[str, Any]], **document: Any) -> Path:
    """A run's report folder: verdicts.json, and a report.html with an id per rule."""
    path.mkdir(parents=True)
    (path / "verdicts.json").write_text(json.dumps({**document, "rules": rules}))
    ids = "".join(f'<details id="{r["id"]}"></details>' for r in rules)
    (path / "report.html").write_text(f"<html><body>{ids}</body></html>")
    return path


def new_run(path: Path) -> Path:
    return report_folder(
        path,
        [
            entry("REVOKE-EMPTY-200", "pass"),
            entry("AUTHZ-STATE-ON-ERROR", "pass"),
            entry("USERINFO-POST-BODY", "pass"),
            entry("TOKEN-ERR-INVALID-GRANT", "pass"),
        ],
        profile="bundled server",
        started="2026-11-25T16:50:51+00:00",
        finished="2026-11-25T16:50:56+00:00",
        conclusion="CONFORMS",
        description={"follows": "fuller", "items": []},
    )


def other_run(path: Path) -> Path:
    return report_folder(
        path,
        [
            entry("REVOKE-EMPTY-200", "fail", "failed", FAILED + "\nassert b'{}' == b''"),
            entry("AUTHZ-STATE-ON-ERROR", "expected failure", "failed", "state came back None"),
            entry("USERINFO-POST-BODY", "unexpected pass"),
            entry("TOKEN-ERR-INVALID-GRANT", "could not be checked", "unchecked", "throttled"),
        ],
        profile="metabrainz-like | provider",
        started="2026-11-26T08:00:00+00:00",
        conclusion="DOES NOT CONFORM",
        known_deviations={"AUTHZ-STATE-ON-ERROR": "the provider drops state on access_denied"},
        description={
            "follows": "mixed",
            "items": [
                {"label": "PKCE parameters", "follows": "fuller"},
                {"label": "token in the POST body", "follows": "earlier"},
            ],
        },
    )
