"""A refresh token revoked or rotated away means "log in again" (exit 3), and the login is over.

The metabrainz.org provider (Authlib) answers a used or revoked refresh token with 400
``invalid_request`` '"refresh_token" in request was already revoked.' where the spec has
``invalid_grant``. Only the profile that says so, and only that description, count: any
other ``invalid_request`` stays a protocol error (exit 1).
"""

from __future__ import annotations

import asyncio

import httpx
import pytest
from click.testing import CliRunner

from client_kit import _cli_exit, _errors
from client_kit._cli import cli
from client_kit._cli_exit import exit_code
from client_kit._session import Session
from client_kit._storage import FileStore, StoreKey
from tests.kit.helpers import BASE, CLIENT_ID, CLIENT_SECRET, make_tokens

ALREADY_REVOKED = {
    "error": "invalid_request",
    "error_description": '"refresh_token" in request was already revoked.',
}
OTHER_INVALID_REQUEST = {
    "error": "invalid_request",
    "error_description": 'Missing "refresh_token" in request.',
}


def expired_session(profile, store) -> Session:
    session = Session(profile, CLIENT_ID, CLIENT_SECRET, store=store)
    store.save(session.key, make_tokens(expires_in=-10))
    return session


def test_metabrainz_already_revoked_is_login_required(meta_profile, memory_store, mock) -> None:
    mock.post("/oauth2/token").respond(400, json=ALREADY_REVOKED)
    session = expired_session(meta_profile, memory_store)
    with pytest.raises(_errors.RefreshTokenRejected, match="log in again") as info:
        session.access_token()
    assert exit_code(info.value) == _cli_exit.EXIT_LOGIN_REQUIRED
    # the login is over: forgotten, so that status() says so
    assert memory_store.load(session.key) is None and not session.status().logged_in


def test_the_async_path_classifies_it_alike(meta_profile, memory_store, mock) -> None:
    mock.post("/oauth2/token").respond(400, json=ALREADY_REVOKED)
    session = expired_session(meta_profile, memory_store)
    with pytest.raises(_errors.RefreshTokenRejected):
        asyncio.run(session.aaccess_token())


@pytest.mark.parametrize(
    ("profile_name", "body"),
    [
        ("meta_profile", OTHER_INVALID_REQUEST),  # the right profile, another problem
        ("mb_profile", ALREADY_REVOKED),  # a profile that does not say so
    ],
)
def test_other_invalid_requests_stay_protocol_errors(
    request, memory_store, mock, profile_name, body
) -> None:
    mock.post("/oauth2/token").respond(400, json=body)
    session = expired_session(request.getfixturevalue(profile_name), memory_store)
    with pytest.raises(_errors.ProtocolError) as info:
        session.access_token()
    assert exit_code(info.value) == _cli_exit.EXIT_GENERIC


def test_a_code_exchange_answered_so_is_not_a_refresh(meta_profile, memory_store, mock) -> None:
    from client_kit._authorization import build_request

    mock.post("/oauth2/token").respond(400, json=ALREADY_REVOKED)
    session = Session(meta_profile, CLIENT_ID, CLIENT_SECRET, store=memory_store)
    request = build_request(meta_profile, CLIENT_ID, "http://localhost:8000/callback", ["tag"])
    with pytest.raises(_errors.ProtocolError):
        session.complete_login(request, "CODE")


@pytest.mark.parametrize("command", ["token", "refresh", "whoami"])
def test_cli_exit_3_on_a_revoked_grant_at_metabrainz(tmp_path, monkeypatch, mock, command) -> None:
    for name in ("MB_OAUTH_CONFIG", "MB_OAUTH_CA_BUNDLE", "MB_OAUTH_PORTS", "MB_OAUTH_ACCOUNT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    store = FileStore(tmp_path / "store")
    store.save(StoreKey(BASE, CLIENT_ID), make_tokens(expires_in=-10))
    mock.post("/oauth2/token").respond(400, json=ALREADY_REVOKED)
    result = CliRunner().invoke(
        cli,
        [
            "--service",
            "metabrainz",
            "--base-url",
            BASE,
            "--client-id",
            CLIENT_ID,
            "--store",
            f"file:{tmp_path / 'store'}",
            command,
        ],
        env={"MB_OAUTH_CLIENT_SECRET": CLIENT_SECRET},
        prog_name="mb-oauth",
    )
    assert result.exit_code == _cli_exit.EXIT_LOGIN_REQUIRED, result.output
    assert "mb-oauth login" in result.stderr


def test_a_rejected_refresh_token_ends_the_login(session, mock) -> None:
    session.store.save(session.key, make_tokens(expires_in=-5))
    mock.post("/oauth2/token").respond(400, json={"error": "invalid_grant"})
    with pytest.raises(_errors.RefreshTokenRejected) as info:
        session.access_token()
    assert exit_code(info.value) == 3
    assert session.store.load(session.key) is None and not session.status().logged_in


def test_a_rejection_does_not_forget_a_login_saved_meanwhile(session, mock) -> None:
    session.store.save(session.key, make_tokens(expires_in=-5))
    newer = make_tokens("access-of-a-new-login", "refresh-of-a-new-login")

    def rejected_while_someone_logs_in(request):
        session.store.save(session.key, newer)  # another process's login, during the refresh
        return httpx.Response(400, json={"error": "invalid_grant"})

    mock.post("/oauth2/token").mock(side_effect=rejected_while_someone_logs_in)
    with pytest.raises(_errors.RefreshTokenRejected):
        session.refresh()
    assert session.store.load(session.key) == newer
