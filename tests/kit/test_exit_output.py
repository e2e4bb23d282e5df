"""Exit codes and output of `mb-oauth` (certificates, status, JSON)."""

from __future__ import annotations

import json

import httpx
import pytest

from client_kit._session import Session
from client_kit._storage import FileStore, StoreKey
from tests.kit.cli_process import cli_env, run_cli
from tests.kit.helpers import CLIENT_SECRET, FakeUI, make_tokens, token_json
from tests.kit.test_cli import KEY, env, run, store  # noqa: F401 - fixtures
from tests.kit.test_integration import loopback_browser


def logged_in_env(ref_server, tmp_path) -> dict[str, str]:
    """A real login of alice in the store the CLI will use."""
    app = ref_server.loopback_app
    with Session(ref_server.profile(), app["client_id"], app["client_secret"],
                 store=FileStore(tmp_path / "store"),
                 ui=FakeUI(browser=loopback_browser(ref_server))) as session:  # fmt: skip
        session.login(["profile"])
    return cli_env(ref_server, app, tmp_path)


# -- certificates ----------------------------------------------------------------------------


def test_a_certificate_that_fails_verification_is_a_configuration_error(ref_server, tmp_path):
    environ = cli_env(ref_server, ref_server.loopback_app, tmp_path)
    del environ["MB_OAUTH_CA_BUNDLE"]  # the bundled server's own CA is not in the system store
    result = run_cli(environ, "login", "--no-browser")
    assert result.returncode == 4, result.stderr
    assert "TLS certificate failed verification" in result.stderr
    assert "try again later" not in result.stderr


@pytest.mark.parametrize(
    ("content", "words"),
    [(None, "does not exist"), ("hello, not a certificate\n", "does not hold a PEM certificate")],
)
def test_an_unusable_ca_file_is_a_clear_message(ref_server, tmp_path, content, words) -> None:
    environ = cli_env(ref_server, ref_server.loopback_app, tmp_path)
    ca = tmp_path / "ca.pem"
    if content is not None:
        ca.write_text(content)
    environ["MB_OAUTH_CA_BUNDLE"] = str(ca)
    result = run_cli(environ, "login", "--no-browser")
    assert result.returncode == 4 and f"the CA file {ca} {words}" in result.stderr
    assert "Traceback" not in result.stderr


# -- status ----------------------------------------------------------------------------------


def test_status_after_a_revoke_says_revoked_not_1970(ref_server, tmp_path) -> None:
    environ = logged_in_env(ref_server, tmp_path)
    assert run_cli(environ, "revoke").returncode == 0
    result = run_cli(environ, "status")
    assert result.returncode == 0 and "1970" not in result.stdout
    assert "access:   revoked" in result.stdout
    data = json.loads(run_cli(environ, "status", "--json").stdout)
    assert data["access_token_revoked"] is True and data["expires_at"] == 0


def test_status_after_the_user_revoked_the_app_says_what_it_checked(ref_server, tmp_path):
    environ = logged_in_env(ref_server, tmp_path)
    key = StoreKey(ref_server.profile().base_url, environ["MB_OAUTH_CLIENT_ID"])
    tokens = FileStore(tmp_path / "store").load(key)
    # the user revokes the application's access (what the website's button does)
    with httpx.Client(verify=ref_server.profile().ssl_context()) as http:
        answer = http.post(
            f"{ref_server.base_url}/oauth2/revoke",
            data={
                "token": tokens.refresh_token,
                "client_id": environ["MB_OAUTH_CLIENT_ID"],
                "client_secret": environ["MB_OAUTH_CLIENT_SECRET"],
            },
        )
        assert answer.status_code == 200
    plain = run_cli(environ, "status")
    assert "refresh:  stored; not checked with the service" in plain.stdout
    assert "refresh token: yes" not in plain.stdout
    checked = run_cli(environ, "status", "--check")
    assert checked.returncode == 3, checked.stderr
    assert "the service no longer accepts this login" in checked.stdout


def test_status_shows_the_service_url_once(env, store) -> None:  # noqa: F811
    store.save(KEY, make_tokens(username="alice"))
    first = run("status").stdout.splitlines()[0]
    assert first == "service:  https://mb.test"


# -- JSON --------------------------------------------------------------------------------------


def test_json_errors_are_json(env) -> None:  # noqa: F811
    result = run("whoami", "--json")
    assert result.exit_code == 3
    error = json.loads(result.stdout)["error"]
    assert error["exit_code"] == 3 and error["type"] == "NotLoggedIn"
    assert "not logged in" in error["message"]


def test_expires_at_is_an_integer_in_every_command(env, store, mock) -> None:  # noqa: F811
    mock.post("/oauth2/token").respond(200, json=token_json("a-1", "r-1", scope="profile"))
    mock.get("/oauth2/userinfo").respond(200, json={"sub": "alice"})
    login = json.loads(run("login", "--oob", "--json", input="CODE\n").stdout)
    refreshed = json.loads(run("refresh", "--json").stdout)
    status = json.loads(run("status", "--json").stdout)
    for data in (login, refreshed, status):
        assert isinstance(data["expires_at"], int), data


def test_the_secret_is_not_in_json_errors(env, mock) -> None:  # noqa: F811
    mock["preflight-secret"].respond(401, json={"error": "invalid_client"})
    result = run("login", "--no-browser", "--json")
    assert result.exit_code == 4 and json.loads(result.stdout)["error"]["exit_code"] == 4
    assert CLIENT_SECRET not in result.stdout + result.stderr
