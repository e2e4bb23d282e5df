"""The provider's account pages: log in, and the user's applications with their revocation.

As on metabrainz.org: `GET /login?next=...` is a React shell whose form posts `csrf_token`,
`username`, `password` and `remember_me` back to the same URL (a 302 to `next` on success, the
login page again with `initial_errors` when refused). `/profile/applications` lists the
applications holding a live access token of the user, so one whose access token the
application revoked drops off the list while its refresh token lives on. The route that revokes
is `POST /profile/applications/revoke/<client_id>/user`; the page's own button posts to the
singular `/profile/application/revoke/<client_id>/user`, which answers 404."""

from __future__ import annotations

import secrets

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from tests.suite.foreign import pages, tokens
from tests.suite.foreign.session import browser_session, with_cookie

APPLICATIONS = "/profile/applications"
REVOKE = APPLICATIONS + "/revoke/{client_id}/user"
REVOKE_SINGULAR = "/profile/application/revoke/{client_id}/user"
REFUSED = {"password": ["Invalid username or password."]}


async def login(request: Request) -> Response:
    """The login page, and its form posted back to the same URL."""
    store, session = browser_session(request)
    if request.method == "GET":
        return with_cookie(pages.login_page(session["csrf"]), session)
    form = await tokens.form_of(request)
    user_id = store.login(str(form.get("username", "")), str(form.get("password", "")))
    csrf_ok = secrets.compare_digest(str(form.get("csrf_token", "")), session["csrf"])
    if user_id is None or not csrf_ok:
        errors = REFUSED if csrf_ok else {"csrf_token": ["The form expired; try again."]}
        return with_cookie(pages.login_page(session["csrf"], errors), session)
    store.sign_in(session["sid"], user_id)
    target = request.query_params.get("next", "/")
    safe = target.startswith("/") and not target.startswith("//")
    return with_cookie(RedirectResponse(target if safe else "/", 302), session)


def to_login(path: str) -> RedirectResponse:
    """Where an anonymous visitor of an account page is sent."""
    return RedirectResponse("/login?next=" + path, 302)


async def applications(request: Request) -> Response:
    """The applications holding a live access token of the user."""
    store, session = browser_session(request)
    if session["user_id"] is None:
        return to_login(APPLICATIONS)
    listed = [
        {"client_id": row["client_id"], "name": row["name"], "website": "https://client.example"}
        for row in store.authorized(session["user_id"])
    ]
    return pages.applications_page(listed)


async def revoke(request: Request) -> Response:
    """Revoke every token of the application and the user (no body beyond the session)."""
    store, session = browser_session(request)
    if session["user_id"] is None:
        return to_login(APPLICATIONS)
    store.revoke_family(request.path_params["client_id"], session["user_id"])
    return RedirectResponse(APPLICATIONS, 302)


async def revoke_singular(request: Request) -> Response:
    """Where the page's own revoke button posts: no such route (the site's bug)."""
    return Response("Not Found", status_code=404, media_type="text/plain")
