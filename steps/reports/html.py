"""report.html: one self-contained page (inline CSS, no scripts) a person can read rule by rule."""

from __future__ import annotations

from pathlib import Path

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from html import escape
from typing import Any

from steps.reports.description import headline
from steps.reports.sections import by_section, heading
from steps.reports.terminal import counts_text
from steps.reports.verdicts import (
    EXPECTED_FAILURE,
    FAIL,
    NOT_RUN,
    UNCHECKED,
    VERDICT_ORDER,
    WARNING,
    RuleVerdict,
    ScenarioResult,
)

#: A body longer than this shows its start and end; the whole body sits in a collapsed block.
BODY_LIMIT = 4000
OPEN_VERDICTS = {FAIL, WARNING, EXPECTED_FAILURE, UNCHECKED}
#: What the page says about the deployment, by exit status.
RESULTS = {
    0: "conforms to the spec",
    1: "does not conform to the spec",
    2: "was not checked: no rule ran",
    3: "could not be checked completely: no spec rule failed, but some could not be checked",
}

CSS = """
body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1100px;padding:0 1rem;
color:#1d1d1f;background:#fff}
h1{font-size:1.5rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin-top:2rem;
border-bottom:1px solid #ddd;padding-bottom:.2rem}
.meta{color:#555;margin:.2rem 0}.counts{font-weight:600}
table{border-collapse:collapse;margin:.5rem 0}td,th{padding:.25rem .6rem;text-align:left;
border-bottom:1px solid #eee;vertical-align:top}
details.rule{border:1px solid #e3e3e3;border-radius:6px;margin:.4rem 0;padding:.3rem .6rem}
details.rule>summary{cursor:pointer;list-style-position:outside}
.id{font-family:ui-monospace,monospace;font-weight:600;margin:0 .4rem}
.v{display:inline-block;min-width:7.5rem;text-align:center;border-radius:4px;
padding:0 .4rem;font-size:.85rem;font-weight:600;color:#fff;background:#888}
.v-pass{background:#1f7a34}.v-fail{background:#c0262d}.v-warning{background:#b06d00}
.v-expected-failure{background:#2b7a8c}.v-unexpected-pass{background:#8a2b8c}
.v-skipped,.v-not-run{background:#8a8a8a}.v-observed{background:#3558a8}
.v-could-not-be-checked{background:#6b5b00}.o-unchecked{color:#6b5b00;font-weight:600}
.o-failed{color:#c0262d;font-weight:600}.o-passed{color:#1f7a34}.o-skipped{color:#777}
pre{background:#f6f6f7;border:1px solid #e6e6e6;border-radius:4px;padding:.5rem;
overflow-x:auto;white-space:pre-wrap;word-break:break-all;font-size:.82rem}
.msg{background:#fff4f4;border-color:#f1c8c8}ul.sc{margin:.3rem 0;padding-left:1.2rem}
.result-ok{color:#1f7a34}.result-bad{color:#c0262d}.result-partial{color:#6b5b00}
"""


def _badge(verdict: str) -> str:
    css = "v-" + verdict.replace(" ", "-")
    return f'<span class="v {css}">{escape(verdict)}</span>'


def _body_text(body: Any) -> str:
    if body is None or body == "":
        return ""
    return body if isinstance(body, str) else json.dumps(body, indent=2, ensure_ascii=False)


