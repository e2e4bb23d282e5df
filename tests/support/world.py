"""A running reference server as the tests see it: one user and the applications they act as.

One description for every test that talks to a real server: the session-wide server of
tests/conftest.py (`world`) and the isolated servers the hardening tests start for themselves
(`site`, because they trip the guard, move the clock and kill processes) are both a `World`.
"""

from __future__ import annotations

import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from reference_server.launcher import ServerProcess
from steps.http.html import text_of
from tests.support.user_agent import UserAgent, find_form

WEB_REDIRECT = "https://client.example/callback"
INSTALLED_REDIRECT = "http://localhost/callback"
OTHER_REDIRECT = "https://other.example/cb"
#: A loopback redirect with a port, as a desktop application sends it (spec 4.1).
LOOPBACK_PORT = 4242
LOOPBACK_REDIRECT = f"http://localhost:{LOOPBACK_PORT}/callback"


@dataclass(frozen=True)
class App:
    """A registered application; `redirect_uri` is the one its requests send."""

    client_id: str
    client_secret: str
    redirect_uri: str
    type: str

    @property
    def web(self) -> bool:
        return self.type == "confidential"


@dataclass
class World:
    """A running server with one user and three applications."""

    server: ServerProcess
    username: str
    password: str
    email: str
    web: App  # confidential web application
    installed: App  # public desktop application, loopback redirect registered
    other: App  # a second confidential application, for cross-client checks
    _owner: UserAgent | None = field(default=None, repr=False)

    def close(self) -> None:
        """Close our own connections, so the server stops without waiting for them."""
        if self._owner is not None:
            self._owner.close()
            self._owner = None

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.server.base_url, verify=self.server.ssl_context())

    def agent(self, username: str | None = None, password: str | None = None) -> UserAgent:
        """A scripted user (the world's own unless named), not yet logged in."""
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
                "name": f"app-{secrets.token_hex(3)}",
                "type": kind,
                "redirect_uri": redirect,
            },
        )
        assert answer.status_code == 200, answer.text[:300]
        client_id = text_of(answer.text, "code#new-client-id")
        secret = text_of(answer.text, "code#new-client-secret")
        assert client_id and secret, answer.text[:2000]
        used = WEB_REDIRECT if kind == "confidential" else LOOPBACK_REDIRECT
        return App(client_id, secret, used, kind)

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


@contextmanager
def read_db(path: Path, readonly: bool = True) -> Iterator[sqlite3.Connection]:
    """A connection of our own; read-only unless the server is down (WAL recovery writes)."""
    db = sqlite3.connect(f"file:{path}{'?mode=ro' if readonly else ''}", uri=True, timeout=10)
    try:
        yield db
    finally:
        db.close()


def make_app(
    server: ServerProcess, owner: str, kind: str = "confidential", name: str | None = None
) -> App:
    """An application registered through the server's CLI; an installed one sends a loopback
    redirect with a port, as a desktop application does."""
    name = name or f"app-{kind}-{secrets.token_hex(3)}"
    if kind == "confidential":
        made = server.add_app(owner, name, kind, WEB_REDIRECT)
        return App(made["client_id"], made["client_secret"], WEB_REDIRECT, kind)
    made = server.add_app(owner, name, kind, INSTALLED_REDIRECT)
    return App(made["client_id"], made["client_secret"], LOOPBACK_REDIRECT, kind)


def provision(
    server: ServerProcess,
    username: str = "alice",
    *,
    installed_redirect: str = LOOPBACK_REDIRECT,
    **profile: str,
) -> World:
    """A user (with `profile` fields) and the three applications of a `World` on `server`;
    `installed_redirect` is the redirect the installed application sends."""
    password = secrets.token_urlsafe(12)
    email = f"{username}@example.org"
    server.add_user(username, password, email=email, **profile)
    web = make_app(server, username, "confidential", "Web app")
    desktop = make_app(server, username, "public", "Desktop app")
    installed = App(desktop.client_id, desktop.client_secret, installed_redirect, "public")
    made = server.add_app(username, "Other web app", "confidential", OTHER_REDIRECT)
    other = App(made["client_id"], made["client_secret"], OTHER_REDIRECT, "confidential")
    return World(server, username, password, email, web, installed, other)
