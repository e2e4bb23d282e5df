"""Secrets: compared in constant time, and never written to the server's log.

Timing is not measured (too noisy on shared machines): the tests check that every comparison
of a secret goes through hmac.compare_digest, by spying on it and by reading the source.
"""

from __future__ import annotations

import ast
import contextlib
import hmac
import re
import secrets
import socket
import ssl
from pathlib import Path

import pytest

import reference_server
from reference_server import accounts, credentials, pkce
from reference_server.clock import SystemClock
from reference_server.errors import OAuthError
from reference_server.guard import Guard
from reference_server.launcher import ServerProcess
from reference_server.storage import Store
from reference_server.web import sessions
from tests.support.user_agent import find_form

from .helpers import authorize_params, exchange, log_path, provision, query_of, refresh, revoke

SERVER_DIR = Path(reference_server.__file__).parent


class Spy:
    """Counts calls to hmac.compare_digest while passing them through."""

    def __init__(self) -> None:
        self.calls = 0
        self.real = hmac.compare_digest

    def __call__(self, a, b) -> bool:
        self.calls += 1
        return self.real(a, b)


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> Spy:
    watcher = Spy()
    monkeypatch.setattr(hmac, "compare_digest", watcher)
    return watcher


@pytest.fixture
def store(tmp_path: Path):
    db = Store(tmp_path / "server.sqlite3")
    yield db
    db.close()


def test_client_secret_is_compared_in_constant_time(spy: Spy, store: Store):
    owner = accounts.add_user(store, "owner", "password-123", 0)
    made = accounts.add_application(
        store, owner, "app", "confidential", "https://client.example/cb", 0
    )
    client_id, secret = made.application.client_id, made.client_secret
    guard = Guard(store, SystemClock())  # the token and revoke endpoints' path
    assert guard.authenticate("192.0.2.1", client_id, secret).application.client_id == client_id
    other_last = "y" if secret.endswith("x") else "x"  # a secret may end in "x" itself
    for wrong in (secret[:-1] + other_last, "", secret + "x"):
        before = spy.calls
        with pytest.raises(OAuthError, match="client authentication failed"):
            guard.authenticate("192.0.2.1", client_id, wrong)
        assert spy.calls == before + 1
    # An unknown client costs the same comparison (no early return that times client ids).
    before = spy.calls
    with pytest.raises(OAuthError, match="client authentication failed"):
        guard.authenticate("192.0.2.1", "no-such-client", secret)
    assert spy.calls == before + 1


def test_csrf_tokens_and_passwords_are_compared_in_constant_time(spy: Spy, store: Store):
    session = sessions.BrowserSession("key", None, "the-csrf-token")
    for submitted in ("the-csrf-token", "the-csrf-tokeX", ""):
        before = spy.calls
        session.csrf_ok(submitted)
        assert spy.calls == before + 1
    stored = credentials.hash_password("correct horse")
    for attempt in ("correct horse", "wrong"):
        before = spy.calls
        credentials.check_password(attempt, stored)
        assert spy.calls == before + 1


def test_pkce_verifier_is_compared_in_constant_time(spy: Spy):
    verifier = secrets.token_urlsafe(48)
    for method in ("plain", "S256"):
        before = spy.calls
        pkce.verifier_matches(verifier, "A" * 43, method)
        assert spy.calls == before + 1


# Names that hold secrets: a comparison involving one must not use == or !=.
_SECRET_NAME = re.compile(r"secret|csrf|verifier|challenge|password|digest|_hash|token(?!_type)")


def _names(node: ast.AST) -> str:
    return " ".join(
        n.id
        if isinstance(n, ast.Name)
        else n.attr
        if isinstance(n, ast.Attribute)
        else str(n.value)
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
        else ""
        for n in ast.walk(node)
    )


