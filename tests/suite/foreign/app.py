"""The provider's web side: authorization endpoint (consent and error pages), the account
pages (account.py: log in, the user's applications and their revocation), a test clock,
security headers, and serving over TLS.

`python -m tests.suite.foreign.app --data-dir DIR` provisions a user and three confidential
clients on first start, serves on a free loopback port, and writes DIR/ready.json."""

from __future__ import annotations

import argparse
import json
import re
import secrets
import socket
from pathlib import Path
from urllib.parse import quote, urlencode

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reference_server.tls import ensure_certificates
from tests.suite.foreign import account, pages, tokens
from tests.suite.foreign.session import browser_session, with_cookie
from tests.suite.foreign.storage import Clock, Store

SCOPES = {"profile", "email", "openid"} | {
    f"musicbrainz:{name}"
    for name in ("tag", "rating", "collection", "submit_isrc", "submit_barcode")
}
EMAIL = "alice@example.org"
CHALLENGE = re.compile(r"[A-Za-z0-9._~-]{43,128}")
SECURITY_HEADERS = [
    (b"cache-control", b"no-store"),
    (b"pragma", b"no-cache"),
    (b"referrer-policy", b"no-referrer"),
]
#: Anti-framing on the provider's OAuth pages only: the site's own pages, /login among them
#: (where an authorization sends a user who is not logged in), can be framed.
NO_FRAMING = (b"x-frame-options", b"DENY")
OAUTH_PATHS = "/oauth2/"
CLIENTS = {  # every client confidential; several exact redirect URIs; no port wildcard
    "web": ("Foreign web app", ["https://client.example/callback", "https://client.example/alt"]),
    "installed": (
        "Foreign desktop app",
        ["http://localhost/callback"] + [f"http://127.0.0.1:{p}/auth" for p in range(8000, 8021)],
    ),
    "other_web": ("Foreign other web app", ["https://other.example/cb"]),
}


def secured(app: ASGIApp) -> ASGIApp:
    """Cache-Control, Pragma and Referrer-Policy on every response; X-Frame-Options DENY on
    /oauth2/* only, as on the provider."""

    async def wrapper(scope: Scope, receive: Receive, send: Send) -> None:
        oauth = str(scope.get("path", "")).startswith(OAUTH_PATHS)
        added = [*SECURITY_HEADERS, NO_FRAMING] if oauth else SECURITY_HEADERS

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + added
            await send(message)

        await app(scope, receive, send_secured)

    return wrapper


def problem_of(store: Store, q: dict[str, str]) -> tuple[str, str] | None:
    """What is wrong with an authorization request, checked in the provider's order."""
    if store.client(q.get("client_id")) is None:
        return "invalid_client", "unknown or missing client_id"
    if not store.registered(q["client_id"], q.get("redirect_uri")):
        return "invalid_request", "redirect_uri is not registered for this client"
    if q.get("response_type") != "code":
        return "unsupported_response_type", "only response_type=code"
    if not q.get("scope") or not set(q["scope"].split(" ")) <= SCOPES:
        return "invalid_scope", "unknown scope"
    method, challenge = q.get("code_challenge_method"), q.get("code_challenge")
    if (method and not challenge) or method not in (None, "plain", "S256"):
        return "invalid_request", "unsupported code_challenge_method"
    if challenge and not CHALLENGE.fullmatch(challenge):
        return "invalid_request", "malformed code_challenge"
    return None


