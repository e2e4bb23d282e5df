"""The kit against the bundled reference server over TLS (the 'user' is a form driver)."""

from __future__ import annotations

import dataclasses
import time

import httpx
import pytest

from client_kit import _errors
from client_kit._session import Session
from client_kit._storage import FileStore
from tests.kit.conftest import PASSWORD
from tests.kit.formdriver import FormDriver, oob_code
from tests.kit.helpers import FakeUI, http_get, query


def driver(ref_server, user: str = "alice") -> FormDriver:
    return FormDriver(ref_server.base_url, ref_server.ca_file, user, PASSWORD)


def loopback_browser(ref_server, decision: str = "approve", user: str = "alice"):
    """What a browser does: the service's pages, then the redirect to the listener."""

    def run(url: str) -> None:
        target = driver(ref_server, user).authorize(url, decision=decision)
        assert isinstance(target, str) and target.startswith("http://localhost:"), target
        http_get(target)

    return run


def new_session(ref_server, tmp_path, ui=None, app=None, **kwargs) -> Session:
    app = app or ref_server.loopback_app
    return Session(
        ref_server.profile(),
        app["client_id"],
        app["client_secret"],
        store=FileStore(tmp_path / "tokens"),
        ui=ui or FakeUI(),
        **kwargs,
    )


@pytest.fixture
def logged_in(ref_server, tmp_path):
    session = new_session(ref_server, tmp_path, ui=FakeUI(browser=loopback_browser(ref_server)))
    session.login(["profile", "email", "tag"])
    yield session
    session.close()


def test_loopback_login_userinfo_and_status(logged_in) -> None:
    tokens = logged_in.tokens()
    assert tokens.username == "alice" and tokens.refresh_token
    assert set(tokens.scopes) == {"profile", "email", "tag"}
    info = logged_in.userinfo()
    assert info["sub"] == "alice" and info["email"] == "alice@example.org"
    assert info["email_verified"] in (True, False)
    status = logged_in.status()
    assert status["logged_in"] and status["username"] == "alice"
    assert status["store"].startswith("file ")
    assert "access_token" not in str(status) and tokens.access_token not in str(status)


def test_httpx_auth_against_the_server(logged_in) -> None:
    with httpx.Client(auth=logged_in.auth(), verify=logged_in.profile.ssl_context()) as http:
        response = http.get(logged_in.profile.userinfo_url)
    assert response.status_code == 200 and response.json()["sub"] == "alice"


def test_refresh_replaces_the_access_token(logged_in) -> None:
    old = logged_in.tokens()
    new = logged_in.refresh()
    assert new.access_token != old.access_token
    assert new.refresh_token == old.refresh_token  # the spec: the refresh token stays valid
    assert logged_in.tokens().access_token == new.access_token
    # the previous access token stops working at the server
    with httpx.Client(verify=logged_in.profile.ssl_context()) as http:
        stale = http.get(
            logged_in.profile.userinfo_url, headers={"Authorization": f"Bearer {old.access_token}"}
        )
        fresh = http.get(
            logged_in.profile.userinfo_url, headers={"Authorization": f"Bearer {new.access_token}"}
        )
    assert stale.status_code == 401 and fresh.status_code == 200


def test_refresh_before_expiry_by_the_clock(ref_server, tmp_path, logged_in) -> None:
    old = logged_in.tokens()
    later = Session(
        logged_in.profile,
        logged_in.key.client_id,
        logged_in.endpoints.credentials.client_secret,
        store=logged_in.store,
        clock=lambda: time.time() + 3590,
    )
    assert later.access_token() != old.access_token
    assert logged_in.store.load(logged_in.key).access_token != old.access_token


def test_revoked_access_token_is_refreshed_on_401(logged_in) -> None:
    old = logged_in.tokens()
    logged_in.endpoints.revoke_response(
        logged_in.connections.send(logged_in.endpoints.revoke_request(old.access_token))
    )
    # the kit still believes the old access token valid; the server answers 401
    assert logged_in.userinfo()["sub"] == "alice"
    assert logged_in.tokens().access_token != old.access_token


def test_revoke_access_only_keeps_the_grant(logged_in) -> None:
    old = logged_in.tokens()
    logged_in.revoke("access")
    assert logged_in.tokens().is_expired()
    assert logged_in.access_token() != old.access_token  # refreshed with the same grant


