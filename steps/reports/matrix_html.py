"""matrix.html: the deployment matrix as one self-contained page (inline CSS, no scripts), in
the look of report.html, whose stylesheet and verdict colours it reuses."""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

from steps.reports.html import CSS
from steps.reports.matrix import (
    AGREE,
    DIFFER,
    KNOWN_DEVIATION,
    SOME,
    Cell,
    Matrix,
    Row,
    groups,
    intro,
)
from steps.reports.runs import Run
from steps.reports.sections import heading
from steps.reports.verdicts import EXPECTED_FAILURE

#: The report's badge class of each verdict a cell shows ("known deviation" is the report's
#: "expected failure"); other verdicts take their own name.
BADGE = {KNOWN_DEVIATION: "v-expected-failure"}
#: Up to this many failed spec rules are listed in the summary; more fold into <details>.
FAILED_SHOWN = 6

MATRIX_CSS = """
body{max-width:none;margin:1.5rem}
table.matrix{border-collapse:separate;border-spacing:0;width:100%;table-layout:fixed}
table.matrix [id]{scroll-margin-top:6rem}
table.matrix th,table.matrix td{border-bottom:1px solid #e6e6e6;border-right:1px solid #f0f0f0}
table.matrix thead th{position:sticky;top:0;background:#fff;z-index:1;
border-bottom:2px solid #ccc}
col.rule{width:22rem}
.rule .id{margin:0}.rule small{display:block;color:#666}
.rule .title{display:block;font-size:.85rem;color:#333;margin-top:.1rem}.dep small{color:#666}
tr.group th{background:#f3f4f6;font-size:1rem;padding:.5rem .6rem}
tbody.summary th,tbody.summary td{background:#fafafa;font-size:.88rem}
td.cell{font-size:.82rem}
td.cell .why{display:block;color:#444;margin-top:.15rem;overflow-wrap:anywhere}
td.c-fail{background:#fff4f4}td.c-warning{background:#fff9ec}
td.c-known-deviation{background:#eef7f9}td.c-could-not-be-checked{background:#fbf8e6}
td.c-not-run .why{color:#888}
.ids a,tbody.summary details a{white-space:nowrap}a.v{text-decoration:none}
a.v:hover,a.v:focus{outline:2px solid #1d1d1f}
.v-known-deviation{background:#2b7a8c}
"""


def badge(verdict: str, link: str = "", label: str = "") -> str:
    """A verdict in the report's colours; a link into the run's report when there is one."""
    css = BADGE.get(verdict, "v-" + verdict.replace(" ", "-"))
    text = escape(verdict)
    if not link:
        return f'<span class="v {css}">{text}</span>'
    return f'<a class="v {css}" href="{escape(link)}" title="{escape(label)}">{text}</a>'


def run_header(run: Run, link: str) -> str:
    """A column's head: the run's label or profile's name, the profile under a label, when it
    ran, and its folder."""
    name = escape(run.name)
    name = f'<a href="{escape(link)}">{name}</a>' if link else name
    took = f", {escape(run.duration())}" if run.duration() else ""
    profile = f"profile {escape(run.profile)}<br>" if run.label else ""
    return (
        f'<th class="dep" scope="col">{name}<br><small>{profile}ran {escape(run.ran_at())}'
        f"{took}<br>{escape(run.folder.name)}/</small></th>"
    )


def cell_html(cell: Cell, label: str) -> str:
    """One rule in one run: badge (linked), and the reason below it."""
    css = "c-" + cell.verdict.replace(" ", "-")
    why = f'<span class="why">{escape(cell.reason)}</span>' if cell.reason else ""
    return f'<td class="cell {css}">{badge(cell.verdict, cell.link, label)}{why}</td>'


