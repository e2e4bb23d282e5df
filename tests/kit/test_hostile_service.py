"""The kit against a hostile or broken service.

A slow drip must not hold a refresh (and its lock) for ever; a huge answer must be refused
before it is read whole; the service's words must reach the terminal without escape
sequences and at a bounded length; a refused connection names its URL.
"""

from __future__ import annotations

import fcntl
import json
import socket

import pytest

from client_kit import _cli_exit, _errors, profiles
from client_kit._session import Session
from client_kit._storage import FileStore
from tests.kit.helpers import CLIENT_ID, CLIENT_SECRET, in_thread, make_tokens
from tests.kit.hostile import answer, drip, endless, hostile
from tests.kit.test_cli import KEY, env, run  # noqa: F401 - the CLI's environment fixture

#: a short overall deadline for these tests (the default is a minute); the per-read timeout
#: stays at its default (30 s), far above the drip's interval
DEADLINE = 2.0
MB = 1024 * 1024


def expired_session(server, tmp_path, **settings) -> Session:
    profile = profiles.custom(server.base_url, ca_bundle=server.ca_file, **settings)
    session = Session(profile, CLIENT_ID, CLIENT_SECRET, store=FileStore(tmp_path / "tokens"))
    session.store.save(session.key, make_tokens(expires_in=-10))
    return session


def lock_is_free(session: Session) -> bool:
    path = session.store.lock_path(session.key)
    with path.open("ab") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        return True


# -- an overall deadline -----------------------------------------------------------------


@pytest.mark.parametrize("phase", ["body", "head"])
def test_a_slow_drip_is_cut_off_at_the_deadline_and_the_lock_released(tmp_path, phase) -> None:
    with hostile(tmp_path) as server:
        server.behaviours["/oauth2/token"] = drip(0.2, head=phase == "head")
        session = expired_session(server, tmp_path, deadline=DEADLINE)
        finished, _, error = in_thread(session.access_token)
        assert finished, "the refresh is still waiting for the drip"
        assert isinstance(error, _errors.TemporaryFailure), error
        assert f"did not finish answering within {DEADLINE:g} s" in str(error)
        assert f"{server.base_url}/oauth2/token" in str(error)
        assert lock_is_free(session)
        assert session.tokens().refresh_token == "refresh-token-old"  # kept


def test_the_async_path_has_the_deadline_too(tmp_path) -> None:
    import asyncio

    with hostile(tmp_path) as server:
        server.behaviours["/oauth2/token"] = drip(0.2)
        session = expired_session(server, tmp_path, deadline=DEADLINE)
        finished, _, error = in_thread(lambda: asyncio.run(session.aaccess_token()))
        assert finished and isinstance(error, _errors.TemporaryFailure), error


# -- answers of bounded size ------------------------------------------------------------


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "chunked"])
def test_a_400_mb_token_answer_is_refused_without_reading_it(tmp_path, declared) -> None:
    with hostile(tmp_path) as server:
        server.behaviours["/oauth2/token"] = endless(400 * MB, declare_length=declared)
        session = expired_session(server, tmp_path)
        finished, _, error = in_thread(session.access_token)
        assert finished and isinstance(error, _errors.ProtocolError), error
        assert "larger than 64 KB" in str(error) and "the service at https://" in str(error)
        # socket buffers hold a few MB at most: the rest was never sent
        assert server.sent_bytes < 32 * MB, server.sent_bytes
        assert session.tokens().refresh_token == "refresh-token-old"


def test_a_large_answer_of_a_failing_service_is_a_temporary_failure(tmp_path) -> None:
    with hostile(tmp_path) as server:
        server.behaviours["/oauth2/token"] = answer("502 Bad Gateway", b"<p>" * 100_000)
        finished, _, error = in_thread(expired_session(server, tmp_path).access_token)
        assert finished and isinstance(error, _errors.TemporaryFailure), error


def test_a_token_answer_under_the_limit_works(tmp_path) -> None:
    body = json.dumps({"access_token": "a" * 8000, "token_type": "Bearer", "expires_in": 60})
    with hostile(tmp_path) as server:
        server.behaviours["/oauth2/token"] = answer("200 OK", body)
        assert expired_session(server, tmp_path).access_token() == "a" * 8000


# -- the service's words, made safe for a terminal -------------------------------------

ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x1b[H\x9b31m\u202eFAKE\r\nPassword: "
CONTROL = ("\x1b", "\x07", "\x9b", "\u202e", "\r")


def shown_safely(text: str, limit: int = 2500) -> bool:
    return not any(char in text for char in CONTROL) and len(text) < limit


@pytest.mark.parametrize("size", [60_000, 5_000_000])
def test_an_error_description_cannot_drive_the_terminal(env, mock, size) -> None:  # noqa: F811
    """Under the token answer's size limit the description is cut; above, refused."""
    description = ESCAPES + "A" * size
    FileStore(env["MB_OAUTH_STORE"][5:]).save(KEY, make_tokens(expires_in=-10))
    mock.post("/oauth2/token").respond(
        400, json={"error": "invalid_grant\x1b[2J", "error_description": description}
    )
    result = run("refresh")
    assert shown_safely(result.stderr), repr(result.stderr[:300])
    if size < 64 * 1024:
        assert result.exit_code == _cli_exit.EXIT_LOGIN_REQUIRED
        assert "FAKE Password:" in result.stderr and "characters in all" in result.stderr
    else:
        assert result.exit_code == _cli_exit.EXIT_GENERIC and "larger than 64 KB" in result.stderr
        assert "Note:" not in result.stderr  # no profile's rules explain that


def test_user_information_is_shown_safely(env, mock) -> None:  # noqa: F811
    FileStore(env["MB_OAUTH_STORE"][5:]).save(KEY, make_tokens())
    info = {"sub": "alice", "username": "ali\u202ece\x1b[2J", "note\x1b]0;x\x07": ESCAPES * 1000}
    mock.get("/oauth2/userinfo").respond(200, json=info)
    result = run("whoami")
    assert result.exit_code == 0, result.output
    assert shown_safely(result.stdout), repr(result.stdout[:300])
    assert "user: alice" in result.stdout


def test_an_error_redirect_is_shown_safely(session) -> None:
    from client_kit._authorization import check_redirect

    with pytest.raises(_errors.AuthorizationError) as info:
        check_redirect({"error": "access_denied\x1b[2J", "error_description": ESCAPES}, "s")
    assert shown_safely(str(info.value)) and "FAKE" in str(info.value)


# -- a refused connection names its URL, and no CA bundle -----------------------------


def test_a_refused_connection_names_the_url_and_not_the_ca_bundle(tmp_path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    profile = profiles.custom(f"https://127.0.0.1:{port}")
    session = Session(profile, CLIENT_ID, CLIENT_SECRET, store=FileStore(tmp_path / "t"))
    session.store.save(session.key, make_tokens(expires_in=-10))
    with pytest.raises(_errors.TemporaryFailure) as info:
        session.access_token()
    message = str(info.value)
    assert f"https://127.0.0.1:{port}/oauth2/token" in message and "refused" in message
    assert "CA" not in message
