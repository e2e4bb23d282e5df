"""What the hardening tests share: an isolated server of their own, OAuth flows, log checks.

The hardening tests run against servers they start themselves (not the session `server`),
because they trip the brute-force guard, move the test clock and kill processes: none of that
may disturb the rule-by-rule tests that share the session server.
"""

from __future__ import annotations

import html
import re
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
from soak_lib.flows import LOG_PROBLEMS  # tools/ is on the path: see __init__.py
from soak_lib.integrity import CONSISTENCY, integrity_problems

from reference_server.launcher import ServerProcess
from tests.support.user_agent import UserAgent, find_form

# A loopback redirect with a port, as a desktop application uses it (spec 4.1).
LOOPBACK_PORT = 4242
WEB_REDIRECT = "https://client.example/callback"
INSTALLED_REDIRECT = "http://localhost/callback"
OTHER_REDIRECT = "https://other.example/cb"
LOOPBACK_REDIRECT = f"http://localhost:{LOOPBACK_PORT}/callback"
_CODE_ID = re.compile(r'<code id="(?P<id>new-client-[a-z]+)">(?P<value>[^<]*)</code>')


@dataclass(frozen=True)
class App:
    client_id: str
    client_secret: str
    redirect_uri: str  # the one to send in requests (a loopback port for installed apps)
    type: str

    @property
    def web(self) -> bool:
        return self.type == "confidential"


@dataclass
class Site:
    """A running server of our own with one user and three applications."""

    server: ServerProcess
    username: str
    password: str
    web: App
    installed: App
    other: App
    _owner: UserAgent | None = field(default=None, repr=False)

    def close(self) -> None:
        """Close our own connections, so the server stops without waiting for them."""
        if self._owner is not None:
            self._owner.close()
            self._owner = None

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.server.base_url, verify=self.server.ssl_context())

    def agent(self, username: str | None = None, password: str | None = None) -> UserAgent:
        return UserAgent(
            self.server.base_url,
            self.server.ssl_context(),
            username or self.username,
            password or self.password,
        )

    def new_app(self, kind: str = "confidential") -> App:
        """A fresh application, for tests whose failures must not count against others.

        Registered through the user's own form (milliseconds) rather than the CLI (a process).
        """
        if self._owner is None:
            self._owner = self.agent()
            self._owner.log_in()
        page = self._owner.http.get("/account/applications").text
        csrf = find_form(page, "register-form").csrf_token
        redirect = WEB_REDIRECT if kind == "confidential" else INSTALLED_REDIRECT
        answer = self._owner.http.post(
            "/account/applications",
            data={
                "csrf_token": csrf,
                "name": f"hardening-{secrets.token_hex(3)}",
                "type": kind,
                "redirect_uri": redirect,
            },
        )
        assert answer.status_code == 200, answer.text[:300]
        found = {m["id"]: html.unescape(m["value"]) for m in _CODE_ID.finditer(answer.text)}
        assert {"new-client-id", "new-client-secret"} <= set(found)
        used = WEB_REDIRECT if kind == "confidential" else LOOPBACK_REDIRECT
        return App(found["new-client-id"], found["new-client-secret"], used, kind)

    @property
    def database(self) -> Path:
        return self.server.data_dir / "server.sqlite3"

    @property
    def log_path(self) -> Path:
        return log_path(self.server)

    def count(self, sql: str, *args: object) -> int:
        """One number from the server's database, read on a separate connection."""
        with read_db(self.database) as db:
            return int(db.execute(sql, args).fetchone()[0])


def log_path(server: ServerProcess) -> Path:
    """Where the launcher sends the server's stdout and stderr: `<data_dir>.log`."""
    return server.data_dir.parent / f"{server.data_dir.name}.log"


def log_problems(text: str) -> list[str]:
    """Lines of a server log that show an unhandled error or a locked database."""
    return [line for line in text.splitlines() if LOG_PROBLEMS.search(line)]


@contextmanager
def read_db(path: Path, readonly: bool = True) -> Iterator[sqlite3.Connection]:
    """A connection of our own; read-only unless the server is down (WAL recovery writes)."""
    db = sqlite3.connect(f"file:{path}{'?mode=ro' if readonly else ''}", uri=True, timeout=10)
    try:
        yield db
    finally:
        db.close()


