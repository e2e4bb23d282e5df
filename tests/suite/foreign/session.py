"""The browser session of the provider's pages: a cookie naming a row of the sessions table,
which holds the signed-in user and the session's CSRF token."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from tests.suite.foreign.storage import Store


def browser_session(request: Request) -> tuple[Store, dict]:
    store: Store = request.app.state.store
    return store, dict(store.session(request.cookies.get("session")))


def with_cookie(response: Response, session: dict) -> Response:
    response.set_cookie("session", session["sid"], httponly=True, secure=True, samesite="lax")
    return response
