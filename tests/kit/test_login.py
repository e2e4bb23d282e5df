"""Desktop login through Session: loopback, out-of-band, paste, errors (respx server)."""

from __future__ import annotations

import threading
from urllib.parse import parse_qs

import httpx
import pytest

from client_kit import _errors
from client_kit._cli_hints import explain
from client_kit._session import Session
from tests.kit.helpers import (
    CLIENT_ID,
    CLIENT_SECRET,
    FakeUI,
    http_get,
    query,
    redirect_with,
    token_json,
)


@pytest.fixture
def server(mock):
    """A token endpoint and user information that record what they were sent."""
    seen: dict[str, list] = {"token": []}

    def token(request: httpx.Request) -> httpx.Response:
        form = {k: v[0] for k, v in parse_qs(request.content.decode()).items()}
        seen["token"].append(form)
        if form.get("code") == "BAD":
            return httpx.Response(400, json={"error": "invalid_grant"})
        return httpx.Response(200, json=token_json("access-1", "refresh-1", scope="profile tag"))

    mock.post("/oauth2/token").mock(side_effect=token)
    mock.get("/oauth2/userinfo").respond(200, json={"sub": "alice", "metabrainz_user_id": 7})
    return seen


def browser(code: str = "CODE-1", **extra: str):
    """A 'browser' that approves and follows the redirect to the listener."""

    def run(url: str) -> None:
        params = {"code": code, "state": query(url)["state"], **extra}
        http_get(redirect_with(url, **params))

    return run


def make(profile, store, ui) -> Session:
    return Session(profile, CLIENT_ID, CLIENT_SECRET, store=store, ui=ui)


def test_loopback_login_exchanges_code_with_pkce_and_stores_tokens(
    mb_profile, memory_store, server
) -> None:
    ui = FakeUI(browser=browser())
    with make(mb_profile, memory_store, ui) as session:
        tokens = session.login(["profile", "tag"])
    assert tokens.access_token == "access-1" and tokens.username == "alice"
    auth_q = query(ui.opened[0])
    form = server["token"][0]
    assert form["grant_type"] == "authorization_code" and form["code"] == "CODE-1"
    assert form["redirect_uri"] == auth_q["redirect_uri"]
    assert auth_q["redirect_uri"].startswith("http://localhost:")
    assert form["client_id"] == CLIENT_ID and form["client_secret"] == CLIENT_SECRET
    assert len(form["code_verifier"]) >= 43
    stored = memory_store.load(session.key)
    assert stored.refresh_token == "refresh-1" and stored.username == "alice"
    assert stored.scopes == ("profile", "tag")


def test_denied_consent_is_access_denied(mb_profile, memory_store, server) -> None:
    ui = FakeUI(
        browser=lambda url: http_get(
            redirect_with(url, error="access_denied", state=query(url)["state"])
        )
    )
    with pytest.raises(_errors.AccessDenied, match="not granted"):
        make(mb_profile, memory_store, ui).login()
    assert server["token"] == []
    assert memory_store.load(make(mb_profile, memory_store, ui).key) is None


def test_forged_callback_is_ignored_then_real_one_wins(mb_profile, memory_store, server) -> None:
    def run(url: str) -> None:
        status, _ = http_get(redirect_with(url, code="FORGED", state="attacker"))
        assert status == 400
        http_get(redirect_with(url, code="REAL", state=query(url)["state"]))

    make(mb_profile, memory_store, FakeUI(browser=run)).login()
    assert [f["code"] for f in server["token"]] == ["REAL"]


def test_timeout_raises_login_timeout(mb_profile, memory_store, server) -> None:
    ui = FakeUI(browser=lambda url: None)
    with pytest.raises(_errors.LoginTimeout, match="seconds"):
        make(mb_profile, memory_store, ui).login(timeout=0.3)
    assert server["token"] == []


def test_ctrl_c_cancels_the_login_and_frees_the_port(mb_profile, memory_store, server) -> None:
    class Interrupting(FakeUI):
        def show(self, message: str) -> None:
            raise KeyboardInterrupt

    ui = Interrupting(browser=lambda url: None)
    with pytest.raises(_errors.LoginCancelled, match="interrupted"):
        make(mb_profile, memory_store, ui).login()
    redirect = query(ui.opened[0])["redirect_uri"]
    with pytest.raises(OSError):
        http_get(redirect + "?code=x")  # nobody listens any more


