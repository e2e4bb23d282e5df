"""The suite's command-line options (pytest's own --strict doubles as the suite's strict
verdicts)."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from steps.rules.catalogue import LEVELS, Rule


def add_options(parser: pytest.Parser) -> None:
    """Register the options of the `mb-oauth` group."""
    group = parser.getgroup("mb-oauth", "MusicBrainz OAuth 2.0 conformance suite")
    group.addoption("--profile", help="Deployment profile (TOML) of the target.")
    group.addoption("--target", help="Base URL overriding the profile's base_url.")
    group.addoption("--report-dir", help="Where results.json and the reports go.")
    group.addoption("--level", action="append", choices=LEVELS, help="Run only rules of a level.")
    group.addoption("--rule", action="append", help="Run only scenarios of a rule id (repeatable).")
    group.addoption("--run-slow", action="store_true", help="Run real-time waits (@slow).")
    group.addoption(
        "--run-lasting", action="store_true", help="Run scenarios that change lasting state."
    )
    group.addoption("--min-interval", type=float, help="Seconds between requests (pacing).")
    group.addoption(
        "--combinations",
        choices=("pairs", "product"),
        default="pairs",
        help="pairs: every pair of values of a rule's dimensions (the full product where it is "
        "small); product: every combination (the rows tagged @product too).",
    )
    group.addoption(
        "--no-preflight",
        action="store_true",
        help="Skip the checks of target, TLS, credentials and login (the runner did them).",
    )


def add_markers(config: pytest.Config, rules: Iterable[Rule]) -> None:
    """One marker per rule id (level, section, title), per level, and @slow and @lasting."""
    for rule in rules:
        config.addinivalue_line(
            "markers", f"{rule.id}: [{rule.level}, {rule.section}] {rule.title}"
        )
    for level in LEVELS:
        config.addinivalue_line("markers", f"{level}: a rule level of the conformance suite")
    config.addinivalue_line(
        "markers", "slow: waits in real time unless the target has a test clock"
    )
    config.addinivalue_line("markers", "lasting: changes lasting state on the target")
    config.addinivalue_line(
        "markers", "product: a combination beyond all-pairs, run with --combinations product"
    )
