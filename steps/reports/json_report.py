"""verdicts.json: the machine-readable verdict of a run, one entry per rule."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from steps.reports.verdicts import (
    deviation_reasons,
    CONCLUSIONS,
    RuleVerdict,
    exit_status,
    failing_rules,
    summarize,
    unchecked_rules,
)

SCHEMA = "mb-oauth-conformance/verdicts/1"
#: The start of the note a twin's scenario carries (steps/run/twins.py writes it): the run's
#: summary counts those notes as one reading.
TWIN_NOTE = "the steps before its first check were taken once for its twins"


def level_counts(verdicts: list[RuleVerdict]) -> dict[str, dict[str, int]]:
    """Verdict counts per level, for readers that only care about spec rules."""
    levels = sorted({v.level for v in verdicts})
    return {lvl: summarize(v for v in verdicts if v.level == lvl) for lvl in levels}


def observations(results: Mapping[str, Any]) -> dict[str, Any]:
    """What the run observed where the spec is silent (formats, headers); section 9 aside."""
    observed = results.get("observations") or {}
    return {k: v for k, v in observed.items() if k != "description"}


def skip_reasons(verdicts: list[RuleVerdict]) -> dict[str, int]:
    """Why scenarios were skipped ("waits in real time: needs --run-slow"), with counts."""
    reasons: dict[str, int] = {}
    seen: set[str] = set()
    for verdict in verdicts:
        for scenario in verdict.scenarios:
            if scenario.outcome == "skipped" and scenario.nodeid not in seen:
                seen.add(scenario.nodeid)
                reason = scenario.message.removeprefix("Skipped: ") or "skipped"
                reasons[reason] = reasons.get(reason, 0) + 1
    return dict(sorted(reasons.items(), key=lambda item: -item[1]))


def _kind_of_note(note: str) -> str:
    """A twin's note names its recorder; the run's summary counts the twins as one kind."""
    return TWIN_NOTE if note.startswith(TWIN_NOTE) else note


def readings(verdicts: list[RuleVerdict]) -> list[dict[str, Any]]:
    """How the run read answers where it did not read them as strictly as a rule (premises
    read leniently, each naming the rule that judges it) and the samples it took: each note
    once, with the number of scenarios it stands for."""
    counts: dict[str, int] = {}
    seen: set[tuple[str, str]] = set()
    for verdict in verdicts:
        for scenario in verdict.scenarios:
            for note in map(_kind_of_note, scenario.notes):
                if (scenario.nodeid, note) not in seen:
                    seen.add((scenario.nodeid, note))
                    counts[note] = counts.get(note, 0) + 1
    return [{"note": note, "scenarios": n} for note, n in sorted(counts.items())]


def build_document(
    results: Mapping[str, Any],
    verdicts: list[RuleVerdict],
    description: Mapping[str, Any],
    strict: bool,
) -> dict[str, Any]:
    """The verdicts.json document (no secrets: the profile contributes its name only)."""
    status = exit_status(verdicts, strict)
    return {
        "schema": SCHEMA,
        "target": results.get("target", ""),
        "profile": results.get("profile_name", ""),
        "started": results.get("started", ""),
        "finished": results.get("finished", ""),
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "strict": strict,
        "conforms": status == 0,
        "exit_status": status,
        "conclusion": CONCLUSIONS[status],
        "failing_rules": [v.id for v in failing_rules(verdicts, strict)],
        "unchecked_rules": [v.id for v in unchecked_rules(verdicts, strict)],
        "skip_reasons": skip_reasons(verdicts),
        "pacing": dict(results.get("pacing") or {}),
        "requests": int(results.get("requests") or 0),
        "combinations": dict(results.get("combinations") or {}),
        "consent": dict(results.get("consent") or {}),
        "safety": list(results.get("safety") or ()),
        "known_deviations": deviation_reasons(results),
        "description": dict(description),
        "observations": observations(results),
        "readings": readings(verdicts),
        "summary": summarize(verdicts),
        "summary_by_level": level_counts(verdicts),
        "rules": [v.to_json() for v in verdicts],
    }


def write(path: Path, document: Mapping[str, Any]) -> Path:
    """Write the document as indented UTF-8 JSON."""
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path