def head_and_tail(text: str, limit: int = BODY_LIMIT) -> str:
    """A long text's start and end (an error page often names the error at its end)."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n… ({len(text) - 2 * half} characters left out) …\n{text[-half:]}"


def _headers_text(headers: Any) -> list[str]:
    items = headers.items() if isinstance(headers, Mapping) else (headers or ())
    return [f"{name}: {value}" for name, value in items]


def exchange_text(exchange: Mapping[str, Any], limit: int | None = BODY_LIMIT) -> str:
    """An HTTP exchange as plain text: request line, headers, body; then the response (long
    bodies as start and end unless `limit` is None)."""
    req = exchange.get("request") or {}
    res = exchange.get("response") or {}
    cut = (lambda text: text) if limit is None else (lambda text: head_and_tail(text, limit))
    lines = [f"{req.get('method', '?')} {req.get('url', '')}", *_headers_text(req.get("headers"))]
    if body := _body_text(req.get("body")):
        lines += ["", cut(body)]
    lines += ["", f"← {res.get('status', '?')}", *_headers_text(res.get("headers"))]
    if error := res.get("error"):
        lines += [f"(transport error: {error})"]
    if body := _body_text(res.get("body")):
        lines += ["", cut(body)]
    return "\n".join(lines)


def _is_long(exchange: Mapping[str, Any]) -> bool:
    parts = (exchange.get("request") or {}, exchange.get("response") or {})
    return any(len(_body_text(part.get("body"))) > BODY_LIMIT for part in parts)


def exchange_html(number: int, exchange: Mapping[str, Any]) -> str:
    """One exchange; a long body shows start and end, and in full in a collapsed block."""
    block = f"<p>Exchange {number}</p><pre>{escape(exchange_text(exchange))}</pre>"
    if _is_long(exchange):
        full = escape(exchange_text(exchange, limit=None))
        block += f"<details><summary>exchange {number} in full</summary><pre>{full}</pre></details>"
    return block


def evidence_html(evidence: Iterable[Mapping[str, Any]]) -> str:
    """Each exchange in its own block, numbered."""
    blocks = [exchange_html(n, ex) for n, ex in enumerate(evidence, 1)]
    return "".join(blocks) or "<p><em>No HTTP exchange recorded.</em></p>"


def scenario_html(scenario: ScenarioResult) -> str:
    """A scenario: outcome, failure message and evidence (collapsed unless it failed)."""
    head = (
        f'<span class="o-{escape(scenario.outcome)}">{escape(scenario.outcome)}</span> '
        f"{escape(scenario.name)} <small>({escape(scenario.feature or scenario.nodeid)})</small>"
    )
    parts = [f"<li>{head}"]
    if scenario.notes:
        notes = "".join(f"<li>{escape(note)}</li>" for note in scenario.notes)
        parts.append(f'<ul class="notes">{notes}</ul>')
    if scenario.outcome in ("failed", "unchecked"):
        if scenario.message:
            parts.append(f'<pre class="msg">{escape(scenario.message)}</pre>')
        if scenario.cause:
            parts.append(f"<p><small>caused by: {escape(scenario.cause)}</small></p>")
        parts.append(evidence_html(scenario.evidence))
    elif scenario.evidence:
        parts.append(
            f"<details><summary>evidence ({len(scenario.evidence)} exchanges)</summary>"
            f"{evidence_html(scenario.evidence)}</details>"
        )
    elif scenario.outcome == "skipped" and scenario.message:
        parts.append(f"<br><small>{escape(scenario.message)}</small>")
    return "".join(parts) + "</li>"


#: The rule index of a source checkout (docs/rules.md), linked from each verdict; an installed
#: copy prints an entry with `mb-oauth-conformance rule ID`.
RULE_INDEX = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def index_link(rule_id: str) -> str:
    """Where a verdict's rule lives: its entry of the rule index."""
    command = f"<code>mb-oauth-conformance rule {escape(rule_id)}</code>"
    if not RULE_INDEX.is_file():
        return f'<p class="meta">Where this rule lives: {command}</p>'
    href = f"{RULE_INDEX.as_uri()}#{rule_id.lower()}"
    return f'<p class="meta">Where this rule lives: <a href="{href}">its index entry</a> ({command})</p>'


def rule_html(verdict: RuleVerdict) -> str:
    """A rule as a <details> block, open when it did not pass, linked to its index entry."""
    is_open = " open" if verdict.verdict in OPEN_VERDICTS else ""
    why = f": {escape(verdict.deviation_reason)}" if verdict.deviation_reason else ""
    deviation = f" <small>(known deviation{why})</small>" if verdict.known_deviation else ""
    scenarios = "".join(scenario_html(s) for s in verdict.scenarios)
    return (
        f'<details class="rule" id="{escape(verdict.id)}"{is_open}><summary>'
        f'{_badge(verdict.verdict)}<span class="id">{escape(verdict.id)}</span>'
        f"{escape(verdict.title)} <small>[{escape(verdict.level)}]</small>{deviation}</summary>"
        f'{index_link(verdict.id)}<ul class="sc">{scenarios}</ul></details>'
    )


def _anchor(section: str) -> str:
    return "s-" + "-".join(section.split()).replace(".", "_")


def section_html(section: str, verdicts: list[RuleVerdict]) -> str:
    """A section heading with counts and its rules (rules that did not run are left out)."""
    ran = [v for v in verdicts if v.verdict != NOT_RUN]
    if not ran:
        return ""
    counts = counts_text(Counter(v.verdict for v in ran))
    rules = "".join(rule_html(v) for v in ran)
    title = f"{escape(heading(section))} <small>({escape(counts)})</small>"
    return f'<h2 id="{_anchor(section)}">{title}</h2>{rules}'


