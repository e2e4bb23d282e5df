"""The pages of the metabrainz.org provider as a driver reads them: React shells whose data is
one JSON object in `<script id="page-react-props" type="application/json">` (no HTML form).

Each page is recognised by the shape of that object, as observed on the provider (the
foreign-style stand-in, tests/suite/foreign/pages.py, serves exactly these shapes); a page of
any other shape is `None`, so the driver stops instead of guessing what it means."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from steps.http.html import soup

LOGIN, CONSENT, ERROR, APPLICATIONS = "login", "consent", "error", "applications"


@dataclass(frozen=True)
class PropsPage:
    """A recognised page: its kind and its props."""

    kind: str
    props: Mapping[str, Any] = field(default_factory=dict)

    def text(self, key: str) -> str:
        """A string field of the props ("" when absent)."""
        value = self.props.get(key)
        return value if isinstance(value, str) else ""


def page_props(html: str) -> dict[str, Any] | None:
    """The page's props, or None when it has no props object that parses."""
    if "page-react-props" not in html:
        return None
    node = soup(html).select_one('script#page-react-props[type="application/json"]')
    if node is None:
        return None
    try:
        props = json.loads(node.get_text())
    except ValueError:
        return None
    return props if isinstance(props, dict) else None


def recognise(url: str, html: str, login_path: str) -> PropsPage | None:
    """The kind of page, from its props (and, for the login page, its path)."""
    props = page_props(html)
    if props is None:
        return None
    kind = _kind(props, urlsplit(url).path == login_path)
    return None if kind is None else PropsPage(kind, props)


def _kind(props: Mapping[str, Any], at_login: bool) -> str | None:
    error = props.get("error")
    if isinstance(error, Mapping) and isinstance(error.get("name"), str):
        return ERROR
    strings = {key for key, value in props.items() if isinstance(value, str)}
    if {"csrf_token", "submission_url", "cancel_url"} <= strings:
        return CONSENT
    if at_login and "csrf_token" in strings:
        return LOGIN
    tokens = props.get("tokens")
    if isinstance(tokens, list) and all(isinstance(entry, Mapping) for entry in tokens):
        return APPLICATIONS
    return None


def describe(html: str) -> str:
    """What the driver saw on a page it does not recognise (for the message)."""
    props = page_props(html)
    if props is None:
        return "no page-react-props object"
    return "page-react-props with the keys " + (", ".join(sorted(props)) or "(none)")


def login_errors(props: Mapping[str, Any]) -> str:
    """The reason a refused login page gives (`initial_errors`), as one line."""
    errors = props.get("initial_errors")
    if isinstance(errors, Mapping):
        parts = [f"{key}: {_flat(value)}" for key, value in errors.items()]
        return "; ".join(parts)
    return _flat(errors)


def _flat(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "; ".join(_flat(item) for item in value)
    return "" if value is None else str(value)
