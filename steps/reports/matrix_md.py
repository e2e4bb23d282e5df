"""matrix.md: the deployment matrix as Markdown tables, for an issue, a pull request or a wiki
(GitHub renders it; the links lead into each run's report.html next to it)."""

from __future__ import annotations

from collections.abc import Iterable

from steps.reports.matrix import Cell, Matrix, Row, groups, intro
from steps.reports.runs import Run
from steps.reports.sections import heading
from steps.reports.verdicts import EXPECTED_FAILURE


def text(value: str) -> str:
    """A value fit for a table cell: one line, pipes and brackets escaped."""
    cleaned = " ".join(value.split())
    for char in ("\\", "|", "[", "]", "*", "_", "`", "<"):
        cleaned = cleaned.replace(char, "\\" + char)
    return cleaned


def table_row(values: Iterable[str]) -> str:
    return "| " + " | ".join(values) + " |"


def run_head(run: Run, link: str) -> str:
    """A column's head: the run's label or profile's name (linked to its report), the profile
    under a label, and when it ran."""
    name = f"[{text(run.name)}]({link})" if link else text(run.name)
    profile = f"<br>profile {text(run.profile)}" if run.label else ""
    return f"{name}{profile}<br>ran {text(run.ran_at())}"


def cell_md(cell: Cell) -> str:
    """**verdict** (linked to the rule in the run's report): reason."""
    verdict = f"[**{cell.verdict}**]({cell.link})" if cell.link else f"**{cell.verdict}**"
    return f"{verdict}: {text(cell.reason)}" if cell.reason else verdict


def rules_table(rows: list[Row], heads: list[str]) -> list[str]:
    """One table row per rule: id, level, section, title, then one cell per run."""
    lines = [
        table_row(["Rule", "Level", "Section", "Title", *heads]),
        table_row(["---"] * (4 + len(heads))),
    ]
    for row in rows:
        rule = row.rule
        head = [f"`{rule.id}`", rule.level, text(heading(rule.section)), text(rule.title)]
        lines.append(table_row([*head, *(cell_md(cell) for cell in row.cells)]))
    return lines


def failed_text(run: Run) -> str:
    """The spec rules a run failed, then those it failed as known deviations."""
    failed, known = run.failing_spec_rules(), run.failing_spec_rules(EXPECTED_FAILURE)
    parts = [f"{len(failed)}: " + ", ".join(f"`{i}`" for i in failed) if failed else "none"]
    if known:
        parts.append(f"{len(known)} as known deviations: " + ", ".join(f"`{i}`" for i in known))
    return "; ".join(parts)


def summary_table(matrix: Matrix, heads: list[str]) -> list[str]:
    """Result, rules checked, section 9 description and failed spec rules of each deployment."""
    runs = matrix.runs
    checked = ["{} of {}".format(*run.checked_count()) for run in runs]
    return [
        table_row(["", *heads]),
        table_row(["---"] * (1 + len(heads))),
        table_row(["Result", *(text(str(r.document.get("conclusion") or "?")) for r in runs)]),
        table_row(["Rules checked", *checked]),
        table_row(["Spec section 9 description", *(text(r.description()) for r in runs)]),
        table_row(["Spec rules failed", *(failed_text(r) for r in runs)]),
    ]


def render(matrix: Matrix) -> str:
    """The whole document."""
    heads = [run_head(run, link) for run, link in zip(matrix.runs, matrix.links, strict=True)]
    lines = ["# Deployment matrix", "", intro(matrix), "", "## Summary", ""]
    lines += summary_table(matrix, heads)
    for title, rows in groups(matrix):
        lines += ["", f"## {title} ({len(rows)})", ""]
        lines += rules_table(rows, heads) if rows else ["None."]
    return "\n".join(lines) + "\n"
