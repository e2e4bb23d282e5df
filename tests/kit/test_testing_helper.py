"""`client_kit.testing`: an application's tests approve the bundled server's consent page.

What an application's test does, as the kit's page (docs/client-kit.md) shows it: start a
login without a browser, hand the announced address to `BundledServerUser`, wait for the
login. The kit's own integration tests play the user through it too (tests/kit/formdriver.py).
"""

from __future__ import annotations

import pytest

from client_kit import AccessDenied, Session
from client_kit.testing import BundledServerUser, ConsentError, _Form
from tests.kit.conftest import PASSWORD
from tests.kit.test_integration import new_session


def app_session(ref_server, tmp_path, app=None) -> Session:
    return new_session(ref_server, tmp_path, app=app)


def user(ref_server, name: str = "alice", password: str = PASSWORD) -> BundledServerUser:
    return BundledServerUser(ref_server.base_url, name, password, ca_bundle=ref_server.ca_file)


def announced(handle) -> str:
    """The browser_url of the login's authorization_url event (waiting for it)."""
    while True:
        assert not handle.done or not handle.events.empty(), handle.error
        event = handle.events.get(timeout=30)
        if event.kind == "authorization_url":
            return event.browser_url


def test_an_application_test_approves_the_login(ref_server, tmp_path) -> None:
    session = app_session(ref_server, tmp_path)
    handle = session.start_login(["profile"], open_browser=False)
    outcome = user(ref_server).approve(announced(handle))
    assert handle.wait(30) and handle.result().username == "alice"
    assert outcome.delivered_status == 200 and outcome.code and not outcome.oob
    session.close()


def test_a_denial_ends_the_login_with_access_denied(ref_server, tmp_path) -> None:
    session = app_session(ref_server, tmp_path)
    handle = session.start_login(["profile"], open_browser=False)
    outcome = user(ref_server, "bob").deny(announced(handle))
    assert handle.wait(30) and isinstance(handle.error, AccessDenied)
    assert outcome.params["error"] == "access_denied" and outcome.code is None
    session.close()


def test_the_out_of_band_code_is_read_from_the_page(ref_server, tmp_path) -> None:
    session = app_session(ref_server, tmp_path, ref_server.oob_app)
    request = session.begin_login(["profile"], method="oob")
    outcome = user(ref_server).approve(request.browser_url)
    assert outcome.oob and outcome.code
    assert session.complete_login(request, code=outcome.code).username == "alice"


def test_the_redirect_can_be_kept_instead_of_delivered(ref_server, tmp_path) -> None:
    session = app_session(ref_server, tmp_path)
    request = session.begin_login(["profile"])
    outcome = user(ref_server).approve(request.browser_url, deliver=False)
    assert outcome.delivered_status is None and outcome.params["state"] == request.state
    assert session.complete_login(request, redirected_url=outcome.redirect_url).username == "alice"


def test_a_wrong_password_fails_the_test_with_its_reason(ref_server, tmp_path) -> None:
    session = app_session(ref_server, tmp_path)
    request = session.begin_login(["profile"])
    with pytest.raises(ConsentError, match="refused the login as 'alice'"):
        user(ref_server, password="not the password").approve(request.browser_url)
    session.cancel_login(request)


def test_the_password_is_never_posted_to_another_origin(ref_server) -> None:
    form = _Form({"id": "login-form", "action": "https://elsewhere.example/login"})
    with pytest.raises(ConsentError, match="posts to another origin"):
        user(ref_server)._action(form, ref_server.base_url + "/login")
