"""Report folders of earlier runs, read for comparison: what `compare` needs of a verdicts.json.

A folder is a report when it holds a verdicts.json whose document lists rules; everything else
in it is optional, so the folders of older runs (fewer fields, fewer rules) still compare.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from steps.reports import HTML, VERDICTS
from steps.reports.conclusion import CHECKED

#: The verdicts of a rule a run really checked, as verdicts.json spells them.
CHECKED_WORDS = {str(verdict) for verdict in CHECKED}

#: What the section 9 verdict of verdicts.json's "description" is called in a matrix.
DESCRIPTIONS = {
    "fuller": "fuller",
    "earlier": "earlier",
    "mixed": "mixed",
    "undetermined": "undetermined",
}


class NotAReport(ValueError):
    """The folder is not the report folder of a run (no readable verdicts.json with rules)."""


@dataclass(frozen=True)
class Run:
    """One run's report folder: its verdicts.json document and each rule's entry by id."""

    folder: Path
    document: Mapping[str, Any]
    rules: Mapping[str, Mapping[str, Any]]
    #: What `compare --label` calls the run ("" : the run's own label, if it has one).
    given_label: str = ""

    @property
    def label(self) -> str:
        """The run's label: given to compare, else the one the run was made with (--label)."""
        return self.given_label or str(self.document.get("label") or "")

    @property
    def profile(self) -> str:
        """The profile's name, else the folder's."""
        return str(self.document.get("profile") or "") or self.folder.name

    @property
    def name(self) -> str:
        """What the run's column is called: its label, else its profile's name."""
        return self.label or self.profile

    def checked_count(self) -> tuple[int, int]:
        """(rules the run checked, rules it reports): a rule not run, skipped or that could not
        be checked was not."""
        verdicts = [str(entry.get("verdict") or "") for entry in self.rules.values()]
        return sum(v in CHECKED_WORDS for v in verdicts), len(verdicts)

    @property
    def report(self) -> Path | None:
        """The run's report.html, when the folder has one."""
        page = self.folder / HTML
        return page if page.is_file() else None

    def ran_at(self) -> str:
        """When the run started, as "2026-11-25 16:52 UTC" (older runs: when it was reported)."""
        for key in ("started", "finished", "generated"):
            if moment := _moment(self.document.get(key)):
                return moment
        return "time unknown"

    def duration(self) -> str:
        """How long the run took ("48 s"), or "" when a time is missing."""
        start, end = (_parse(self.document.get(k)) for k in ("started", "finished"))
        if start is None or end is None or end < start:
            return ""
        return f"{(end - start).total_seconds():.0f} s"

    def description(self) -> str:
        """Which description of spec section 9 the deployment follows, with the items that
        follow the earlier one when it is mixed."""
        block = self.document.get("description")
        if not isinstance(block, Mapping) or not block.get("follows"):
            return "not recorded"
        follows = str(block["follows"])
        text = DESCRIPTIONS.get(follows, follows)
        earlier = [
            str(item.get("label") or item.get("item"))
            for item in block.get("items") or ()
            if isinstance(item, Mapping) and item.get("follows") == "earlier"
        ]
        return f"{text} (earlier: {', '.join(earlier)})" if follows == "mixed" and earlier else text

    def failing_spec_rules(self, verdict: str = "fail") -> list[str]:
        """The spec rules the run failed (`verdict="expected failure"`: those it failed as the
        profile's known deviations)."""
        return [
            rule_id
            for rule_id, entry in self.rules.items()
            if entry.get("level") == "spec" and entry.get("verdict") == verdict
        ]

    def deviation_reason(self, rule_id: str) -> str:
        """The profile's reason for a known deviation, where the run recorded one."""
        listed = self.document.get("known_deviations")
        if isinstance(listed, Mapping):
            return str(listed.get(rule_id) or "")
        for entry in listed if isinstance(listed, list) else ():
            if isinstance(entry, Mapping) and entry.get("id") == rule_id:
                return str(entry.get("reason") or "")
        return ""


def _parse(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value)) if value else None
    except ValueError:
        return None


def _moment(value: Any) -> str:
    moment = _parse(value)
    if moment is None:
        return str(value or "")
    zone = "UTC" if moment.utcoffset() is not None and not moment.utcoffset() else ""
    text = moment.strftime("%Y-%m-%d %H:%M")
    return f"{text} {zone or moment.strftime('%z')}".strip()


def load_run(folder: str | os.PathLike[str], label: str = "") -> Run:
    """A report folder, read (`label`: what to call it); NotAReport (one line, naming the
    folder) when it is none."""
    path = Path(folder)
    if not path.is_dir():
        raise NotAReport(f"{path}: not a folder")
    try:
        document = json.loads((path / VERDICTS).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise NotAReport(f"{path}: no {VERDICTS} (not the report folder of a run)") from None
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise NotAReport(f"{path}: {VERDICTS} cannot be read: {error}") from None
    rules = document.get("rules") if isinstance(document, dict) else None
    if not isinstance(rules, list):
        raise NotAReport(f"{path}: {VERDICTS} lists no rules (not a conformance report)")
    by_id = {
        str(entry["id"]): entry for entry in rules if isinstance(entry, dict) and entry.get("id")
    }
    return Run(path, document, by_id, label)
