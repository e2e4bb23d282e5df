"""The deployment matrix: the verdict of every catalogue rule in each of several runs, side by
side, with the rows where the deployments differ first (what a spec author reads).

Cells speak the reader's words, not the suite's: an expected failure is a "known deviation"
(its reason is what the run saw, then the profile's reason), an unexpected pass a "pass" (its
reason says the profile listed it). A rule a run did not include, or that its older catalogue
lacked, is "not run"; one whose scenarios were all skipped (no --run-slow, say) is "skipped".
Neither says anything about the deployment, so neither counts when deciding whether the
deployments differ: a rule only some runs checked is a group of its own, shown as such.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from steps.outcomes import UNCHECKED_OUTCOME
from steps.reports.runs import Run
from steps.reports.verdicts import (
    EXPECTED_FAILURE,
    FAIL,
    NOT_RUN,
    OBSERVED,
    PASS,
    SKIPPED,
    UNCHECKED,
    UNEXPECTED_PASS,
    WARNING,
    section_key,
)
from steps.rules.catalogue import Rule

KNOWN_DEVIATION = "known deviation"
#: The suite's verdict names, as a matrix cell says them.
SHOWN: dict[str, str] = {
    PASS: "pass",
    FAIL: "fail",
    WARNING: "warning",
    OBSERVED: "observed",
    SKIPPED: "skipped",
    EXPECTED_FAILURE: KNOWN_DEVIATION,
    UNEXPECTED_PASS: "pass",
    UNCHECKED: "could not be checked",
    NOT_RUN: "not run",
}
SHOWN_NOT_RUN = SHOWN[NOT_RUN]
#: Cells of a run that did not check the rule: they tell nothing about the deployment.
UNCHECKED_CELLS = {SHOWN[NOT_RUN], SHOWN[SKIPPED]}
#: Which scenarios explain a verdict: the failed ones, the unchecked ones, the skipped ones.
EXPLAINED_BY: dict[str, tuple[str, ...]] = {
    FAIL: ("failed", "error"),
    WARNING: ("failed", "error"),
    EXPECTED_FAILURE: ("failed", "error"),
    OBSERVED: ("failed", "error"),
    UNCHECKED: (UNCHECKED_OUTCOME,),
    SKIPPED: ("skipped",),
}
REASON_LIMIT = 160


@dataclass(frozen=True)
class Cell:
    """One rule in one run: the verdict shown, why in one line, and where the run says more."""

    verdict: str
    reason: str
    link: str = ""


@dataclass(frozen=True)
class Row:
    """One rule of the catalogue across the runs."""

    rule: Rule
    cells: tuple[Cell, ...]

    @property
    def checked(self) -> list[Cell]:
        """The cells of the runs that checked the rule (neither not run nor skipped)."""
        return [cell for cell in self.cells if cell.verdict not in UNCHECKED_CELLS]

    @property
    def differs(self) -> bool:
        """Whether the runs that checked the rule disagree on its verdict."""
        return len({cell.verdict for cell in self.checked}) > 1

    @property
    def checked_by_some(self) -> bool:
        """Whether some runs checked the rule and others did not (and those that did agree)."""
        return not self.differs and 0 < len(self.checked) < len(self.cells)


@dataclass(frozen=True)
class Matrix:
    """The runs (columns) and rules (rows, in catalogue order): the renderers show the rows
    that differ first."""

    runs: tuple[Run, ...]
    links: tuple[str, ...]  # each run's report.html, relative to the matrix ("" without one)
    rows: tuple[Row, ...]

    @property
    def differing(self) -> list[Row]:
        return [row for row in self.rows if row.differs]

    @property
    def checked_by_some(self) -> list[Row]:
        """Rules some runs checked and others did not: no difference known, no agreement."""
        return [row for row in self.rows if row.checked_by_some]

    @property
    def agreeing(self) -> list[Row]:
        return [row for row in self.rows if not row.differs and not row.checked_by_some]


#: The matrix's groups of rows, in the order they are shown.
DIFFER = "Where the deployments differ"
SOME = "Checked by only some of the runs"
AGREE = "Where they agree"


def groups(matrix: Matrix) -> list[tuple[str, list[Row]]]:
    """The rows by group: where the runs differ, where only some checked, where they agree."""
    return [
        (DIFFER, matrix.differing),
        (SOME, matrix.checked_by_some),
        (AGREE, matrix.agreeing),
    ]


def intro(matrix: Matrix) -> str:
    """The matrix in one sentence (plain text; both renderers start with it)."""
    return (
        f"{len(matrix.runs)} runs, {len(matrix.rows)} rules: {len(matrix.differing)} where the "
        f"deployments differ, {len(matrix.checked_by_some)} checked by only some of the runs, "
        f"{len(matrix.agreeing)} where they agree. A rule a run did not check (“not run”, or "
        "“skipped”: no --run-slow, say) tells nothing about that deployment: it is no "
        "difference, and a rule only some runs checked is shown as such."
    )


def one_line(message: str, limit: int = REASON_LIMIT) -> str:
    """A scenario's message as one line: its first line without pytest's exception name
    ("Then the ...: AssertionError: body is '{}'" reads "Then the ...: body is '{}'")."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    text = re.sub(r"(^|: )AssertionError: ", r"\1", lines[0] if lines else "")
    text = " ".join(text.removeprefix("Skipped: ").split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def reason(run: Run, rule_id: str, entry: Mapping[str, Any] | None) -> str:
    """Why a rule got its verdict in a run, in one line."""
    if entry is None:
        return "not in this run's catalogue (an older run)"
    verdict = str(entry.get("verdict") or NOT_RUN)
    scenarios = [s for s in entry.get("scenarios") or () if isinstance(s, Mapping)]
    if verdict == NOT_RUN:
        return "not checked by this run"
    if verdict == EXPECTED_FAILURE:
        seen = _explained(scenarios, verdict)
        why = run.deviation_reason(rule_id)
        listed = f"(listed: {one_line(why, REASON_LIMIT // 2)})" if why else ""
        return " ".join(part for part in (one_line(seen), listed) if part)
    if verdict == UNEXPECTED_PASS:
        return "passes, though the profile lists it as a known deviation"
    if seen := _explained(scenarios, verdict):
        return one_line(seen)
    if verdict == PASS:
        return f"{_plural(len(scenarios), 'scenario')} passed"
    if verdict == OBSERVED:
        return f"recorded by {_plural(len(scenarios), 'scenario')}; see the report"
    return ""


def _explained(scenarios: list[Mapping[str, Any]], verdict: str) -> str:
    """The message of the first scenario whose outcome explains the verdict, with its cause."""
    outcomes = EXPLAINED_BY.get(verdict, ())
    for scenario in scenarios:
        if scenario.get("outcome") in outcomes and (message := str(scenario.get("message") or "")):
            cause = str(scenario.get("cause") or "")
            return message + (f" (after: {cause})" if cause else "")
    return ""


def cell(run: Run, link: str, rule_id: str) -> Cell:
    """A rule's cell in a run's column (a link only to a rule the report shows)."""
    entry = run.rules.get(rule_id)
    verdict = str(entry.get("verdict") or NOT_RUN) if entry is not None else NOT_RUN
    anchor = f"{link}#{quote(rule_id)}" if link and verdict != NOT_RUN else ""
    return Cell(SHOWN.get(verdict, verdict), reason(run, rule_id, entry), anchor)


def report_link(run: Run, out_dir: Path) -> str:
    """The run's report.html as a link relative to the folder the matrix is written to."""
    if run.report is None:
        return ""
    try:
        relative = os.path.relpath(run.report.resolve(), out_dir.resolve())
    except ValueError:  # another drive (Windows): no relative path, so an absolute one
        return run.report.resolve().as_uri()
    return quote(Path(relative).as_posix())


def rules_of(runs: Sequence[Run], catalogue: Mapping[str, Rule]) -> list[Rule]:
    """The catalogue's rules and any rule a run reports that the catalogue no longer has (an
    older run's), all in section order."""
    rules = dict(catalogue)
    for run in runs:
        for rule_id, entry in run.rules.items():
            if rule_id not in rules:
                title = f"{entry.get('title') or ''} (not in the current catalogue)".strip()
                level, section = str(entry.get("level") or "?"), str(entry.get("section") or "?")
                rules[rule_id] = Rule(rule_id, section, level, title)
    return sorted(rules.values(), key=lambda rule: (section_key(rule.section), rule.id))


def build_matrix(runs: Sequence[Run], catalogue: Mapping[str, Rule], out_dir: Path) -> Matrix:
    """The matrix of the runs, its links relative to out_dir."""
    links = tuple(report_link(run, out_dir) for run in runs)
    rows = [
        Row(rule, tuple(cell(run, link, rule.id) for run, link in zip(runs, links, strict=True)))
        for rule in rules_of(runs, catalogue)
    ]
    return Matrix(tuple(runs), links, tuple(rows))
