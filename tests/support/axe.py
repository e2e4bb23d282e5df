"""axe-core, the accessibility rules engine, run inside a page that Playwright shows.

The script is the ``axe.min.js`` that the pinned PyPI package ``axe-playwright-python``
bundles (see constraints.txt): no download at test time, and the same engine everywhere.
Only the script is used; running it and reading the results are a few lines here, typed.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from tests.support.browser import missing_browser_part

# What a person cannot get past (axe's impacts: minor, moderate, serious, critical).
BLOCKING = frozenset({"serious", "critical"})


class EvaluatingPage(Protocol):
    """The part of Playwright's sync ``Page`` this module needs."""

    def evaluate(self, expression: str) -> Any: ...


@dataclass(frozen=True)
class Finding:
    """One rule broken by one element of one page."""

    rule: str
    impact: str
    help: str
    target: str
    html: str

    def __str__(self) -> str:
        return f"{self.rule} ({self.impact}): {self.help}\n    at {self.target}: {self.html}"


@cache
def axe_script() -> str:
    """The bundled axe-core; skip or fail (CI) through the browser switch when absent."""
    spec = importlib.util.find_spec("axe_playwright_python")
    if spec is None or spec.origin is None:
        missing_browser_part("axe-core is not installed (pip install -e '.[browser]')")
    return (Path(spec.origin).parent / "axe.min.js").read_text(encoding="utf-8")


def version() -> str:
    """axe-core's version, from the script's banner (``/*! axe v4.12.1``)."""
    return axe_script().split("\n", 1)[0].removeprefix("/*! axe v").strip()


def check(page: EvaluatingPage) -> list[Finding]:
    """Every violation axe finds on the page as it is now, all impacts.

    The script is evaluated through the DevTools protocol, which the page's
    Content-Security-Policy (no scripts at all) does not govern, as for a browser extension.
    """
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(axe_script())
    results = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [
        Finding(
            rule=violation["id"],
            impact=node.get("impact") or violation.get("impact") or "minor",
            help=violation["help"],
            target=" ".join(str(part) for part in node["target"]),
            html=node["html"],
        )
        for violation in results["violations"]
        for node in violation["nodes"]
    ]


def blocking(findings: list[Finding]) -> list[Finding]:
    """The serious and critical findings: the ones that must be zero."""
    return [finding for finding in findings if finding.impact in BLOCKING]