def test_no_secret_is_compared_with_equality_operators():
    """A static net: `a == b` on a secret leaks, through timing, how much of it matched."""
    found = []
    for path in sorted(SERVER_DIR.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare):
                continue
            if not any(isinstance(op, ast.Eq | ast.NotEq) for op in node.ops):
                continue
            operands = [node.left, *node.comparators]
            # Comparing with a literal, None or a length is not comparing two secrets.
            if any(isinstance(o, ast.Constant) for o in operands):
                continue
            if any(
                isinstance(o, ast.Call) and getattr(o.func, "id", "") == "len" for o in operands
            ):
                continue
            if all(_SECRET_NAME.search(_names(o).lower()) for o in operands):
                found.append(f"{path.relative_to(SERVER_DIR)}:{node.lineno}: {ast.unparse(node)}")
    assert not found, "\n".join(found)


# --- logs -----------------------------------------------------------------------------------


def _raw_bad_request(server: ServerProcess, leaked: str) -> None:
    """A malformed HTTP request that carries a token: the server may log the error, not it."""
    context = ssl.create_default_context(cafile=server.ca_file)
    host, port = server.base_url.removeprefix("https://").rsplit(":", 1)
    with (
        socket.create_connection((host, int(port)), timeout=5) as raw,
        context.wrap_socket(raw, server_hostname=host) as tls,
    ):
        tls.sendall(
            f"GET /oauth2/userinfo?access_token={leaked} HTTP/1.1\r\nHost: x\r\n"
            f"Bad header {leaked}\r\n\r\n".encode()
        )
        with contextlib.suppress(OSError):
            tls.recv(4096)


def test_no_secret_code_or_token_reaches_the_log(tmp_path: Path):
    """Run every flow, the failing ones too, then search the log for every secret seen."""
    server = ServerProcess(tmp_path / "data", test_clock=True)
    with server:
        site = provision(server)
        seen = {
            site.password,
            site.web.client_secret,
            site.installed.client_secret,
            site.other.client_secret,
        }
        browser = site.agent()
        with site.http() as http:
            # A failed login with a near-miss password, then the real one.
            page = browser.http.get("/login")
            form = find_form(page.text, "login-form")
            near_miss = site.password + "-typo"
            seen |= {near_miss, form.csrf_token}
            browser.http.post(
                "/login",
                data={
                    "username": site.username,
                    "password": near_miss,
                    "csrf_token": form.csrf_token,
                },
            )
            browser.log_in()
            seen.add(browser.http.cookies.get("__Host-mb-session") or "")
            for app in (site.web, site.installed):
                consent = browser.open_authorize(authorize_params(app, offline=True))
                form = find_form(consent.text, "consent-form")
                seen.add(form.csrf_token)
                answer = browser.http.post(
                    form.action, data={"csrf_token": form.csrf_token, "decision": "approve"}
                )
                code = query_of(answer.headers["location"])["code"]
                issued = exchange(http, app, code).json()
                seen |= {code, issued["access_token"], issued["refresh_token"]}
                renewed = refresh(http, app, issued["refresh_token"]).json()
                seen.add(renewed["access_token"])
                http.get("/oauth2/userinfo", params={"access_token": renewed["access_token"]})
                http.post("/oauth2/userinfo", data={"access_token": renewed["access_token"]})
                # Secrets in the URL are refused, and must not be logged either.
                http.post(
                    "/oauth2/token", params={"client_secret": app.client_secret, "code": code}
                )
                wrong = secrets.token_urlsafe(24)
                seen.add(wrong)
                http.post(
                    "/oauth2/token",
                    data={
                        "grant_type": "refresh_token",
                        "refresh_token": issued["refresh_token"],
                        "client_id": app.client_id,
                        "client_secret": wrong,
                    },
                )
                revoke(http, app, renewed["access_token"])
                exchange(http, app, code)  # a replay
                revoke(http, app, issued["refresh_token"])
                _raw_bad_request(server, issued["access_token"])
        browser.close()
    log = log_path(server).read_text(errors="replace")
    assert "Serving https://" in log  # the log is the server's own output
    leaked = sorted(s for s in seen if s and s in log)
    assert not leaked, f"{len(leaked)} secret(s) found in {log_path(server)}"
