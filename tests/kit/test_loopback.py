"""The loopback listener: one valid callback, on the exact path, with the right state."""

from __future__ import annotations

import socket
import threading
from urllib.parse import parse_qs

import pytest

from client_kit._cli_hints import explain
from client_kit._errors import PortUnavailable
from client_kit._loopback import LoopbackListener
from client_kit._pages import render_page
from client_kit._session import Session
from tests.kit.helpers import (
    CLIENT_ID,
    CLIENT_SECRET,
    GUARD,
    FakeUI,
    callback,
    http_get,
    query,
    redirect_with,
    token_json,
    wait_for,
)


def test_binds_loopback_only_and_uses_localhost_in_redirect(listener) -> None:
    assert [s.server_address[0] for s in listener._servers] in (["127.0.0.1", "::1"], ["127.0.0.1"])
    assert listener.redirect_uri == f"http://localhost:{listener.port}/callback"


def test_valid_callback_is_delivered_once(listener) -> None:
    url = f"http://127.0.0.1:{listener.port}/callback?code=C1&state=good-state"
    status, body = http_get(url)
    assert status == 200 and "Authorization received" in body and "Test App" in body
    assert listener.results.get(timeout=10) == ("loopback", {"code": "C1", "state": "good-state"})
    # a second callback is ignored, even a valid-looking one
    status, body = http_get(url.replace("C1", "C2"))
    assert status == 410 and "already finished" in body
    assert listener.results.empty()


def test_wrong_state_is_refused_and_listener_keeps_waiting(listener) -> None:
    status, body = http_get(f"http://127.0.0.1:{listener.port}/callback?code=C&state=evil")
    assert status == 400 and "does not belong" in body
    status, _ = http_get(f"http://127.0.0.1:{listener.port}/callback?code=C")
    assert status == 400
    assert listener.results.empty()
    status, _ = http_get(f"http://127.0.0.1:{listener.port}/callback?code=OK&state=good-state")
    assert status == 200
    assert listener.results.get(timeout=10)[1]["code"] == "OK"


def test_other_paths_and_favicon_are_ignored(listener) -> None:
    for path in ("/favicon.ico", "/", "/callback/x", "/Callback?code=C&state=good-state"):
        status, _ = http_get(f"http://127.0.0.1:{listener.port}{path}")
        assert status == 404
    assert listener.results.empty()


def test_error_page_is_escaped(listener) -> None:
    url = (
        f"http://127.0.0.1:{listener.port}/callback?error=access_denied"
        "&error_description=%3Cscript%3Ealert(1)%3C/script%3E&state=good-state"
    )
    status, body = http_get(url)
    assert status == 200 and "Login failed" in body and "access_denied" in body
    assert "<script>" not in body and "&lt;script&gt;" in body
    assert listener.results.get(timeout=10)[1]["error"] == "access_denied"


def test_error_without_state_is_ignored_like_a_stray_request(listener) -> None:
    status, _ = http_get(f"http://127.0.0.1:{listener.port}/callback?error=access_denied")
    assert status == 400
    assert listener.results.empty()


def test_pages_have_no_external_assets() -> None:
    page = render_page("<T>", ["a & b", "<img src=http://x>"], ok=True).decode()
    assert "&lt;T&gt;" in page and "a &amp; b" in page and "<img" not in page
    plain = render_page("Done", ["You can close this tab."], ok=True).decode()
    for marker in ("http://", "https://", "<link", "<script", "<img", "src=", "@import"):
        assert marker not in plain


def test_fixed_ports_first_free_wins_and_busy_fails_fast() -> None:
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    busy_port = busy.getsockname()[1]
    free = socket.socket()
    free.bind(("127.0.0.1", 0))
    free_port = free.getsockname()[1]
    free.close()
    try:
        with LoopbackListener("/cb", [busy_port, free_port]) as lst:
            assert lst.port == free_port
            assert lst.redirect_uri == f"http://localhost:{free_port}/cb"
        with pytest.raises(PortUnavailable, match=str(busy_port)) as info:
            LoopbackListener("/cb", [busy_port]).start()
        assert info.value.ports == (busy_port,) and "--port" in explain(info.value)
    finally:
        busy.close()


def test_post_is_not_a_callback(listener) -> None:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        f"http://127.0.0.1:{listener.port}/callback?code=C&state=good-state", data=b"x"
    )
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(request, timeout=10)
    assert info.value.code == 405
    assert listener.results.empty()


def test_redirect_host_can_be_the_ip_literal() -> None:
    from client_kit._errors import ConfigurationError

    with LoopbackListener("/cb", redirect_host="127.0.0.1") as lst:
        assert lst.redirect_uri == f"http://127.0.0.1:{lst.port}/cb"
    with pytest.raises(ConfigurationError):
        LoopbackListener("/cb", redirect_host="example.org")


def test_an_idle_connection_does_not_block_the_callback(listener) -> None:
    idle = socket.create_connection(("127.0.0.1", listener.port))  # a browser's preconnect
    try:
        status, _ = http_get(f"http://127.0.0.1:{listener.port}/callback?code=C&state=good-state")
        assert status == 200
        assert listener.results.get(timeout=10)[1]["code"] == "C"
    finally:
        idle.close()


def test_after_the_first_valid_callback_every_other_one_is_refused(listener) -> None:
    status, _ = callback(listener, "code=FIRST&state=good-state")
    assert status == 200
    for later in (
        "code=SECOND&state=good-state",  # a replay with another code
        "code=FIRST&state=good-state",  # the same one again
        "error=access_denied&state=good-state",
        "error=access_denied",
        "code=X&state=evil",
    ):
        status, page = callback(listener, later)
        assert status == 410 and "already finished" in page, later
    delivered = listener.results.get(timeout=GUARD)
    assert delivered == ("loopback", {"code": "FIRST", "state": "good-state"})
    assert listener.results.empty()


def test_simultaneous_callbacks_deliver_exactly_one(listener) -> None:
    count = 12
    barrier = threading.Barrier(count)
    statuses: list[int] = []

    def send(index: int) -> None:
        barrier.wait()
        statuses.append(callback(listener, f"code=C{index}&state=good-state")[0])

    threads = [threading.Thread(target=send, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(GUARD)
    assert sorted(statuses) == [200] + [410] * (count - 1)
    listener.results.get(timeout=GUARD)
    assert listener.results.empty()


def test_a_second_callback_during_a_login_is_not_exchanged(mb_profile, memory_store, mock) -> None:
    token = mock.post("/oauth2/token").respond(200, json=token_json("access-1", "refresh-1"))
    mock.get("/oauth2/userinfo").respond(200, json={"sub": "alice"})
    second: list[object] = []

    def browser(url: str) -> None:
        state = query(url)["state"]
        http_get(redirect_with(url, code="CODE-1", state=state))
        try:  # the listener is either still up (and refuses) or already gone
            second.append(http_get(redirect_with(url, code="CODE-2", state=state)))
        except OSError as exc:
            second.append(exc)

    ui = FakeUI(browser=browser)
    session = Session(mb_profile, CLIENT_ID, CLIENT_SECRET, store=memory_store, ui=ui)
    session.login()
    wait_for(lambda: bool(second), timeout=GUARD)
    assert isinstance(second[0], OSError) or second[0][0] == 410
    assert len(token.calls) == 1
    assert parse_qs(token.calls[0].request.content.decode())["code"] == ["CODE-1"]
