"""``mb-oauth`` through click's CliRunner: output, prompts on stderr, exit codes."""

from __future__ import annotations

import json
import socket
from urllib.parse import parse_qs

import httpx
import pytest
from click.testing import CliRunner

from client_kit import _cli_exit
from client_kit._cli import cli
from client_kit._storage import FileStore, StoreKey
from tests.kit.helpers import (
    BASE,
    CLIENT_ID,
    CLIENT_SECRET,
    file_bytes,
    make_tokens,
    token_json,
)

KEY = StoreKey(BASE, CLIENT_ID)


@pytest.fixture
def env(tmp_path, monkeypatch):
    values = {
        "MB_OAUTH_SERVICE": BASE,
        "MB_OAUTH_CLIENT_ID": CLIENT_ID,
        "MB_OAUTH_CLIENT_SECRET": CLIENT_SECRET,
        "MB_OAUTH_STORE": f"file:{tmp_path / 'store'}",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "MB_OAUTH_NO_BROWSER": "1",
    }
    for name in ("MB_OAUTH_CONFIG", "MB_OAUTH_CA_BUNDLE", "MB_OAUTH_PORTS", "MB_OAUTH_ACCOUNT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    return values


@pytest.fixture
def store(tmp_path) -> FileStore:
    return FileStore(tmp_path / "store")


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(cli, list(args), input=input, prog_name="mb-oauth")


def test_help_documents_exit_codes() -> None:
    result = run("--help")
    assert result.exit_code == 0
    assert "Exit codes:" in result.output  # the table itself: tests/kit/test_exit_codes.py
    for command in ("login", "logout", "status", "token", "whoami", "refresh", "revoke"):
        assert command in result.output


def test_usage_error_is_2(env) -> None:
    assert run("login", "--timeout", "soon").exit_code == 2
    assert run("frobnicate").exit_code == 2


def test_status_when_not_logged_in(env) -> None:
    result = run("status")
    assert result.exit_code == _cli_exit.EXIT_LOGIN_REQUIRED
    assert "Not logged in" in result.stdout and "mb-oauth login" in result.stdout


def test_status_json_has_no_secrets(env, store) -> None:
    store.save(KEY, make_tokens(scopes=("profile", "tag"), username="alice"))
    result = run("status", "--json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["username"] == "alice" and data["scopes"] == ["profile", "tag"]
    assert data["logged_in"] and data["expires_in"] > 3000 and data["store"].startswith("file ")
    assert "access-token-old" not in result.output and "refresh-token-old" not in result.output
    text = run("status")
    assert "alice" in text.stdout and "profile tag" in text.stdout


def test_token_prints_only_the_token(env, store, mock) -> None:
    store.save(KEY, make_tokens())
    result = run("token")
    assert result.exit_code == 0 and result.stdout == "access-token-old\n"


def test_token_refreshes_when_expired(env, store, mock) -> None:
    store.save(KEY, make_tokens(expires_in=-10))
    route = mock.post("/oauth2/token").respond(200, json=token_json("access-new"))
    result = run("token")
    assert result.exit_code == 0 and result.stdout == "access-new\n"
    assert route.call_count == 1
    assert store.load(KEY).access_token == "access-new"


@pytest.mark.parametrize(
    ("status", "body", "code", "words"),
    [
        (400, {"error": "invalid_grant"}, 3, "mb-oauth login"),
        (401, {"error": "invalid_client"}, 4, "MB_OAUTH_CLIENT_SECRET"),
        (502, None, 5, "try again later"),
    ],
)
def test_token_failures_exit_codes(env, store, mock, status, body, code, words) -> None:
    store.save(KEY, make_tokens(expires_in=-10))
    mock.post("/oauth2/token").respond(status, json=body)
    result = run("token")
    assert result.exit_code == code
    assert result.stdout == "" and words in result.stderr
    if code == _cli_exit.EXIT_LOGIN_REQUIRED:  # the grant is gone: so is the login
        assert store.load(KEY) is None
    else:
        assert store.load(KEY).access_token == "access-token-old"


def test_token_not_logged_in(env) -> None:
    result = run("token")
    assert result.exit_code == 3 and "mb-oauth login" in result.stderr


def test_missing_client_id_is_a_configuration_error(env, monkeypatch) -> None:
    monkeypatch.delenv("MB_OAUTH_CLIENT_ID")
    result = run("token")
    assert result.exit_code == 4 and "MB_OAUTH_CLIENT_ID" in result.stderr


def test_no_keyring_backend_exit_7(env, monkeypatch) -> None:
    monkeypatch.setenv("MB_OAUTH_STORE", "keyring")
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    result = run("status")
    assert result.exit_code == 7
    assert "--store file" in result.stderr


@pytest.fixture
def fixed_state(monkeypatch):
    from types import SimpleNamespace

    import client_kit._authorization as authorization

    monkeypatch.setattr(
        authorization, "secrets", SimpleNamespace(token_urlsafe=lambda n: "fixed-state")
    )
    return "fixed-state"


def test_login_oob_prompts_on_stderr(env, store, mock, fixed_state) -> None:
    token = mock.post("/oauth2/token").respond(
        200, json=token_json("access-1", "refresh-1", scope="profile tag")
    )
    mock.get("/oauth2/userinfo").respond(200, json={"sub": "alice"})
    result = run("login", "--oob", "--scope", "profile,tag", input="THE-CODE\n")
    assert result.exit_code == 0, result.output
    assert "Logged in as alice" in result.stdout
    assert "Paste the code" in result.stderr and "/oauth2/authorize?" in result.stderr
    assert "Paste" not in result.stdout and "authorize?" not in result.stdout
    form = parse_qs(token.calls[0].request.content.decode())
    assert form["code"] == ["THE-CODE"] and form["redirect_uri"] == ["urn:ietf:wg:oauth:2.0:oob"]
    assert store.load(KEY).refresh_token == "refresh-1"


def test_login_no_browser_paste_json(env, store, mock, fixed_state) -> None:
    mock.post("/oauth2/token").respond(200, json=token_json("access-1", "refresh-1"))
    mock.get("/oauth2/userinfo").respond(200, json={"sub": "alice"})
    pasted = f"http://localhost:1/callback?code=C&state={fixed_state}\n"
    result = run("login", "--no-browser", "--json", input=pasted)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["username"] == "alice" and data["scopes"] == ["profile"]


def test_login_denied_exit_6(env, store, mock, fixed_state) -> None:
    pasted = f"http://localhost:1/callback?error=access_denied&state={fixed_state}\n"
    result = run("login", "--no-browser", input=pasted)
    assert result.exit_code == 6
    assert "not granted" in result.stderr and store.load(KEY) is None


def test_login_timeout_exit_6(env, mock) -> None:
    result = run("login", "--no-browser", "--timeout", "0.3", input="")
    assert result.exit_code == 6 and "seconds" in result.stderr


def test_login_busy_port_exit_5(env, mock) -> None:

    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    try:
        port = busy.getsockname()[1]
        result = run("login", "--no-browser", "--port", f"{port}")
    finally:
        busy.close()
    assert result.exit_code == 5 and str(port) in result.stderr and "in use" in result.stderr


def test_metabrainz_without_oob_exit_4(env, monkeypatch) -> None:
    monkeypatch.setenv("MB_OAUTH_SERVICE", "metabrainz")
    result = run("login", "--oob")
    assert result.exit_code == 4 and "out-of-band" in result.stderr


def test_whoami(env, store, mock) -> None:
    store.save(KEY, make_tokens())
    route = mock.get("/oauth2/userinfo").respond(200, json={"sub": "alice", "zoneinfo": "UTC"})
    result = run("whoami")
    assert result.exit_code == 0 and "user: alice" in result.stdout
    assert route.calls[0].request.headers["Authorization"] == "Bearer access-token-old"
    assert json.loads(run("whoami", "--json").stdout)["zoneinfo"] == "UTC"


def test_refresh_command(env, store, mock) -> None:
    store.save(KEY, make_tokens())
    mock.post("/oauth2/token").respond(200, json=token_json("access-2"))
    result = run("refresh", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["has_refresh_token"] is True
    assert store.load(KEY).access_token == "access-2"


def test_revoke_access_only_and_all(env, store, mock) -> None:
    store.save(KEY, make_tokens())
    route = mock.post("/oauth2/revoke").respond(200)
    assert run("revoke").exit_code == 0
    assert [parse_qs(c.request.content.decode())["token"] for c in route.calls] == [
        ["access-token-old"]
    ]
    kept = store.load(KEY)
    assert kept.refresh_token == "refresh-token-old" and kept.is_expired()
    assert run("revoke", "--all").exit_code == 0
    assert store.load(KEY) is None


def test_logout_revokes_then_forgets(env, store, mock) -> None:
    store.save(KEY, make_tokens())
    route = mock.post("/oauth2/revoke").respond(200)
    result = run("logout")
    assert result.exit_code == 0 and "Logged out" in result.stderr
    tokens = [parse_qs(c.request.content.decode())["token"][0] for c in route.calls]
    assert tokens == ["refresh-token-old", "access-token-old"]
    assert store.load(KEY) is None


def test_logout_keeps_tokens_when_server_unreachable(env, store, mock) -> None:
    store.save(KEY, make_tokens())
    mock.post("/oauth2/revoke").mock(side_effect=httpx.ConnectError("down"))
    result = run("logout")
    assert result.exit_code == 5 and "--local-only" in result.stderr
    assert store.load(KEY) is not None
    route = mock.post("/oauth2/revoke").respond(200)
    before = route.call_count
    assert run("logout", "--local-only").exit_code == 0
    assert route.call_count == before and store.load(KEY) is None


def test_debug_logging_masks_tokens(env, store, mock) -> None:
    store.save(KEY, make_tokens(expires_in=-1))
    mock.post("/oauth2/token").respond(200, json=token_json("access-debug-xyz"))
    mock.get("/oauth2/userinfo").respond(200, json={"sub": "alice"})
    result = run("--debug", "whoami")
    assert result.exit_code == 0
    assert "oauth2/token" in result.stderr  # the HTTP traffic is logged...
    assert "access-debug-xyz" not in result.stderr and "refresh-token-old" not in result.stderr


def test_ctrl_c_during_login_exit_6_keeps_the_file(env, store, tmp_path, monkeypatch, mock) -> None:
    """Ctrl-C while waiting for the browser: exit 6, and the stored login is untouched."""
    import client_kit._flow

    store.save(KEY, make_tokens())
    before = file_bytes(tmp_path / "store")

    def interrupted(answers, timeout, **_):
        raise KeyboardInterrupt

    monkeypatch.setattr(client_kit._flow, "wait_for_answer", interrupted)
    result = run("login", "--no-browser")
    assert result.exit_code == 6 and "interrupted" in result.stderr
    assert file_bytes(tmp_path / "store") == before


def test_help_documents_the_keyring_timeout() -> None:
    result = CliRunner().invoke(cli, ["--help"], prog_name="mb-oauth")
    assert result.exit_code == 0
    assert "MB_OAUTH_KEYRING_TIMEOUT" in " ".join(result.output.split())
