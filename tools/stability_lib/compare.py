"""Which rules' verdicts changed between runs of the conformance suite (verdicts.json each)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

MISSING = "(no verdict)"


@dataclass(frozen=True)
class Run:
    """One run: its exit status and its verdict per rule id (None when no verdicts.json)."""

    index: int
    exit_status: int
    verdicts: dict[str, str] | None

    @classmethod
    def read(cls, index: int, exit_status: int, report_dir: Path) -> Run:
        path = report_dir / "verdicts.json"
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
            verdicts = {rule["id"]: rule["verdict"] for rule in document["rules"]}
        except (OSError, ValueError, KeyError, TypeError):
            verdicts = None
        return cls(index, exit_status, verdicts)


@dataclass(frozen=True)
class Unstable:
    rule: str
    sequence: tuple[str, ...]  # the verdict of each run, in order

    def describe(self) -> str:
        counts = Counter(self.sequence)
        parts = []
        for verdict, count in counts.most_common():
            runs = [str(i + 1) for i, v in enumerate(self.sequence) if v == verdict]
            where = "" if count > len(self.sequence) // 2 else f" (run {', '.join(runs)})"
            parts.append(f"{verdict} x{count}{where}")
        return f"{self.rule}: " + ", ".join(parts)


def unstable_rules(runs: list[Run]) -> list[Unstable]:
    """Rules whose verdict was not the same in every run that produced verdicts."""
    complete = [run.verdicts for run in runs if run.verdicts is not None]
    rules = sorted(set().union(*complete)) if complete else []
    changed = []
    for rule in rules:
        sequence = tuple(verdicts.get(rule, MISSING) for verdicts in complete)
        if len(set(sequence)) > 1:
            changed.append(Unstable(rule, sequence))
    return changed


def broken_runs(runs: list[Run]) -> list[Run]:
    """Runs that produced no verdicts at all (setup error, crash)."""
    return [run for run in runs if run.verdicts is None]
