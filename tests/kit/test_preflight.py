"""`mb-oauth login` finds a bad setup before the browser, not after."""

from __future__ import annotations

from urllib.parse import urlencode

import httpx
import pytest

from tests.kit.cli_process import cli_env, run_cli
from tests.kit.helpers import query
from tests.kit.test_cli import env, run  # noqa: F401 - the CLI's environment fixture

UNKNOWN_CLIENT_PAGE = (
    "<html><body><header>MusicBrainz</header><main><h1>Error</h1>"
    "<p>No application is registered with this client_id.</p></main></body></html>"
)


def no_url_shown(result) -> bool:
    return "/oauth2/authorize?" not in result.stderr


def test_unknown_client_id_is_found_before_the_browser(env, mock) -> None:  # noqa: F811
    mock["preflight-authorize"].respond(400, html=UNKNOWN_CLIENT_PAGE)
    token = mock.post("/oauth2/token").respond(200, json={})
    result = run("login", "--no-browser")
    assert result.exit_code == 4 and no_url_shown(result)
    assert "does not know the client id" in result.stderr
    assert "No application is registered" in result.stderr and not token.called


def test_a_stopped_server_is_found_before_the_browser(env, mock) -> None:  # noqa: F811
    mock["preflight-authorize"].side_effect = httpx.ConnectError("connection refused")
    result = run("login", "--no-browser")
    assert result.exit_code == 5 and no_url_shown(result)
    assert "cannot reach the service" in result.stderr


def test_a_wrong_secret_is_found_before_the_browser(env, mock) -> None:  # noqa: F811
    mock["preflight-secret"].respond(401, json={"error": "invalid_client"})
    result = run("login", "--no-browser")
    assert result.exit_code == 4 and no_url_shown(result)
    assert "client id or secret" in result.stderr


def test_an_error_redirect_of_the_authorization_page_ends_the_login_at_once(env, mock):  # noqa: F811
    def refuse(request: httpx.Request) -> httpx.Response:
        sent = query(str(request.url))
        back = urlencode({"error": "invalid_scope", "state": sent["state"]})
        return httpx.Response(302, headers={"Location": f"{sent['redirect_uri']}?{back}"})

    mock["preflight-authorize"].side_effect = refuse
    result = run("login", "--no-browser", "--timeout", "600")
    assert result.exit_code == 6 and no_url_shown(result)
    assert "does not know one of the requested scopes" in result.stderr


def test_a_missing_keyring_is_found_before_the_browser(env, mock, monkeypatch) -> None:  # noqa: F811
    monkeypatch.setenv("MB_OAUTH_STORE", "keyring")
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    authorize = mock["preflight-authorize"]
    result = run("login", "--no-browser")
    assert result.exit_code == 7 and no_url_shown(result) and not authorize.called


@pytest.mark.parametrize("problem", ["unknown client id", "unregistered redirect URI"])
def test_against_the_bundled_server(ref_server, tmp_path, problem) -> None:
    if problem == "unknown client id":
        app = dict(ref_server.loopback_app, client_id="no-such-client-id")
        expected, code = "does not know the client id", 4
    else:  # the out-of-band application has no loopback redirect URI
        app, expected, code = ref_server.oob_app, "redirect_uri does not match", 4
    result = run_cli(cli_env(ref_server, app, tmp_path), "login", "--no-browser")
    assert result.returncode == code, result.stderr
    assert expected in result.stderr and "/oauth2/authorize?" not in result.stderr
    assert "Traceback" not in result.stderr
