"""The terminal summary: section by section, one line per rule, colour only on a tty."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

import click

from steps.reports.description import ITEMS, headline
from steps.reports.sections import by_section, heading
from steps.reports.verdicts import (
    EXPECTED_FAILURE,
    FAIL,
    NOT_RUN,
    OBSERVED,
    PASS,
    SKIPPED,
    UNCHECKED,
    UNEXPECTED_PASS,
    VERDICT_ORDER,
    WARNING,
    RuleVerdict,
)

COLOURS: dict[str, str] = {
    PASS: "green",
    FAIL: "red",
    WARNING: "yellow",
    EXPECTED_FAILURE: "cyan",
    UNEXPECTED_PASS: "magenta",
    SKIPPED: "bright_black",
    OBSERVED: "blue",
    UNCHECKED: "yellow",
}
LABELS: dict[str, str] = {
    FAIL: "FAIL",
    WARNING: "WARN",
    EXPECTED_FAILURE: "XFAIL",
    UNEXPECTED_PASS: "XPASS",
    UNCHECKED: "UNCHECKED",
}
#: Colour of the closing line by exit status (0 conforms, 1 not, 2 nothing checked, 3 partial).
STATUS_COLOURS = {0: "green", 1: "red", 2: "red", 3: "yellow"}
WIDTH = 100
STEP_KEYWORDS = ("Given", "When", "Then", "And", "But", "*")
MAX_EVIDENCE = 4
ID_WIDTH = (24, 36)  # the rule id column grows with the longest id, within these bounds


def _label(verdict: str, colour: bool) -> str:
    text = f"{LABELS.get(verdict, verdict):<9}"
    return click.style(text, fg=COLOURS.get(verdict), bold=verdict == FAIL) if colour else text


def counts_text(counts: Mapping[str, int]) -> str:
    """'3 pass, 1 fail' in the fixed verdict order, zero counts left out."""
    return ", ".join(f"{counts[v]} {v}" for v in VERDICT_ORDER if counts.get(v))


def _first_line(text: str, limit: int) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line if len(line) <= limit else line[: limit - 1] + "…"


def rule_lines(verdict: RuleVerdict, colour: bool, id_width: int = 30) -> list[str]:
    """The rule's line, plus one line per failed scenario for rules that did not pass."""
    title = _first_line(verdict.title, max(30, WIDTH - id_width - 12))
    lines = [f"  {_label(verdict.verdict, colour)} {verdict.id:<{id_width}} {title}"]
    if verdict.known_deviation and verdict.deviation_reason:
        reason = _first_line(verdict.deviation_reason, WIDTH - 31)
        lines.append(f"              known deviation: {reason}")
    shown = {FAIL: "failed", WARNING: "failed", EXPECTED_FAILURE: "failed"}
    shown[UNCHECKED] = "unchecked"
    wanted = shown.get(verdict.verdict)
    mark = "?" if verdict.verdict == UNCHECKED else "✗"
    for scenario in verdict.scenarios:
        if wanted and scenario.outcome == wanted:
            message = scenario.message.split(" (caused by: ", 1)[0]
            step, reason = _step_and_reason(message.removeprefix(f"{UNCHECKED}: "))
            why = _first_line(reason, WIDTH - 16) or scenario.outcome
            lines.append(f"              {mark} {_first_line(scenario.name, 60)}: {why}")
            if step and verdict.verdict == UNCHECKED:
                lines.append(f"                at: {_first_line(step, WIDTH - 20)}")
            if scenario.cause:
                lines.append(f"                caused by: {_first_line(scenario.cause, WIDTH - 16)}")
    return lines


def _step_and_reason(message: str) -> tuple[str, str]:
    """'Given ...: reason' split into the step and the reason (the whole message otherwise)."""
    head, sep, rest = message.partition(": ")
    if sep and head.split(" ", 1)[0] in STEP_KEYWORDS:
        return head, rest
    return "", message


def section_lines(
    section: str, verdicts: list[RuleVerdict], colour: bool, id_width: int = 30
) -> list[str]:
    """A heading with counts, then the rules that ran."""
    ran = [v for v in verdicts if v.verdict != NOT_RUN]
    if not ran:
        return []
    counts = counts_text(Counter(v.verdict for v in ran))
    title = heading(section)
    head = click.style(title, bold=True) if colour else title
    lines = [f"{head}  ({counts})"]
    for verdict in ran:
        lines.extend(rule_lines(verdict, colour, id_width))
    return lines