def test_no_browser_paste_of_redirected_url_wins_the_race(mb_profile, memory_store, server) -> None:
    holder: dict[str, str] = {}

    class Paster(FakeUI):
        def show(self, message: str) -> None:
            super().show(message)
            if "http" in message and "state=" in message:
                holder["url"] = message.split("\n", 1)[1]

        def read_line(self, prompt: str) -> str | None:
            url = holder["url"]
            return redirect_with(url, code="PASTED", state=query(url)["state"])

    ui = Paster()
    make(mb_profile, memory_store, ui).login()
    assert [f["code"] for f in server["token"]] == ["PASTED"]
    assert any("paste the URL" in m for m in ui.shown)


def test_no_browser_listener_can_still_win(mb_profile, memory_store, server) -> None:
    holder: dict[str, str] = {}
    ready = threading.Event()

    class Waiting(FakeUI):
        def show(self, message: str) -> None:
            if "state=" in message:
                holder["url"] = message.split("\n", 1)[1]
                ready.set()

    ui = Waiting(block_reading=True)

    def deliver() -> None:
        ready.wait(10)
        url = holder["url"]
        http_get(redirect_with(url, code="FROM-LISTENER", state=query(url)["state"]))

    threading.Thread(target=deliver, daemon=True).start()
    make(mb_profile, memory_store, ui).login()
    assert [f["code"] for f in server["token"]] == ["FROM-LISTENER"]


def test_oob_login_with_pasted_code(mb_profile, memory_store, server) -> None:
    ui = FakeUI(lines=["OOB-CODE"])
    make(mb_profile, memory_store, ui).login(method="oob")
    form = server["token"][0]
    assert form["code"] == "OOB-CODE"
    assert form["redirect_uri"] == "urn:ietf:wg:oauth:2.0:oob"
    assert "Paste the code" in ui.prompts[0]
    assert any("/oauth2/authorize?" in m for m in ui.shown)


def test_oob_login_with_pasted_url_checks_state(mb_profile, memory_store, server) -> None:
    captured: dict[str, str] = {}

    class UrlPaster(FakeUI):
        def show(self, message: str) -> None:
            if "state=" in message:
                captured["state"] = query(message.split("\n", 1)[1])["state"]

        def read_line(self, prompt: str) -> str | None:
            return f"https://mb.test/oauth2/oob?code=URL-CODE&state={captured['state']}"

    make(mb_profile, memory_store, UrlPaster()).login(method="oob")
    assert server["token"][0]["code"] == "URL-CODE"
    bad = FakeUI(lines=["https://mb.test/oauth2/oob?code=X&state=wrong"])
    with pytest.raises(_errors.StateMismatch):
        make(mb_profile, memory_store, bad).login(method="oob")


def test_oob_with_nothing_pasted_is_cancelled(mb_profile, memory_store, server) -> None:
    with pytest.raises(_errors.LoginCancelled, match="no code"):
        make(mb_profile, memory_store, FakeUI(lines=[])).login(method="oob")


def test_metabrainz_has_no_oob_and_needs_fixed_ports(meta_profile, memory_store) -> None:
    with pytest.raises(_errors.ConfigurationError, match="no out-of-band"):
        make(meta_profile, memory_store, FakeUI()).login(method="oob")
    with pytest.raises(_errors.ConfigurationError, match="port included") as info:
        make(meta_profile, memory_store, FakeUI()).login()
    assert info.value.setting == "ports" and "--port" in explain(info.value)


def test_metabrainz_uses_a_fixed_port_and_prefixed_scopes(meta_profile, memory_store, mock):
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    mock.post("/oauth2/token").respond(
        200, json=token_json("meba_access", "mebr_refresh", scope=["profile", "musicbrainz:tag"])
    )
    mock.get("/oauth2/userinfo").respond(200, json={"sub": "42", "username": "carol"})
    ui = FakeUI(browser=browser())
    tokens = make(meta_profile, memory_store, ui).login(["profile", "tag"], ports=[port])
    q = query(ui.opened[0])
    assert q["redirect_uri"] == f"http://localhost:{port}/callback"
    assert q["scope"] == "profile musicbrainz:tag"
    assert tokens.username == "carol" and tokens.scopes == ("profile", "musicbrainz:tag")


def test_rejected_code_is_login_required(mb_profile, memory_store, server) -> None:
    with pytest.raises(_errors.LoginRequired, match="code was not accepted"):
        make(mb_profile, memory_store, FakeUI(lines=["BAD"])).login(method="oob")


def test_invalid_scope_before_any_request(mb_profile, memory_store, server) -> None:
    with pytest.raises(_errors.ConfigurationError, match="unknown scope"):
        make(mb_profile, memory_store, FakeUI(lines=["x"])).login(["nope"], method="oob")
    assert server["token"] == []
