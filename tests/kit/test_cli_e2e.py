"""``mb-oauth`` as a real process against the bundled server: login, whoami, ..., logout."""

from __future__ import annotations

import json

from tests.kit.cli_process import LoginProcess, cli_env, run_cli
from tests.kit.conftest import PASSWORD
from tests.kit.formdriver import FormDriver
from tests.kit.helpers import http_get


def test_cli_session_from_login_to_logout(ref_server, tmp_path) -> None:
    env = cli_env(ref_server, ref_server.loopback_app, tmp_path)
    login = LoginProcess(env, "--no-browser", "--scope", "profile,email")
    try:
        url = login.authorization_url()
        target = FormDriver(ref_server.base_url, ref_server.ca_file, "alice", PASSWORD).authorize(
            url
        )
        status, page = http_get(target)
        assert status == 200 and "Authorization received" in page
        code, stdout, stderr = login.finish()
    finally:
        login.kill()
    assert code == 0, stderr
    assert "Logged in as alice" in stdout
    assert ref_server.loopback_app["client_secret"] not in stderr + stdout

    who = run_cli(env, "whoami", "--json")
    assert who.returncode == 0, who.stderr
    assert json.loads(who.stdout)["email"] == "alice@example.org"

    status = json.loads(run_cli(env, "status", "--json").stdout)
    assert status["username"] == "alice" and set(status["scopes"]) == {"profile", "email"}

    first = run_cli(env, "token").stdout.strip()
    assert run_cli(env, "refresh").returncode == 0
    second = run_cli(env, "token").stdout.strip()
    assert first and second and first != second

    assert run_cli(env, "revoke").returncode == 0
    assert run_cli(env, "whoami").returncode == 0  # refreshed with the kept refresh token

    out = run_cli(env, "logout")
    assert out.returncode == 0 and "Logged out" in out.stderr
    gone = run_cli(env, "whoami")
    assert gone.returncode == 3 and "mb-oauth login" in gone.stderr


def test_cli_wrong_secret_exit_4_before_the_browser(ref_server, tmp_path) -> None:
    """Issue 12 item 7: the secret is checked up front, no URL is shown, no grant is made."""
    app = dict(ref_server.oob_app, client_secret="not-the-secret-not-the-secret")
    env = cli_env(ref_server, app, tmp_path)
    result = run_cli(env, "login", "--oob")
    assert result.returncode == 4 and "client id or secret" in result.stderr
    assert "/oauth2/authorize?" not in result.stderr
