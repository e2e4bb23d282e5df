"""Start a login now, finish it later, with public names only."""

from __future__ import annotations

import threading

import pytest

from client_kit import AuthorizationRequest, Session, _errors
from client_kit._storage import FileStore
from client_kit.profiles import OOB_REDIRECT_URI
from tests.kit.helpers import CLIENT_ID, CLIENT_SECRET, FakeUI, http_get, query, redirect_with
from tests.kit.test_integration import driver, new_session
from tests.kit.test_login import server  # noqa: F401 - the recording token endpoint


def test_oob_request_survives_a_restart_and_completes_from_a_pasted_code(
    mb_profile,
    tmp_path,
    server,  # noqa: F811
) -> None:
    store = FileStore(tmp_path / "tokens")
    with Session(mb_profile, CLIENT_ID, CLIENT_SECRET, store=store, ui=FakeUI()) as first:
        request = first.begin_login(["profile", "tag"], method="oob")
    saved = request.to_json()
    assert request.method == "oob" and request.redirect_uri == OOB_REDIRECT_URI
    assert query(request.url)["state"] == request.state and request.code_verifier

    # ... the application restarts ...
    restored = AuthorizationRequest.from_json(saved)
    assert restored == request
    with Session(mb_profile, CLIENT_ID, CLIENT_SECRET, store=store, ui=FakeUI()) as later:
        tokens = later.complete_login(restored, code="PASTED-CODE")
    sent = server["token"][0]
    assert sent["code"] == "PASTED-CODE" and sent["code_verifier"] == request.code_verifier
    assert sent["redirect_uri"] == OOB_REDIRECT_URI
    assert tokens.username == "alice"
    assert store.load(later.key).access_token == tokens.access_token


def test_a_redirected_url_must_carry_this_request_state(mb_profile, memory_store, server):  # noqa: F811
    session = Session(mb_profile, CLIENT_ID, CLIENT_SECRET, store=memory_store, ui=FakeUI())
    request = session.begin_login(redirect_uri="http://localhost:8976/callback")
    forged = "http://localhost:8976/callback?code=C&state=someone-elses"
    with pytest.raises(_errors.StateMismatch):
        session.complete_login(request, redirected_url=forged)
    assert server["token"] == [] and memory_store.load(session.key) is None
    good = f"http://localhost:8976/callback?code=C&state={request.state}"
    assert session.complete_login(request, redirected_url=good).access_token == "access-1"


def test_not_a_saved_request_is_a_clear_error() -> None:
    with pytest.raises(_errors.ConfigurationError, match="not a saved authorization request"):
        AuthorizationRequest.from_json('{"url": 1}')


def test_loopback_request_completes_from_its_listener(mb_profile, memory_store, server):  # noqa: F811
    session = Session(mb_profile, CLIENT_ID, CLIENT_SECRET, store=memory_store, ui=FakeUI())
    request = session.begin_login(["profile"])  # the listener runs from now on
    assert request.method == "loopback" and request.redirect_uri.startswith("http://localhost:")
    target = redirect_with(request.url, code="LOOP-CODE", state=request.state)
    threading.Thread(target=http_get, args=(target,), daemon=True).start()
    tokens = session.complete_login(request, timeout=30)
    assert tokens.access_token == "access-1" and server["token"][0]["code"] == "LOOP-CODE"
    # the listener is closed once the login is complete
    with pytest.raises(_errors.ConfigurationError, match="no loopback listener"):
        session.complete_login(request, timeout=1)


def test_two_steps_against_the_bundled_server(ref_server, tmp_path) -> None:
    session = new_session(ref_server, tmp_path, app=ref_server.oob_app)
    request = session.begin_login(["profile", "email"], method="oob")
    page = driver(ref_server).authorize(AuthorizationRequest.from_json(request.to_json()).url)
    tokens = session.complete_login(request, redirected_url=page.redirect_url)
    assert tokens.username == "alice" and set(tokens.scopes) == {"profile", "email"}


def test_after_a_replayed_completion_the_login_ends_once_its_refresh_is_rejected(
    ref_server, tmp_path
) -> None:
    """The service revokes the tokens of a replayed code; status() must not stay logged in."""
    session = new_session(ref_server, tmp_path, app=ref_server.oob_app)
    request = session.begin_login(["profile"], method="oob")
    redirected = driver(ref_server).authorize(request.url).redirect_url
    session.complete_login(request, redirected_url=redirected)
    with pytest.raises(_errors.LoginRequired):
        session.complete_login(request, redirected_url=redirected)  # the same code again
    assert session.status().logged_in  # nothing has told the kit yet
    with pytest.raises(_errors.RefreshTokenRejected):
        session.userinfo()  # refused, refreshed, the refresh token rejected
    assert not session.status().logged_in and session.tokens() is None
