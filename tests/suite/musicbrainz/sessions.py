"""Browser sessions: a cookie naming a session that holds the logged-in user and the CSRF
token of its forms."""

from __future__ import annotations

import secrets

from starlette.requests import Request
from starlette.responses import Response

from tests.suite.mb_pages import COOKIE
from tests.suite.musicbrainz.model import Site


def session_of(site: Site, request: Request) -> tuple[str, dict[str, str]]:
    """The request's session (a new one when its cookie names none)."""
    key = request.cookies.get(COOKIE, "")
    if key not in site.sessions:
        key = secrets.token_hex(16)
        site.sessions[key] = {}
    return key, site.sessions[key]


def logged_in(site: Site, request: Request) -> dict[str, str] | None:
    """The session when a user is logged in, else None."""
    session = site.sessions.get(request.cookies.get(COOKIE, ""), {})
    return session if session.get("user") else None


def with_cookie(response: Response, key: str) -> Response:
    response.set_cookie(COOKIE, key, httponly=True, secure=True, samesite="lax")
    return response
