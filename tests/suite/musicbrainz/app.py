"""A stand-in for musicbrainz-server's OAuth 2.0 service: the pages of tests/suite/mb_pages.py
(login in place, consent `confirm`, the out-of-band page, "Revoke access" links) in front of
token, revocation and user information endpoints that behave as the real server does.

`python -m tests.suite.musicbrainz.app --data-dir DIR [--defect NAME,...]` provisions a user
and three applications (a web application, an installed one registered with an EMPTY redirect
URI, as musicbrainz.org's form demands, and a second web application), serves over TLS on a
free loopback port, and writes DIR/ready.json. There is no test clock and no plain-HTTP
listener (musicbrainz.org answers plain HTTP on port 80; this stand-in does not model it)."""

from __future__ import annotations

import argparse
import json
import secrets
import socket
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reference_server.tls import ensure_certificates
from tests.suite import mb_pages
from tests.suite.musicbrainz import account, api
from tests.suite.musicbrainz.authorize import authorize
from tests.suite.musicbrainz.model import App, Site, User

#: Deliberate defects a test may add (`--defect`): things musicbrainz-server does NOT do.
DEFECTS = {"state-dropped", "refresh-rotates"}
FRAMING = [
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"frame-ancestors 'none'"),
]


def framed_nowhere(app: ASGIApp) -> ASGIApp:
    """X-Frame-Options and CSP frame-ancestors on every response, as the real pages send."""

    async def wrapper(scope: Scope, receive: Receive, send: Send) -> None:
        async def send_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + FRAMING
            await send(message)

        await app(scope, receive, send_headers)

    return wrapper


async def oob(request: Request) -> Response:
    return mb_pages.oob_page(request.query_params.get("code", ""))


def create_app(site: Site) -> Starlette:
    app = Starlette(
        routes=[
            Route("/oauth2/authorize", authorize, methods=["GET", "POST"]),
            Route("/oauth2/oob", oob),
            Route("/oauth2/token", api.token, methods=["POST"]),
            Route("/oauth2/revoke", api.revoke, methods=["POST"]),
            Route("/oauth2/userinfo", api.userinfo, methods=["GET", "POST"]),
            Route(account.LIST, account.applications),
            Route(
                account.LIST + "/revoke-access/{row:int}/{bits:int}",
                account.revoke_access,
                methods=["GET", "POST"],
            ),
        ]
    )
    app.state.site = site
    return app


def provision(defects: set[str]) -> Site:
    """The test user, the three applications a README-following user registers, and three
    the account registered before (a test account has a history)."""
    user = User("alice", secrets.token_urlsafe(12), "alice@example.org")
    apps = [
        App(11, "Conformance suite web app", "web", "https://client.example/callback"),
        App(12, "Conformance suite desktop app", "installed", ""),
        App(13, "Conformance suite other web app", "web", "https://other.example/cb"),
    ]
    others = [
        App(21, "My tagger", "installed", ""),
        App(22, "My collection site", "web", "https://collection.example/oauth"),
        App(23, "Old experiment", "web", "https://old.example/cb"),
    ]
    return Site(user, apps, defects=defects, others=others)


def accounts(site: Site) -> dict:
    """What the operator reads off the site's pages: the password and each application."""
    roles = dict(zip(("web", "installed", "other_web"), site.apps, strict=True))
    clients = {
        role: {"client_id": a.client_id, "client_secret": a.secret, "name": a.name}
        for role, a in roles.items()
    }
    others = [a.secret for a in site.others]  # for the tests: none may reach a report
    return {
        "password": site.user.password,
        "email": site.user.email,
        "clients": clients,
        "other_client_secrets": others,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--defect", default="", help=f"comma-separated, of {sorted(DEFECTS)}")
    arguments = parser.parse_args()
    defects = set(filter(None, arguments.defect.split(",")))
    if defects - DEFECTS:
        parser.error(f"unknown defects {sorted(defects - DEFECTS)}")
    data_dir = arguments.data_dir.resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    tls = ensure_certificates(data_dir, "127.0.0.1")
    site = provision(defects)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    base_url = f"https://127.0.0.1:{sock.getsockname()[1]}"
    config = uvicorn.Config(
        framed_nowhere(create_app(site)),
        ssl_certfile=str(tls.cert),
        ssl_keyfile=str(tls.key),
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=2,
    )

    class Announcing(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            ready = {"base_url": base_url, "ca_file": str(tls.ca)} | accounts(site)
            (data_dir / "ready.tmp").write_text(json.dumps(ready))
            (data_dir / "ready.tmp").replace(data_dir / "ready.json")

    Announcing(config).run(sockets=[sock])


if __name__ == "__main__":
    main()