async def authorize(request: Request) -> Response:
    store, session = browser_session(request)
    if session["user_id"] is None:
        target = request.url.path + "?" + request.url.query
        return with_cookie(account.to_login(quote(target, safe="")), session)
    q = dict(request.query_params)
    problem = problem_of(store, q)
    if problem:
        return pages.error_page(*problem)
    if request.method == "POST":
        form = await tokens.form_of(request)
        if not secrets.compare_digest(str(form.get("csrf_token", "")), session["csrf"]):
            return pages.error_page("invalid_request", "CSRF token mismatch")
        if form.get("confirm") != "yes":
            return RedirectResponse(q["redirect_uri"] + "?error=access_denied", 302)  # no state
        return issue_code(store, session, q)
    scopes = set(q["scope"].split(" "))
    if q.get("approval_prompt") != "force" and store.covered(
        q["client_id"], session["user_id"], scopes
    ):
        return issue_code(store, session, q)
    client = store.client(q["client_id"])
    submission = "/oauth2/authorize?" + request.url.query
    cancel = q["redirect_uri"] + "?error=access_denied"  # no state
    return pages.consent_page(session["csrf"], submission, cancel, client["name"], sorted(scopes))


def issue_code(store: Store, session: dict, q: dict[str, str]) -> Response:
    challenge = q.get("code_challenge")
    pkce = (challenge, q.get("code_challenge_method") or "plain") if challenge else (None, None)
    scopes = " ".join(sorted(set(q["scope"].split(" "))))
    code = store.new_code(q["client_id"], session["user_id"], q["redirect_uri"], scopes, pkce)
    query = {"code": code} | ({"state": q["state"]} if "state" in q else {})
    return RedirectResponse(q["redirect_uri"] + "?" + urlencode(query) + "#_", 302)


async def test_clock(request: Request) -> Response:
    """GET: the provider's time; POST advance=SECONDS moves it forward."""
    clock: Clock = request.app.state.store.clock
    if request.method == "POST":
        advance = (await tokens.form_of(request)).get("advance", "")
        if not advance.isdigit():
            return JSONResponse({"error": "advance=SECONDS expected"}, status_code=400)
        clock.offset += int(advance)
    return JSONResponse({"now": clock.now(), "offset": clock.offset})


def create_app(database: Path) -> Starlette:
    app = Starlette(
        routes=[
            Route("/oauth2/authorize", authorize, methods=["GET", "POST"]),
            Route("/oauth2/token", tokens.token, methods=["POST"]),
            Route("/oauth2/revoke", tokens.revoke, methods=["POST"]),
            Route("/oauth2/userinfo", tokens.userinfo, methods=["GET", "POST"]),
            Route("/login", account.login, methods=["GET", "POST"]),
            Route(account.APPLICATIONS, account.applications),
            Route(
                account.APPLICATIONS + "/revoke/{client_id}/user", account.revoke, methods=["POST"]
            ),
            Route(account.REVOKE_SINGULAR, account.revoke_singular, methods=["GET", "POST"]),
            Route("/_test/clock", test_clock, methods=["GET", "POST"]),
        ]
    )
    app.state.store = Store(database, Clock())
    return app


def provision(store: Store, data_dir: Path) -> dict:
    """The test user and the three clients, once; their credentials in DIR/provisioned.json."""
    done = data_dir / "provisioned.json"
    if not done.exists():
        password = secrets.token_urlsafe(12)
        store.add_user("alice", password, EMAIL)
        clients = {role: store.add_client(*spec) for role, spec in CLIENTS.items()}
        done.write_text(json.dumps({"password": password, "clients": clients}))
    return json.loads(done.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--redesigned", default="", help="pages served in an unknown shape")
    arguments = parser.parse_args()
    pages.REDESIGNED.update(filter(None, arguments.redesigned.split(",")))
    data_dir = arguments.data_dir.resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    tls = ensure_certificates(data_dir, "127.0.0.1")
    app = create_app(data_dir / "provider.sqlite3")
    accounts = provision(app.state.store, data_dir)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    base_url = f"https://127.0.0.1:{sock.getsockname()[1]}"
    config = uvicorn.Config(
        secured(app),
        ssl_certfile=str(tls.cert),
        ssl_keyfile=str(tls.key),
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=2,
    )

    class Announcing(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            ready = {"base_url": base_url, "ca_file": str(tls.ca), "email": EMAIL} | accounts
            (data_dir / "ready.tmp").write_text(json.dumps(ready))
            (data_dir / "ready.tmp").replace(data_dir / "ready.json")

    Announcing(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