def row_html(row: Row, runs: tuple[Run, ...]) -> str:
    """A rule's row: id, level, section and title, then one cell per run."""
    rule = row.rule
    head = (
        f'<td class="rule"><span class="id">{escape(rule.id)}</span> '
        f"<small>{escape(rule.level)} · {escape(heading(rule.section))}</small>"
        f'<span class="title">{escape(rule.title)}</span></td>'
    )
    cells = "".join(
        cell_html(cell, f"{rule.id} in the report of {run.name}")
        for cell, run in zip(row.cells, runs, strict=True)
    )
    return f'<tr id="rule-{escape(rule.id)}">{head}{cells}</tr>'


def _summary_row(label: str, values: Iterable[str]) -> str:
    cells = "".join(f"<td>{value}</td>" for value in values)
    return f'<tr><th scope="row">{escape(label)}</th>{cells}</tr>'


def rule_links(ids: list[str], what: str) -> str:
    """Links to the rows of some rules; a long list folds away (the rows show each one)."""
    links = ", ".join(f'<a href="#rule-{escape(i)}">{escape(i)}</a>' for i in ids)
    if len(ids) > FAILED_SHOWN:
        return f"<details><summary>{len(ids)} {what}</summary>{links}</details>"
    return f'{len(ids)}: <span class="ids">{links}</span>'


def failed_html(run: Run) -> str:
    """The spec rules a run failed, then those it failed as known deviations."""
    failed, known = run.failing_spec_rules(), run.failing_spec_rules(EXPECTED_FAILURE)
    shown = rule_links(failed, "spec rules") if failed else "none"
    if known:
        shown += f"<br>as known deviations: {rule_links(known, 'spec rules')}"
    return shown


def summary_html(matrix: Matrix) -> str:
    """What each deployment comes to: its result, the rules it checked, its section 9
    description, the spec rules it failed (known deviations apart)."""
    runs = matrix.runs
    checked = ("{} of {}".format(*run.checked_count()) for run in runs)
    return (
        '<tbody class="summary">'
        + _summary_row("Result", (escape(str(r.document.get("conclusion") or "?")) for r in runs))
        + _summary_row("Rules checked", checked)
        + _summary_row("Spec section 9 description", (escape(r.description()) for r in runs))
        + _summary_row("Spec rules failed", (failed_html(r) for r in runs))
        + "</tbody>"
    )


def group_html(title: str, anchor: str, rows: list[Row], matrix: Matrix) -> str:
    """A titled group of rows (the differences; the rest)."""
    span = len(matrix.runs) + 1
    head = f'<tr class="group"><th colspan="{span}" id="{anchor}">{escape(title)}</th></tr>'
    return f"<tbody>{head}{''.join(row_html(row, matrix.runs) for row in rows)}</tbody>"


def columns() -> str:
    """A fixed rule column; the runs' columns share the rest of the width equally."""
    return '<colgroup><col class="rule"></colgroup>'


#: The page's anchor of each group of rows.
ANCHORS = {DIFFER: "differ", SOME: "some", AGREE: "agree"}


def render(matrix: Matrix) -> str:
    """The whole page."""
    heads = "".join(
        run_header(run, link) for run, link in zip(matrix.runs, matrix.links, strict=True)
    )
    jumps = " · ".join(
        f'<a href="#{ANCHORS[title]}">{escape(title)} ({len(rows)})</a>'
        for title, rows in groups(matrix)
    )
    about = (
        f'<p class="meta">{escape(intro(matrix))} Each verdict links to the rule in that '
        f'run\'s report.</p><p class="meta">{jumps}</p>'
    )
    body = "".join(
        group_html(f"{title} ({len(rows)})", ANCHORS[title], rows, matrix)
        for title, rows in groups(matrix)
    )
    table = (
        f'<table class="matrix">{columns()}<thead><tr><th scope="col">Rule</th>'
        f"{heads}</tr></thead>{summary_html(matrix)}{body}</table>"
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        "<title>Deployment matrix</title>"
        f"<style>{CSS}{MATRIX_CSS}</style></head><body>"
        f"<h1>Deployment matrix</h1>{about}{table}</body></html>\n"
    )
