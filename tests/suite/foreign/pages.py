"""React-shell pages: the markup is a frame, the page's data sits in a JSON blob
`<script id="page-react-props" type="application/json">` at the end, as on metabrainz.org."""

from __future__ import annotations

import html
import json
from typing import Any

from starlette.responses import HTMLResponse

NAV = "".join(
    f'<li class="nav-item"><a class="nav-link" href="/{name.lower()}">{name}</a></li>\n'
    for name in ("Projects", "Datasets", "Supporters", "Sponsors", "Team", "Conduct", "About") * 12
)
FOOTER = "".join(
    f'<p class="footer-line">MetaBrainz-like provider, section {n}: '
    "open data, open source, community maintained.</p>\n"
    for n in range(40)
)


def page(title: str, props: dict[str, Any], status: int = 200) -> HTMLResponse:
    """A ~9 KB shell whose only meaningful content is the props blob near its end."""
    blob = json.dumps(props).replace("</", "<\\/")
    body = (
        f"<!doctype html><html><head><title>{html.escape(title)}</title>"
        '<link rel="stylesheet" href="/static/main.css"></head><body>'
        f'<nav><ul class="navbar">{NAV}</ul></nav><div id="react-container"></div>'
        f"<footer>{FOOTER}</footer>"
        '<script src="/static/js/runtime.js"></script>'
        f'<script id="page-react-props" type="application/json">{blob}</script>'
        "</body></html>"
    )
    return HTMLResponse(body, status_code=status)


def error_page(name: str, description: str) -> HTMLResponse:
    """Every authorization error: its own page, HTTP 200, never a redirect."""
    return page("Error", {"component": "error", "error": name, "description": description})


def login_page(csrf: str, submission_url: str, failed: bool = False) -> HTMLResponse:
    props = {"component": "login", "csrf_token": csrf, "submission_url": submission_url}
    return page("Log in", props | ({"error": "Invalid username or password"} if failed else {}))


def consent_page(csrf: str, submission_url: str, client: str, scopes: list[str]) -> HTMLResponse:
    props = {
        "component": "consent",
        "csrf_token": csrf,
        "submission_url": submission_url,
        "cancel_url": submission_url,
        "client_name": client,
        "scopes": scopes,
    }
    return page("Authorize application", props)


def applications_page(csrf: str, apps: list[dict[str, str]]) -> HTMLResponse:
    props = {"component": "applications", "csrf_token": csrf, "applications": apps}
    return page("Applications", props)
