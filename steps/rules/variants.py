"""The variants a scenario samples, read from its own words (name and steps after the
Examples row is filled in), so no declaration can claim more than the scenario does.

A rule's `variants` in features/rules.toml say what its words cover; tests/suite/test_variants.py
wants every declared variant sampled by some scenario of the rule."""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Dimension -> value -> the words that sample it.
PATTERNS: dict[str, dict[str, re.Pattern[str]]] = {
    "client": {
        "web": re.compile(r"\bweb application\b|\bthe (?:second )?web\b"),
        "installed": re.compile(r"\binstalled application\b|\bthe installed\b"),
    },
    "grant": {
        "code": re.compile(r"\bexchanges the code\b|\bthe code exchange\b"),
        "refresh": re.compile(r"\brefreshes\b|\bthe refresh (?:said|answered|is refused)\b"),
    },
    "delivery": {
        "header": re.compile(r"with the token in the Authorization header"),
        "body": re.compile(r"with the token in a form body"),
        "query": re.compile(r"with the token in the query string"),
    },
    "error": {
        "access_denied": re.compile(r"\baccess_denied\b|denies the request"),
        "invalid_scope": re.compile(r"\binvalid_scope\b"),
        "unsupported_response_type": re.compile(r"\bunsupported_response_type\b"),
        "invalid_request": re.compile(r"\binvalid_request\b"),
    },
    "token": {
        "unknown": re.compile(r"never issued|only resembles|last character|a character added"),
        "used": re.compile(r"exchanges the code again|refresh token it sent first"),
        "foreign": re.compile(r"another web application (?:exchanges|refreshes|revokes)"),
        "revoked": re.compile(r"has revoked|revokes the"),
        "expired": re.compile(r"seconds pass"),
    },
}


def sampled(name: str, steps: Iterable[str]) -> dict[str, set[str]]:
    """The variants one scenario samples, by dimension."""
    text = "\n".join([name, *steps])
    return {
        dimension: {value for value, pattern in values.items() if pattern.search(text)}
        for dimension, values in PATTERNS.items()
    }