def test_logout_revokes_the_grant(ref_server, tmp_path, logged_in) -> None:
    old = logged_in.tokens()
    logged_in.logout()
    assert logged_in.tokens() is None
    # the old refresh token no longer works at the server
    other = new_session(ref_server, tmp_path / "other")
    other.store.save(other.key, dataclasses.replace(old, expires_at=0.0))
    with pytest.raises(_errors.RefreshTokenRejected, match="log in again"):
        other.access_token()
    assert other.tokens() == other.store.load(other.key)  # kept, not lost


class OobUser(FakeUI):
    """Approves in the service's pages, then pastes the code (or the page's URL)."""

    def __init__(self, ref_server, paste_url: bool) -> None:
        super().__init__()
        self.ref_server = ref_server
        self.paste_url = paste_url

    def read_line(self, prompt: str) -> str | None:
        url = next(m for m in self.shown if "/oauth2/authorize?" in m).split("\n")[1]
        page = driver(self.ref_server).authorize(url)
        return page.redirect_url if self.paste_url else oob_code(page)


@pytest.mark.parametrize("paste_url", [False, True])
def test_oob_login_with_code_and_with_url(ref_server, tmp_path, paste_url) -> None:
    session = new_session(
        ref_server, tmp_path, ui=OobUser(ref_server, paste_url), app=ref_server.oob_app
    )
    tokens = session.login(["profile"], method="oob")
    assert tokens.username == "alice"
    assert session.userinfo()["sub"] == "alice"


def test_denied_consent(ref_server, tmp_path) -> None:
    ui = FakeUI(browser=loopback_browser(ref_server, decision="deny"))
    with pytest.raises(_errors.AccessDenied):
        new_session(ref_server, tmp_path, ui=ui).login(["profile"])


def test_invalid_scope_from_the_server(ref_server, tmp_path) -> None:
    def run(url: str) -> None:
        target = driver(ref_server).authorize(url.replace("scope=profile", "scope=nonsense"))
        http_get(target)

    with pytest.raises(_errors.InvalidScope):
        new_session(ref_server, tmp_path, ui=FakeUI(browser=run)).login(["profile"])


def test_wrong_client_secret_is_a_configuration_error(ref_server, tmp_path) -> None:
    app = dict(ref_server.loopback_app, client_secret="wrong-secret-wrong-secret")
    ui = FakeUI(browser=loopback_browser(ref_server))
    with pytest.raises(_errors.ClientRejected, match="client id or secret"):
        new_session(ref_server, tmp_path, ui=ui, app=app).login(["profile"])


def test_nothing_secret_in_debug_logs(ref_server, tmp_path, all_logs) -> None:
    codes: list[str] = []

    def run(url: str) -> None:
        target = driver(ref_server).authorize(url)
        codes.append(query(target)["code"])
        http_get(target)

    session = new_session(ref_server, tmp_path, ui=FakeUI(browser=run))
    first = session.login(["profile", "email"])
    second = session.refresh()
    session.userinfo()
    session.logout()
    secrets = [
        ref_server.loopback_app["client_secret"],
        *codes,
        first.access_token,
        first.refresh_token,
        second.access_token,
    ]
    text = "\n".join(all_logs.lines)
    assert "httpcore" in text and "HTTP Request" in text  # the libraries did log at DEBUG
    for secret in secrets:
        assert secret not in text


def test_threads_refreshing_at_once_send_one_refresh(ref_server, tmp_path, logged_in) -> None:
    import threading

    old = logged_in.tokens()
    logged_in.store.save(logged_in.key, dataclasses.replace(old, expires_at=time.time() - 1))
    secret = logged_in.endpoints.credentials.client_secret
    sessions = [
        Session(
            logged_in.profile,
            logged_in.key.client_id,
            secret,
            store=FileStore(tmp_path / "tokens"),
        )
        for _ in range(6)
    ]
    barrier = threading.Barrier(len(sessions))
    results: list[str] = []

    def work(session: Session) -> None:
        barrier.wait()
        results.append(session.access_token())

    threads = [threading.Thread(target=work, args=(s,)) for s in sessions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # every refresh invalidates the previous access token: one token for all means one refresh
    assert len(results) == 6 and len(set(results)) == 1 and results[0] != old.access_token
    assert sum(s.engine.refresh_count for s in sessions) == 1
    assert logged_in.userinfo()["sub"] == "alice"
