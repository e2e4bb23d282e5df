"""The authorization endpoint as musicbrainz-server answers it (reference/musicbrainz-behaviour.md,
"Authorization endpoint" and "Observed on a running musicbrainz-server"):

- a missing or repeated required parameter, an unknown client (401) or a redirect URI the
  application may not use (400): an HTML error page; an empty `scope=`: a 500;
- then unsupported_response_type, invalid_scope and PKCE problems (invalid_request) are
  redirected with `error`, `error_description` and `state` (on the out-of-band URN: a page);
  the `state` of the invalid_scope redirect is encoded twice about every other time when it
  holds non-ASCII characters (the Perl hash order decides; here every other request);
- the login form is rendered in place on the authorization URL and posts back to it; then
  the consent form `confirm`; a web application that holds a live access token for exactly
  the same scopes is not asked again (approval_prompt=auto), and such a code carries no
  refresh token; an installed application is always asked and always gets one."""

from __future__ import annotations

import re
from urllib.parse import urlencode

from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from tests.suite import mb_pages
from tests.suite.musicbrainz.model import OOB, App, Grant, Site, scope_bits
from tests.suite.musicbrainz.sessions import session_of, with_cookie

REQUIRED = ("client_id", "redirect_uri", "response_type", "scope")
PLAIN = re.compile(r"[A-Za-z0-9.~_-]{43,128}")
S256 = re.compile(r"[A-Za-z0-9_-]{43}")


async def authorize(request: Request) -> Response:
    site: Site = request.app.state.site
    site.counter += 1
    q = request.query_params
    refused = _refused_on_page(site, q)
    if refused is not None:
        return refused
    app = site.app(client_id=q["client_id"])
    assert app is not None
    problem = _problem(q)
    if problem is not None:
        return _error(site, q, *problem)
    key, session = session_of(site, request)
    form = await mb_pages.posted(request)
    url = request.url.path + "?" + request.url.query
    if not session.get("user"):
        return with_cookie(_login(site, session, form, url), key)
    if form and mb_pages.csrf_ok(session, form, "confirm."):
        if form.get("confirm.submit") == "1":
            return _code(site, app, q, consent_shown=True)
        return _error(site, q, "access_denied", "The user denied access")
    if form:
        return mb_pages.page("Error", "<p>The form has expired; please try again.</p>", 400)
    bits = scope_bits(q["scope"]) or 0
    if app.kind == "web" and q.get("approval_prompt") != "force" and site.approved(app, bits):
        return _code(site, app, q, consent_shown=False)
    body = mb_pages.consent_body(app.name, q["scope"], session)
    return with_cookie(mb_pages.page("Authorization", body), key)


def _refused_on_page(site: Site, q: QueryParams) -> Response | None:
    """What musicbrainz-server shows on its own page rather than redirecting."""
    for name in REQUIRED:
        if len(q.getlist(name)) != 1:
            return _page(f"Required parameter is missing or repeated: {name}", 400)
    app = site.app(client_id=q["client_id"])
    if app is None:
        return _page("Client not found.", 401)
    if not app.allows(q["redirect_uri"]):
        return _page("Invalid redirect URI.", 400)
    if q["scope"] == "":
        return _page("Internal Server Error", 500)
    return None


def _problem(q: QueryParams) -> tuple[str, str] | None:
    """An error the endpoint sends back to the application."""
    if q["response_type"] != "code":
        return "unsupported_response_type", "Only response_type=code is supported"
    if scope_bits(q["scope"]) is None:
        return "invalid_scope", "Invalid scope"
    method, challenge = q.get("code_challenge_method"), q.get("code_challenge")
    if method is not None and method not in ("plain", "S256"):
        return "invalid_request", "Invalid code_challenge_method"
    if method is not None and not challenge:
        return "invalid_request", "code_challenge_method without code_challenge"
    pattern = S256 if method == "S256" else PLAIN
    if challenge is not None and not pattern.fullmatch(challenge):
        return "invalid_request", "Invalid code_challenge"
    return None


def _login(site: Site, session: dict[str, str], form: dict[str, str], url: str) -> Response:
    """The login form in place; a good login comes back to the same URL."""
    user = site.user
    credentials = (form.get("username"), form.get("password"))
    if form and mb_pages.csrf_ok(session, form) and credentials == (user.username, user.password):
        session["user"] = user.username
        return RedirectResponse(url, status_code=303)
    return mb_pages.page("Log in", mb_pages.login_body(url, session, refused=bool(form)))


def _code(site: Site, app: App, q: QueryParams, *, consent_shown: bool) -> Response:
    """A code for a new grant; offline (a refresh token) for installed applications, and for
    web applications asking offline access on the consent page."""
    offline = app.kind == "installed" or (consent_shown and q.get("access_type") == "offline")
    challenge = q.get("code_challenge")
    method = (q.get("code_challenge_method") or "plain") if challenge else None
    bits = scope_bits(q["scope"]) or 0
    grant = Grant(app, bits, q["redirect_uri"], offline, challenge, method)
    site.grants.append(grant)
    values = {"code": grant.code} | ({"state": q["state"]} if "state" in q else {})
    if "state-dropped" in site.defects:
        values.pop("state", None)
    target = "/oauth2/oob" if q["redirect_uri"] == OOB else q["redirect_uri"]
    return _redirect(target, values)


def _error(site: Site, q: QueryParams, error: str, description: str) -> Response:
    if q["redirect_uri"] == OOB:
        return _page(f"{error}: {description}", 400)
    values = {"error": error, "error_description": description}
    if "state" in q:
        state = q["state"]
        if error == "invalid_scope" and site.counter % 2 and not state.isascii():
            state = state.encode("utf-8").decode("latin-1")  # encoded once more on the way
        values["state"] = state
    return _redirect(q["redirect_uri"], values)


def _redirect(uri: str, values: dict[str, str]) -> Response:
    joiner = "&" if "?" in uri else "?"
    return RedirectResponse(uri + joiner + urlencode(values), status_code=302)


def _page(message: str, status: int) -> Response:
    body = f"<p>{message}</p>"
    return mb_pages.page("OAuth Authorization Error", body, status)
