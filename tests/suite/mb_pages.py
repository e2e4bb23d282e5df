"""A stand-in for musicbrainz-server's user-facing OAuth pages, shaped exactly as observed on a
running server (reference/musicbrainz-behaviour.md, "Observed on a running musicbrainz-server"):
the login form rendered in place on /oauth2/authorize and posting back to it, the consent form
named "confirm", the out-of-band page with the code in <code>, and manual revocation as a link
per grant on /account/applications leading to an unnamed post form. Only the page shapes: no
token endpoint, no API."""

from __future__ import annotations

import asyncio
import html
import secrets
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

OOB = "urn:ietf:wg:oauth:2.0:oob"
SCOPE_BITS = {"profile": 1, "email": 2, "tag": 4, "rating": 8, "collection": 16}
COOKIE = "musicbrainz_server_session"


@dataclass
class App:
    """A registered application: row id, client id, display name, redirect URI."""

    row: int
    client_id: str
    name: str
    redirect_uri: str


@dataclass
class Site:
    """The stand-in's state: one user, applications, sessions and grants."""

    username: str
    password: str
    apps: list[App]
    sessions: dict[str, dict[str, str]] = field(default_factory=dict)
    grants: list[tuple[int, int]] = field(default_factory=list)  # (app row, scope bitmask)
    codes: dict[str, tuple[int, int]] = field(default_factory=dict)

    def app(self, client_id: str | None = None, row: int | None = None) -> App | None:
        """An application by client id or by row id."""
        found = [a for a in self.apps if a.client_id == client_id or a.row == row]
        return found[0] if found else None


def page(title: str, body: str, status: int = 200) -> HTMLResponse:
    """A page in the site's frame (a search form in the header: not a login or consent form)."""
    header = '<div class="header"><form action="/search" method="get"><input name="query">'
    header += '<button type="submit">Search</button></form></div>'
    return HTMLResponse(
        f"<!DOCTYPE html><html><head><title>{title} - MusicBrainz</title></head><body>"
        f'{header}<div id="page"><h1>{title}</h1>{body}</div></body></html>',
        status_code=status,
    )


async def posted(request: Request) -> dict[str, str]:
    """A posted form (urlencoded: what the pages send)."""
    if request.method != "POST":
        return {}
    return dict(parse_qsl((await request.body()).decode(), keep_blank_values=True))


def _session(site: Site, request: Request) -> tuple[str, dict[str, str]]:
    key = request.cookies.get(COOKIE, "")
    if key not in site.sessions:
        key = secrets.token_hex(16)
        site.sessions[key] = {}
    return key, site.sessions[key]


def csrf_inputs(session: dict[str, str], prefix: str = "") -> str:
    """The hidden CSRF fields of a form (session key and token, as the real pages have)."""
    session_key = session.setdefault("csrf_session_key", "csrf_token:" + secrets.token_hex(4))
    token = session.setdefault("csrf_token", secrets.token_urlsafe(16))
    return (
        f'<input type="hidden" name="{prefix}csrf_session_key" value="{session_key}">'
        f'<input type="hidden" name="{prefix}csrf_token" value="{token}">'
    )


def csrf_ok(session: dict[str, str], form: dict[str, str], prefix: str = "") -> bool:
    """Whether a posted form carries the session's CSRF token."""
    return bool(session.get("csrf_token")) and form.get(prefix + "csrf_token") == session.get(
        "csrf_token"
    )


def _with_cookie(response: Response, key: str) -> Response:
    response.set_cookie(COOKIE, key, httponly=True, secure=True, samesite="lax")
    return response


async def authorize(request: Request) -> Response:
    """Login in place, then the consent form, then the redirect (or the out-of-band page)."""
    site: Site = request.app.state.site
    key, session = _session(site, request)
    app = site.app(client_id=request.query_params.get("client_id"))
    redirect_uri = request.query_params.get("redirect_uri", "")
    if app is None or redirect_uri not in (app.redirect_uri, OOB):
        return page("OAuth Authorization Error", "<p>Invalid client or redirect URI.</p>", 400)
    form = await posted(request)
    if not session.get("user"):
        return _with_cookie(await _login(site, request, session, form), key)
    if not form:
        body = consent_body(app.name, request.query_params.get("scope", ""), session)
        return _with_cookie(page("Authorization", body), key)
    if not csrf_ok(session, form, "confirm."):
        return page("Error", "<p>The form has expired.</p>", 400)
    return _decision(site, app, request, form)


async def _login(
    site: Site, request: Request, session: dict[str, str], form: dict[str, str]
) -> Response:
    url = str(request.url.path) + "?" + request.url.query
    if (
        form
        and csrf_ok(session, form)
        and (form.get("username"), form.get("password"))
        == (
            site.username,
            site.password,
        )
    ):
        session["user"] = site.username
        return RedirectResponse(url, status_code=303)
    return page("Log in", login_body(url, session, refused=bool(form)))


def login_body(url: str, session: dict[str, str], refused: bool = False) -> str:
    """The login form, rendered in place and posting back to `url`."""
    error = '<p class="error">Incorrect username or password</p>' if refused else ""
    return (
        f'{error}<form action="{html.escape(url)}" method="post">{csrf_inputs(session)}'
        '<label>Username: <input name="username" type="text"></label>'
        '<label>Password: <input name="password" type="password"></label>'
        '<label><input name="remember_me" type="checkbox" value="1"> Keep me logged in</label>'
        '<button type="submit" class="submit positive">Log in</button></form>'
    )


