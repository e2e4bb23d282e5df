"""React-shell pages: the markup is a frame, the page's data sits in a JSON blob
`<script id="page-react-props" type="application/json">` at the end, as on metabrainz.org
(the shapes of reference/metabrainz-behaviour.md, "The pages a person ... goes through").

`REDESIGNED` names pages whose props take another shape (`--redesigned login,consent,...`),
as after a redesign of the site: a consent driver must stop there, not guess."""

from __future__ import annotations

import html
import json
from typing import Any

from starlette.responses import HTMLResponse

#: Pages served in a shape no driver knows: login, consent, error, applications.
REDESIGNED: set[str] = set()

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


def redesign(kind: str, props: dict[str, Any], renamed: dict[str, str]) -> dict[str, Any]:
    """The props as served: renamed keys when this kind of page is redesigned."""
    if kind not in REDESIGNED:
        return props
    return {renamed.get(key, key): value for key, value in props.items()}


def error_page(name: str, description: str) -> HTMLResponse:
    """Every authorization error: its own page, HTTP 200, never a redirect."""
    props = {"error": {"name": name, "description": description}}
    if "error" in REDESIGNED:
        props = {"problem": {"code": name, "text": description}}
    return page("Error", props)


def login_page(csrf: str, errors: dict[str, list[str]] | None = None) -> HTMLResponse:
    """The login page; its form posts back to the page's own URL (`/login?next=...`)."""
    props = {"csrf_token": csrf} | ({"initial_errors": errors} if errors else {})
    return page("Log in", redesign("login", props, {"csrf_token": "csrfToken"}))


def consent_page(
    csrf: str, submission_url: str, cancel_url: str, client: str, scopes: list[str]
) -> HTMLResponse:
    """Allow posts to `submission_url`; cancel is a plain link to `cancel_url`."""
    props = {
        "csrf_token": csrf,
        "submission_url": submission_url,
        "cancel_url": cancel_url,
        "client_name": client,
        "scopes": scopes,
    }
    renamed = {"submission_url": "submissionUrl", "cancel_url": "cancelUrl"}
    return page("Authorize application", redesign("consent", props, renamed))


def applications_page(tokens: list[dict[str, str]]) -> HTMLResponse:
    """The user's applications with a live access token (the revoke route is not in the props:
    the page's script builds it, with a typo, see account.py)."""
    return page("Applications", redesign("applications", {"tokens": tokens}, {"tokens": "apps"}))