def make_app(server: ServerProcess, owner: str, kind: str = "confidential") -> App:
    name = f"hardening-{kind}-{secrets.token_hex(3)}"
    if kind == "confidential":
        made = server.add_app(owner, name, kind, WEB_REDIRECT)
        return App(made["client_id"], made["client_secret"], WEB_REDIRECT, kind)
    made = server.add_app(owner, name, kind, INSTALLED_REDIRECT)
    return App(made["client_id"], made["client_secret"], LOOPBACK_REDIRECT, kind)


def provision(server: ServerProcess, username: str = "alice") -> Site:
    password = secrets.token_urlsafe(12)
    server.add_user(username, password, email=f"{username}@example.org")
    web = make_app(server, username, "confidential")
    installed = make_app(server, username, "public")
    made = server.add_app(username, "hardening-other", "confidential", OTHER_REDIRECT)
    other = App(made["client_id"], made["client_secret"], OTHER_REDIRECT, "confidential")
    return Site(server, username, password, web, installed, other)


# --- flows ----------------------------------------------------------------------------------


def query_of(location: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def authorize_params(
    app: App,
    *,
    scope: str = "profile",
    state: str | None = None,
    offline: bool = False,
    force: bool = True,
    challenge: str | None = None,
    method: str | None = None,
) -> dict[str, str]:
    params = {
        "response_type": "code",
        "client_id": app.client_id,
        "redirect_uri": app.redirect_uri,
        "scope": scope,
    }
    if state is not None:
        params["state"] = state
    if app.web:
        params["access_type"] = "offline" if offline else "online"
        params["approval_prompt"] = "force" if force else "auto"
    if challenge is not None:
        params["code_challenge"] = challenge
    if method is not None:
        params["code_challenge_method"] = method
    return params


def get_code(agent: UserAgent, app: App, **options: object) -> str:
    """Log in if needed, approve the consent page, and return the code of the redirect."""
    location = agent.authorize(authorize_params(app, **options))  # type: ignore[arg-type]
    params = query_of(location)
    assert "code" in params, f"no code in {location}"
    return params["code"]


def exchange(
    http: httpx.Client,
    app: App,
    code: str,
    *,
    verifier: str | None = None,
    redirect_uri: str | None = None,
) -> httpx.Response:
    data = {
        "grant_type": "authorization_code",
        "code": code,
        "client_id": app.client_id,
        "client_secret": app.client_secret,
        "redirect_uri": redirect_uri or app.redirect_uri,
    }
    if verifier is not None:
        data["code_verifier"] = verifier
    return http.post("/oauth2/token", data=data)


def tokens(http: httpx.Client, agent: UserAgent, app: App, **options: object) -> dict:
    """A full authorization: code, exchange; the token response."""
    answer = exchange(http, app, get_code(agent, app, **options))
    assert answer.status_code == 200, answer.text
    return answer.json()


def refresh(http: httpx.Client, app: App, refresh_token: str) -> httpx.Response:
    return http.post(
        "/oauth2/token",
        data={
            "grant_type": "refresh_token",
            "refresh_token": refresh_token,
            "client_id": app.client_id,
            "client_secret": app.client_secret,
        },
    )


def revoke(http: httpx.Client, app: App, token: str) -> httpx.Response:
    return http.post(
        "/oauth2/revoke",
        data={"token": token, "client_id": app.client_id, "client_secret": app.client_secret},
    )


def userinfo_status(http: httpx.Client, access_token: str) -> int:
    answer = http.get("/oauth2/userinfo", headers={"Authorization": f"Bearer {access_token}"})
    assert answer.status_code in (200, 401), answer.text
    return answer.status_code


def works(http: httpx.Client, access_token: str) -> bool:
    return userinfo_status(http, access_token) == 200


def server_now(http: httpx.Client) -> int:
    return int(http.get("/_test/clock").json()["now"])


def align_to_window(http: httpx.Client, window: int = 60, margin: int = 20) -> None:
    """Move the test clock to the start of a fresh fixed window when little of this one is left.

    The brute-force guard counts failures in fixed windows; a test that makes 20 failures must
    not see the window end half way through.
    """
    now = server_now(http)
    if now % window > window - margin:
        http.post("/_test/clock", data={"advance": str(window - now % window)})


# The database's own consistency checks come from tools/soak_lib/integrity.py (one source for
# the tests and the soak tool); re-exported here for the tests.
__all__ = ["CONSISTENCY", "integrity_problems"]


def session_csrf(browser: UserAgent) -> str:
    """The session's CSRF token, as the logout form of every logged-in page carries it."""
    page = browser.http.get("/account/authorized").text
    marker = 'name="csrf_token" value="'
    start = page.index(marker) + len(marker)
    return page[start : page.index('"', start)]
