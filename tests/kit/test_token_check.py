"""``mb-oauth token --check`` asks the service.

By default ``token`` checks only the local expiry: an access token revoked at the service
is still printed, and a script gets 403 until the hour runs out. ``--check`` asks the
service first (user information), refreshes if the token is refused, and exits 3 when the
login is gone.
"""

from __future__ import annotations

import httpx

from client_kit import _cli_exit
from tests.kit.cli_process import cli_env, run_cli
from tests.kit.helpers import FakeUI
from tests.kit.test_integration import loopback_browser, new_session


def revoke_behind_the_kits_back(ref_server, token: str) -> None:
    app = ref_server.loopback_app
    form = {"token": token, "client_id": app["client_id"], "client_secret": app["client_secret"]}
    with httpx.Client(verify=ref_server.profile().ssl_context()) as http:
        assert http.post(f"{ref_server.base_url}/oauth2/revoke", data=form).status_code == 200


def works(ref_server, token: str) -> bool:
    with httpx.Client(verify=ref_server.profile().ssl_context()) as http:
        answer = http.get(
            ref_server.profile().userinfo_url, headers={"Authorization": f"Bearer {token}"}
        )
    return answer.status_code == 200


def test_token_check_refreshes_a_revoked_token_and_exits_3_once_the_grant_is_gone(
    ref_server, tmp_path
) -> None:
    env = cli_env(ref_server, ref_server.loopback_app, tmp_path)
    env["MB_OAUTH_STORE"] = f"file:{tmp_path / 'tokens'}"  # where new_session keeps them
    ui = FakeUI(browser=loopback_browser(ref_server))
    with new_session(ref_server, tmp_path, ui=ui) as session:
        session.login(["profile"])
        first = session.tokens()
    revoke_behind_the_kits_back(ref_server, first.access_token)

    plain = run_cli(env, "token")  # the default: local expiry only
    assert plain.returncode == 0 and plain.stdout.strip() == first.access_token

    checked = run_cli(env, "token", "--check")
    assert checked.returncode == 0, checked.stderr
    fresh = checked.stdout.strip()
    assert fresh != first.access_token and works(ref_server, fresh)

    revoke_behind_the_kits_back(ref_server, first.refresh_token)  # the whole grant
    gone = run_cli(env, "token", "--check")
    assert gone.returncode == _cli_exit.EXIT_LOGIN_REQUIRED, gone.stderr
    assert gone.stdout == "" and "mb-oauth login" in gone.stderr


def test_token_help_says_what_the_default_checks() -> None:
    from click.testing import CliRunner

    from client_kit._cli import cli

    text = " ".join(CliRunner().invoke(cli, ["token", "--help"]).output.split())
    assert "only the local expiry is checked" in text and "--check" in text