def consent_body(app_name: str, scope: str, session: dict[str, str]) -> str:
    """The consent form `confirm`, posting back to the page (allow or cancel)."""
    return (
        f"<p>{html.escape(app_name)} is requesting permission to: {html.escape(scope)}</p>"
        f'<form name="confirm" method="post">{csrf_inputs(session, "confirm.")}'
        '<button type="submit" name="confirm.submit" value="1">Allow access</button>'
        '<button type="submit" name="confirm.cancel" value="1">No thanks</button></form>'
    )


def _decision(site: Site, app: App, request: Request, form: dict[str, str]) -> Response:
    query = request.query_params
    values = {"error": "access_denied"}
    if form.get("confirm.submit") == "1":
        bits = sum(SCOPE_BITS.get(s, 0) for s in query.get("scope", "").split())
        code = secrets.token_urlsafe(16)
        site.codes[code] = (app.row, bits)
        site.grants.append((app.row, bits))
        values = {"code": code}
    if "state" in query:
        values["state"] = query["state"]
    target = "/oauth2/oob" if query.get("redirect_uri") == OOB else query["redirect_uri"]
    return RedirectResponse(target + "?" + urlencode(values), status_code=302)


async def oob(request: Request) -> Response:
    """The out-of-band page: the code in <code>."""
    return oob_page(request.query_params.get("code", ""))


def oob_page(code: str) -> HTMLResponse:
    """The out-of-band page: the code in <code>."""
    body = f"<p>Copy this code into the application:</p><code>{html.escape(code)}</code>"
    return page("OAuth Authorization", body)


def _logged_in(request: Request) -> Site | None:
    site: Site = request.app.state.site
    key = request.cookies.get(COOKIE, "")
    return site if site.sessions.get(key, {}).get("user") else None


async def applications(request: Request) -> Response:
    """Authorized applications by display name, a revoke link per grant; no client ids."""
    site = _logged_in(request)
    if site is None:
        return RedirectResponse("/login?returnto=/account/applications", status_code=302)
    listed = [
        (app.name, row, bits)
        for row, bits in sorted(set(site.grants))
        if (app := site.app(row=row))
    ]
    return page("Applications", applications_body(listed))


def applications_body(grants: list[tuple[str, int, int]]) -> str:
    """Authorized applications (display name, application row, scope bits), a revoke link
    each; no client id anywhere."""
    rows = "".join(
        f'<tr class="{"odd" if i % 2 == 0 else "even"}"><td>{html.escape(name)}</td>'
        f"<td>{bits}</td><td>"
        f'<a href="/account/applications/revoke-access/{row}/{bits}">Revoke access</a></td></tr>'
        for i, (name, row, bits) in enumerate(grants)
    )
    table = (
        '<table class="tbl"><thead><tr><th>Application</th><th>Access</th><th>Actions</th></tr>'
        f"</thead><tbody>{rows}</tbody></table>"
    )
    return "<h2>Authorized Applications</h2>" + table


async def revoke_access(request: Request) -> Response:
    """The confirmation page: an unnamed post form without an action."""
    site = _logged_in(request)
    if site is None:
        return RedirectResponse("/login", status_code=302)
    _, session = _session(site, request)
    row, bits = int(request.path_params["row"]), int(request.path_params["bits"])
    if request.method == "POST":
        form = await posted(request)
        if csrf_ok(session, form, "confirm.") and form.get("confirm.submit") == "1":
            site.grants = [g for g in site.grants if g != (row, bits)]
        return RedirectResponse("/account/applications", status_code=303)
    app = site.app(row=row)
    return page("Revoke application access", revoke_body(app.name if app else "?", session))


def revoke_body(app_name: str, session: dict[str, str]) -> str:
    """The confirmation page's unnamed post form without an action."""
    return (
        f"<p>You're about to revoke {html.escape(app_name)}'s permissions.</p>"
        f'<form method="post">{csrf_inputs(session, "confirm.")}'
        '<button type="submit" name="confirm.submit" value="1">Yes, I am sure</button>'
        '<button type="submit" name="confirm.cancel" value="1">Cancel</button></form>'
    )


def build(site: Site) -> Starlette:
    """The stand-in application."""
    app = Starlette(
        routes=[
            Route("/oauth2/authorize", authorize, methods=["GET", "POST"]),
            Route("/oauth2/oob", oob),
            Route("/account/applications", applications),
            Route(
                "/account/applications/revoke-access/{row}/{bits}",
                revoke_access,
                methods=["GET", "POST"],
            ),
        ]
    )
    app.state.site = site
    return app


@contextmanager
def serving(site: Site, work: Path) -> Iterator[tuple[str, str]]:
    """Serve the stand-in over TLS in a thread; yields (base URL, CA file)."""
    from reference_server.tls import ensure_certificates

    tls = ensure_certificates(work, "127.0.0.1")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        build(site),
        log_level="warning",
        lifespan="off",
        ssl_certfile=str(tls.cert),
        ssl_keyfile=str(tls.key),
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])), daemon=True)
    thread.start()
    try:
        for _ in range(500):
            if server.started:
                break
            threading.Event().wait(0.01)
        yield f"https://127.0.0.1:{sock.getsockname()[1]}", str(tls.ca)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