def overview_html(groups: list[tuple[str, list[RuleVerdict]]]) -> str:
    """One line per section with its counts, linking to the section."""
    rows = []
    for section, verdicts in groups:
        counts = Counter(v.verdict for v in verdicts if v.verdict != NOT_RUN)
        if counts:
            link = f'<a href="#{_anchor(section)}">{escape(heading(section))}</a>'
            badges = " ".join(f"{_badge(v)}&nbsp;{counts[v]}" for v in VERDICT_ORDER if counts[v])
            rows.append(f"<tr><td>{link}</td><td>{badges}</td></tr>")
    return f"<h2>By section</h2><table>{''.join(rows)}</table>"


def description_html(description: Mapping[str, Any]) -> str:
    """The section 9 table: item, behaviour, which description, evidence."""
    rows = []
    for item in description.get("items", ()):
        rules = ", ".join(f"{r['id']}: {r['verdict']}" for r in item.get("rules", ()))
        evidence = "; ".join(x for x in (item.get("evidence"), rules) if x)
        rows.append(
            f"<tr><td>{escape(item['label'])}</td><td>{escape(item['behaviour'])}</td>"
            f"<td>{escape(item['follows'])}</td><td>{escape(item['source'])}</td>"
            f"<td>{escape(evidence)}</td></tr>"
        )
    return (
        f"<h2>Which description? (spec section 9)</h2><p>{escape(headline(description))}</p>"
        "<table><tr><th>Item</th><th>Behaviour seen</th><th>Description</th><th>From</th>"
        f"<th>Evidence</th></tr>{''.join(rows)}</table>"
    )


def observations_html(observed: Mapping[str, Any]) -> str:
    """The facts recorded where the spec says "not shown" (formats, headers, field names)."""
    if not observed:
        return ""
    rows = "".join(
        f"<tr><td>{escape(str(key))}</td><td><code>{escape(_observed_text(value))}</code></td></tr>"
        for key, value in sorted(observed.items())
    )
    return f"<h2>Observations</h2><table>{rows}</table>"


def _observed_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def header_html(document: Mapping[str, Any]) -> str:
    """Title, target, times and the overall result."""
    status = document.get("exit_status")
    result = RESULTS.get(status, "does not conform to the spec")  # type: ignore[arg-type]
    css = {0: "result-ok", 3: "result-partial"}.get(status, "result-bad")  # type: ignore[arg-type]
    strict = " (strict: rfc warnings count)" if document.get("strict") else ""
    summary = {k: v for k, v in document.get("summary", {}).items() if k != NOT_RUN}
    return (
        "<h1>MusicBrainz OAuth 2.0 conformance report</h1>"
        f'<p class="meta">Target <b>{escape(str(document.get("target", "")))}</b>, profile '
        f"<b>{escape(str(document.get('profile', '')))}</b>; run "
        f"{escape(str(document.get('started', '')))} – {escape(str(document.get('finished', '')))}"
        "</p>"
        f'<p class="counts {css}">The deployment {result}'
        f"{escape(strict)} — exit status {escape(str(status))}.</p>"
        f'<p class="meta">Rules: {escape(counts_text(summary) or "none ran")}.</p>'
        f"{safety_html(document.get('safety') or ())}"
        f"{skips_html(document.get('skip_reasons') or {})}"
    )


def safety_html(lines: Iterable[str]) -> str:
    """What the suite kept the deployment from doing (and how its browser ran)."""
    items = "".join(f"<li>{escape(str(line))}</li>" for line in lines)
    return f'<p class="meta"><b>Safety:</b></p><ul class="sc">{items}</ul>' if items else ""


def readings_html(readings: Iterable[Mapping[str, Any]]) -> str:
    """How answers were read leniently (and which rule judges that) and sampled."""
    items = "".join(
        f"<li>{escape(str(item.get('note', '')))} ({item.get('scenarios', 0)} scenario(s))</li>"
        for item in readings
    )
    return f'<p class="meta">How answers were read:</p><ul class="sc">{items}</ul>' if items else ""


def skips_html(reasons: Mapping[str, int]) -> str:
    """Why scenarios were skipped, with counts."""
    if not reasons:
        return ""
    items = "".join(f"<li>{count} × {escape(reason)}</li>" for reason, count in reasons.items())
    return f'<p class="meta">Skipped scenarios:</p><ul class="sc">{items}</ul>'


def render(document: Mapping[str, Any], verdicts: list[RuleVerdict]) -> str:
    """The whole page."""
    groups = by_section(verdicts)
    sections = overview_html(groups) + "".join(section_html(s, group) for s, group in groups)
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        "<title>Conformance report</title>"
        f"<style>{CSS}</style></head><body>{header_html(document)}"
        f"{description_html(document.get('description', {}))}{sections}"
        f"{readings_html(document.get('readings') or ())}"
        f"{observations_html(document.get('observations', {}))}</body></html>\n"
    )
