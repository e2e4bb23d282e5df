"""The session's seams: userinfo through the one ``BearerAuth`` flow, sync
and async alike (and never over plain HTTP); ``status()`` typed yet readable as before; the
modes checked at run time."""

from __future__ import annotations

import asyncio
import threading

import httpx
import pytest

from client_kit import LoginStatus, _errors
from client_kit._auth import BearerAuth
from client_kit._cli_output import Check, status_data
from tests.kit.helpers import make_tokens, token_json


@pytest.fixture
def refused_once(mock):
    """userinfo refuses the old access token (401) and accepts the refreshed one."""
    seen: list[str | None] = []

    def userinfo(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("Authorization"))
        if request.headers.get("Authorization") == "Bearer access-token-old":
            return httpx.Response(401, json={"error": "invalid_token"})
        return httpx.Response(200, json={"sub": "alice"})

    token = mock.post("/oauth2/token").respond(200, json=token_json("access-new"))
    mock.get("/oauth2/userinfo").mock(side_effect=userinfo)
    return seen, token


@pytest.mark.parametrize("flavour", ["sync", "async"])
def test_userinfo_goes_through_bearer_auth(session, refused_once, monkeypatch, flavour) -> None:
    """``auserinfo`` is ``userinfo`` in a worker thread: the same BearerAuth, off the loop."""
    seen, token = refused_once
    session.store.save(session.key, make_tokens())  # valid by its expiry, refused by the API
    flows: list[tuple[str, bool]] = []
    caller = threading.get_ident()
    for name in ("sync_auth_flow", "async_auth_flow"):
        real = getattr(BearerAuth, name)

        def spy(self, request, real=real, name=name):
            flows.append((name, threading.get_ident() == caller))
            return real(self, request)

        monkeypatch.setattr(BearerAuth, name, spy)
    info = session.userinfo() if flavour == "sync" else asyncio.run(session.auserinfo())
    assert info == {"sub": "alice"}
    assert flows == [("sync_auth_flow", flavour == "sync")]
    assert seen == ["Bearer access-token-old", "Bearer access-new"]  # refreshed once, retried
    assert len(token.calls) == 1 and session.tokens().access_token == "access-new"


def test_userinfo_refused_after_a_refresh_means_log_in_again(session, mock) -> None:
    session.store.save(session.key, make_tokens())
    mock.post("/oauth2/token").respond(200, json=token_json("access-new"))
    mock.get("/oauth2/userinfo").respond(401, json={"error": "invalid_token"})
    with pytest.raises(_errors.LoginRequired, match="did not accept the access token"):
        session.userinfo()


def test_status_is_typed_and_reads_like_the_old_dictionary(session) -> None:
    empty = session.status()
    assert isinstance(empty, LoginStatus) and not empty.logged_in
    assert empty["logged_in"] is False and "username" not in empty.as_dict()
    session.store.save(session.key, make_tokens(expires_in=120, username="alice"))
    status = session.status()
    assert (status.username, status.scopes, status.has_refresh_token) == (
        "alice",
        ("profile",),
        True,
    )
    assert status["scopes"] == ["profile"] and status.get("username") == "alice"
    assert dict(status) == status.as_dict() and "expires_at" in status
    assert 100 < status.expires_in <= 120 and not status.expired
    assert "access-token-old" not in repr(status) + str(status.as_dict())


def test_the_cli_shapes_the_status(session) -> None:
    session.store.save(session.key, make_tokens(expires_in=120, username="alice"))
    status = session.status()
    data = status_data(status)
    assert data["checked"] is False and isinstance(data["expires_at"], int)
    checked = status_data(status, Check(valid=False, problem="revoked"))
    assert (checked["checked"], checked["valid"], checked["problem"]) == (True, False, "revoked")


def test_the_modes_are_checked_at_run_time(session) -> None:
    with pytest.raises(_errors.ConfigurationError, match="unknown login method") as info:
        session.begin_login(method="carrier-pigeon")  # type: ignore[arg-type]
    assert info.value.setting == "method"
    session.store.save(session.key, make_tokens())
    with pytest.raises(_errors.ConfigurationError, match="unknown token kind"):
        session.revoke("some")  # type: ignore[arg-type]


def test_bearer_token_never_sent_over_plain_http(session, mock) -> None:
    session.store.save(session.key, make_tokens())
    route = mock.route().respond(200)
    with httpx.Client(auth=session.auth()) as http:
        for url in ("http://mb.test/ws/2/tag", "http://127.0.0.1:8080/x", "http://localhost/x"):
            with pytest.raises(_errors.InsecureTransportError, match="plain HTTP"):
                http.get(url)
    assert route.call_count == 0


def test_async_userinfo_and_refresh(session, mock) -> None:
    session.store.save(session.key, make_tokens(expires_in=-1))
    mock.post("/oauth2/token").mock(
        side_effect=[httpx.Response(200, json=token_json(f"access-{n}")) for n in (1, 2)]
    )
    mock.get("/oauth2/userinfo").respond(200, json={"sub": "alice"})

    async def run():
        info = await session.auserinfo()
        again = await session.arefresh()
        return info, again

    info, again = asyncio.run(run())
    assert info == {"sub": "alice"} and again.access_token == "access-2"
    assert session.store.load(session.key).access_token == "access-2"
