"""Headings of the spec sections, so reports read "4.4 Revocation endpoint", not "4.4"."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import groupby

from steps.reports.verdicts import RuleVerdict, section_key

SPEC_SECTIONS = {
    "1": "What the service does",
    "2": "Resources and their fields",
    "2.1": "Registered application",
    "2.2": "Authorization code",
    "2.3": "Token response",
    "2.4": "Scopes",
    "3": "States and transitions",
    "4": "Endpoints",
    "4.1": "Authorization endpoint",
    "4.2": "Token endpoint: exchange a code",
    "4.3": "Token endpoint: refresh an access token",
    "4.4": "Revocation endpoint",
    "4.5": "User information",
    "5": "Authentication",
    "6": "Events",
    "7": "Errors",
    "7.1": "Errors of the authorization endpoint",
    "7.2": "Errors of the token and revoke endpoints",
    "8": "Limits",
    "9": "Versioning",
}


def heading(section: str) -> str:
    """'4.4 Revocation endpoint' for spec sections; RFC clauses as they are."""
    title = SPEC_SECTIONS.get(section.strip())
    return f"{section} {title}" if title else section


def by_section(verdicts: Iterable[RuleVerdict]) -> list[tuple[str, list[RuleVerdict]]]:
    """Verdicts grouped by section, in natural section order."""
    ordered = sorted(verdicts, key=lambda v: (section_key(v.section), v.id))
    return [(s, list(group)) for s, group in groupby(ordered, key=lambda v: v.section)]
