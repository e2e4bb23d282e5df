"""The proof's report: its figures (rules, combinations, targets built, caught, missed,
collateral, time), per rule and per target, as JSON (proof.json) and Markdown (proof.md)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.suite.broken.harness import Run
from tests.suite.proof.plan import Plan
from tests.suite.proof.runner import FAILING, Outcome


@dataclass
class Proof:
    """One invocation: what was planned, what ran, how it went."""

    plan: Plan
    outcomes: Sequence[Outcome]
    baseline: Run
    baseline_seconds: float
    seconds: float
    settings: dict[str, Any]  # combinations, sample, seed, jobs, rules asked for

    def figures(self) -> dict[str, Any]:
        outcomes = self.outcomes
        times = [o.seconds for o in outcomes]
        requests = (self.baseline.verdicts.get("proxy") or {}).get("requests", 0)
        return {
            "rules": self.plan.rules,
            "rules_incomplete": len(self.plan.incomplete),
            "rows": self.plan.rows,
            "rows_incomplete": sum(self.plan.incomplete.values()),
            "combinations": len(self.plan.targets),
            "targets": len(outcomes),
            "caught": sum(o.caught for o in outcomes),
            "missed": sum(o.missed for o in outcomes),
            "missed_never_applied": sum(o.missed and not o.applied for o in outcomes),
            "missed_named_elsewhere": sum(o.missed and bool(o.collateral) for o in outcomes),
            "collateral": sum(bool(o.collateral) for o in outcomes),
            "clean": sum(o.clean for o in outcomes),
            "errors": sum(bool(o.error or o.fault_errors) for o in outcomes),
            "seconds": round(self.seconds, 1),
            "baseline_seconds": round(self.baseline_seconds, 1),
            "seconds_per_target": round(sum(times) / len(times), 1) if times else 0.0,
            "requests_per_run": requests,
        }

    def per_rule(self) -> dict[str, dict[str, int]]:
        rules: dict[str, dict[str, int]] = {}
        for o in self.outcomes:
            entry = rules.setdefault(o.target.rule, dict.fromkeys(_COUNTS, 0))
            entry["targets"] += 1
            entry["caught"] += o.caught
            entry["missed"] += o.missed
            entry["collateral"] += bool(o.collateral)
        return dict(sorted(rules.items()))

    def document(self) -> dict[str, Any]:
        by_rule = self.baseline.by_rule
        return {
            "settings": self.settings,
            "figures": self.figures(),
            "baseline": {
                "failing": sorted(r for r, v in by_rule.items() if v in FAILING),
                "unchecked": sorted(r for r, v in by_rule.items() if v == "could not be checked"),
            },
            "incomplete": dict(sorted(self.plan.incomplete.items())),
            "per_rule": self.per_rule(),
            "targets": [_target(o) for o in self.outcomes],
        }


_COUNTS = ("targets", "caught", "missed", "collateral")


def _target(o: Outcome) -> dict[str, Any]:
    return {
        "rule": o.target.rule,
        "combination": dict(o.target.combination),
        "name": o.target.name,
        "scenarios": list(o.target.scenarios),
        "verdict": o.verdict,
        "caught": o.caught,
        "applied": o.applied,
        "seconds": round(o.seconds, 1),
        "requests": o.requests,
        "collateral": o.collateral,
        "implied": o.implied,
        "why": o.why,
        "error": o.error,
        "fault_errors": o.fault_errors,
    }


def write(proof: Proof, directory: Path) -> tuple[Path, Path]:
    """proof.json and proof.md in the directory."""
    directory.mkdir(parents=True, exist_ok=True)
    document = proof.document()
    as_json = directory / "proof.json"
    as_json.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    as_markdown = directory / "proof.md"
    as_markdown.write_text(markdown(document))
    return as_json, as_markdown


def markdown(document: dict[str, Any]) -> str:
    """The report for a person: the figures, then what went wrong, then rule by rule."""
    f, s = document["figures"], document["settings"]
    lines = [
        "# Generated proof",
        "",
        f"Combinations: {s['combinations']}; sample: {s.get('sample') or 'all'}"
        + (f" (seed {s['seed']})" if s.get("sample") else "")
        + f"; jobs: {s['jobs']}.",
        "",
        "| figure | value |",
        "|---|---|",
        f"| rules (not observations) | {f['rules']} |",
        f"| rules with rows that do not say every dimension | {f['rules_incomplete']} |",
        f"| scenario rows / of them incomplete | {f['rows']} / {f['rows_incomplete']} |",
        f"| combinations claimed (complete rows) | {f['combinations']} |",
        f"| targets built | {f['targets']} |",
        f"| caught | {f['caught']} |",
        f"| missed (rule did not fail) | {f['missed']} ({f['missed_never_applied']} "
        f"where the fault never applied, {f['missed_named_elsewhere']} where another rule "
        "failed instead) |",
        f"| collateral (another rule worse than could not be checked) | {f['collateral']} |",
        f"| caught without collateral | {f['clean']} |",
        f"| requests per full run (baseline) | {f['requests_per_run']} |",
        f"| seconds per target / baseline / in all | {f['seconds_per_target']} / "
        f"{f['baseline_seconds']} / {f['seconds']} |",
        "",
    ]
    lines += _problems(document["targets"])
    lines += ["## Per rule", "", "| rule | targets | caught | missed | collateral |"]
    lines += ["|---|---|---|---|---|"]
    for rule, c in document["per_rule"].items():
        lines.append(
            f"| {rule} | {c['targets']} | {c['caught']} | {c['missed']} | {c['collateral']} |"
        )
    return "\n".join(lines) + "\n"


def _problems(targets: list[dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    missed = [t for t in targets if not t["caught"]]
    if missed:
        lines += ["## Missed", ""]
        for t in missed:
            how = "the fault never applied" if not t["applied"] else f"applied {t['applied']}x"
            lines.append(f"- {t['name']}: {t['verdict']}, {how}. {t['why']}".rstrip())
        lines.append("")
    collateral = [t for t in targets if t["collateral"]]
    if collateral:
        lines += ["## Collateral", ""]
        for t in collateral:
            for rule, change in t["collateral"].items():
                lines.append(f"- {t['name']}: {rule} {change}")
        lines.append("")
    return lines