def _deciding(item: Mapping[str, Any]) -> list[str]:
    """The rules worth naming for an item: the deciding ones, then any that did not pass."""
    pattern = next((i.primary for i in ITEMS if i.key == item.get("item")), "")
    rules = item.get("rules", ())
    chosen = [r for r in rules if pattern and re.search(pattern, r["id"])]
    chosen += [r for r in rules if r not in chosen and r["verdict"] not in (PASS, SKIPPED)]
    shown = [f"{r['id']}={r['verdict']}" for r in chosen[:MAX_EVIDENCE]]
    if len(chosen) > MAX_EVIDENCE:
        shown.append(f"+{len(chosen) - MAX_EVIDENCE} more")
    return shown


def description_lines(description: Mapping[str, Any]) -> list[str]:
    """The section 9 headline and one line per item with what it rests on."""
    lines = [headline(description)]
    for item in description.get("items", ()):
        basis = item.get("evidence") or ", ".join(_deciding(item))
        suffix = f"  [{basis}]" if basis else ""
        lines.append(f"  - {item['label']}: {item['behaviour']}{suffix}")
    return lines


def render(document: Mapping[str, Any], verdicts: list[RuleVerdict], colour: bool = False) -> str:
    """The whole summary as text."""
    profile = document.get("profile") or "?"
    lines = [f"MusicBrainz OAuth 2.0 conformance of {document.get('target')} (profile: {profile})"]
    lines += description_lines(document.get("description", {}))
    shown = [v.id for v in verdicts if v.verdict != NOT_RUN]
    id_width = min(max([ID_WIDTH[0], *map(len, shown)]), ID_WIDTH[1])
    for section, group in by_section(verdicts):
        body = section_lines(section, group, colour, id_width)
        if body:
            lines += ["", *body]
    safety = [f"Safety: {line}" for line in document.get("safety") or ()]
    lines += ["", *safety] if safety else []
    skipped = skip_lines(document)
    lines += ["", *skipped] if skipped else []
    read = reading_lines(document)
    lines += ["", *read] if read else []
    lines += ["", result_line(document, colour)]
    return "\n".join(lines) + "\n"


def reading_lines(document: Mapping[str, Any]) -> list[str]:
    """How answers were read leniently and sampled, one line per kind (with its count)."""
    return [
        f"{item['note'][:1].upper()}{item['note'][1:]} ({item['scenarios']} scenario(s))"
        for item in document.get("readings") or ()
    ]


def skip_lines(document: Mapping[str, Any]) -> list[str]:
    """Why scenarios were skipped, one line per reason."""
    reasons = document.get("skip_reasons") or {}
    lines = [f"Skipped {count} scenario(s): {reason}" for reason, count in reasons.items()]
    pacing = document.get("pacing") or {}
    if pacing.get("failure_budget_wait"):
        lines.append(
            f"Paced: waited {pacing['failure_budget_wait']:.0f} s so that the deliberate failures "
            "stay within the profile's failures_per_minute"
        )
    if pacing.get("throttle_wait"):
        lines.append(f"Throttled: waited {pacing['throttle_wait']:.0f} s as the target asked")
    lines += cost_lines(document)
    consent = dict(document.get("consent") or {})
    driver = consent.pop("driver", None)
    if driver and consent:
        counts = ", ".join(f"{key} {value}" for key, value in consent.items())
        asked = sum(v for v in consent.values() if isinstance(v, int))
        lines.append(
            f"Prompts to a person ({driver} driver): {asked} ({counts})"
            if asked
            else f"Consent given by the {driver} driver: no person was asked"
        )
    return lines


def cost_lines(document: Mapping[str, Any]) -> list[str]:
    """What the run sent, and the combinations it left out (never silently)."""
    lines = []
    if document.get("requests"):
        lines.append(f"Requests sent to the target: {document['requests']}")
    combinations = document.get("combinations") or {}
    if combinations.get("not_run"):
        lines.append(
            f"Combinations: every pair of each rule's dimensions; {combinations['not_run']} "
            "scenario(s) of the full product not run (--combinations product runs them)"
        )
    elif combinations.get("mode") == "product":
        lines.append("Combinations: the full product of each rule's dimensions")
    return lines


def result_line(document: Mapping[str, Any], colour: bool) -> str:
    """The closing line: counts, the conclusion (never CONFORMS when a spec rule could not be
    checked or nothing was) and the exit status."""
    summary = {k: v for k, v in document.get("summary", {}).items() if k != NOT_RUN}
    status = document.get("exit_status")
    strict = " (strict)" if document.get("strict") else ""
    verdict = str(document.get("conclusion") or ("CONFORMS" if status == 0 else "DOES NOT CONFORM"))
    if colour:
        colour_name = STATUS_COLOURS.get(status, "red") if isinstance(status, int) else "red"
        verdict = click.style(verdict, fg=colour_name, bold=True)
    return f"Rules: {counts_text(summary) or 'none ran'}. {verdict}{strict} (exit {status})"
