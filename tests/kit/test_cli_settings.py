"""``mb-oauth`` settings: a profile at another base URL, whose rules apply, visible secrets.

``--service metabrainz --base-url URL`` (and ``base_url`` in the
config file or MB_OAUTH_BASE_URL) aims the MetaBrainz rules at a staging or self-hosted
instance; an address without a profile name is told which rules it gets; a client secret
given as an option (visible in ``ps``) is warned about.
"""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs

import pytest
import respx
from click.testing import CliRunner

from client_kit import _cli_exit
from client_kit._cli import cli
from client_kit._preflight import PROBE_TOKEN
from client_kit._storage import FileStore, StoreKey
from tests.kit.helpers import BASE, CLIENT_ID, CLIENT_SECRET, make_tokens, query, token_json
from tests.kit.test_loopback_stacks import free_port

STAGING = "https://staging.mb.test"


@pytest.fixture
def env(tmp_path, monkeypatch) -> dict[str, str]:
    for name in (
        "MB_OAUTH_SERVICE",
        "MB_OAUTH_BASE_URL",
        "MB_OAUTH_CLIENT_SECRET",
        "MB_OAUTH_CA_BUNDLE",
        "MB_OAUTH_PORTS",
        "MB_OAUTH_ACCOUNT",
    ):
        monkeypatch.delenv(name, raising=False)
    config = tmp_path / "config.toml"
    values = {
        "MB_OAUTH_CONFIG": str(config),
        "MB_OAUTH_CLIENT_ID": CLIENT_ID,
        "MB_OAUTH_STORE": f"file:{tmp_path / 'store'}",
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    return values


def run(*args: str, input: str | None = None, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, list(args), input=input, env=env, prog_name="mb-oauth")


def status(*options: str, env: dict[str, str] | None = None) -> tuple[dict, str]:
    result = run(*options, "status", "--json", env=env)
    assert result.exit_code == _cli_exit.EXIT_LOGIN_REQUIRED, result.output  # not logged in
    return json.loads(result.stdout), result.stderr


# -- 17. a named profile at another base URL ------------------------------------------------


def test_base_url_option_aims_the_metabrainz_profile_elsewhere(env) -> None:
    info, stderr = status("--service", "metabrainz", "--base-url", STAGING)
    assert (info["service"], info["base_url"]) == ("metabrainz", STAGING)
    assert "Note:" not in stderr  # the user named the rules


def test_base_url_from_the_environment(env) -> None:
    info, _ = status(env={"MB_OAUTH_SERVICE": "metabrainz", "MB_OAUTH_BASE_URL": STAGING})
    assert (info["service"], info["base_url"]) == ("metabrainz", STAGING)


@pytest.mark.parametrize(
    "text",
    [
        f'service = "metabrainz"\nbase_url = "{STAGING}"\n',
        f'service = "metabrainz"\n[services.metabrainz]\nbase_url = "{STAGING}"\n',
    ],
)
def test_base_url_in_the_config_file(env, text) -> None:
    Path(env["MB_OAUTH_CONFIG"]).write_text(text)
    info, _ = status()
    assert (info["service"], info["base_url"]) == ("metabrainz", STAGING)


def test_login_at_the_other_url_follows_the_metabrainz_rules(env) -> None:
    with respx.mock(base_url=STAGING, assert_all_called=False) as staging:
        # the checks before the browser go to the other URL too (a known client, and a right
        # secret where one is configured)
        checked = staging.get("/oauth2/authorize").respond(200, html="<p>Log in")
        staging.post("/oauth2/revoke", data__contains={"token": PROBE_TOKEN}).respond(200)
        result = login_at_staging()
    assert checked.called
    urls = [word for word in result.stderr.split() if word.startswith(STAGING)]
    assert urls and urls[0].startswith(f"{STAGING}/oauth2/authorize?"), result.stderr
    assert query(urls[0])["scope"] == "musicbrainz:tag"
    assert result.exit_code == _cli_exit.EXIT_CANCELLED  # nobody answered: timed out


def login_at_staging():
    return run(
        "--service",
        "metabrainz",
        "--base-url",
        STAGING,
        "login",
        "--no-browser",
        "--port",
        str(free_port()),
        "--scope",
        "tag",
        "--timeout",
        "0.3",
        input="",
    )


@pytest.mark.parametrize(
    "options",
    [("--service", BASE), ("--base-url", BASE)],
    ids=["service-url", "base-url-only"],
)
def test_an_address_without_a_profile_name_is_told_the_rules_when_they_matter(env, options) -> None:
    info, stderr = status(*options)
    assert info["base_url"] == BASE
    assert "Note:" not in stderr  # nothing failed that the rules explain
    result = run(*options, "login", "--no-browser", "--scope", "musicbrainz:tag", input="")
    assert result.exit_code == _cli_exit.EXIT_CONFIGURATION, result.output
    assert "unknown scope 'musicbrainz:tag'" in result.stderr
    assert "Note:" in result.stderr and "musicbrainz rules apply" in result.stderr
    assert f"--service metabrainz --base-url {BASE}" in result.stderr


def test_scripts_are_not_told_the_rules_each_time(env, tmp_path) -> None:
    result = run("--service", BASE, "token")
    assert result.exit_code == _cli_exit.EXIT_LOGIN_REQUIRED
    assert "Note:" not in result.stderr


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (("--service", BASE, "--base-url", STAGING), "already a base URL"),
        (("--service", "metabrainz", "--base-url", "http://staging.mb.test"), "https://"),
    ],
)
def test_contradictory_or_plain_http_base_url_is_exit_4(env, options, words) -> None:
    result = run(*options, "status")
    assert result.exit_code == _cli_exit.EXIT_CONFIGURATION
    assert words in result.stderr


# -- 18. a client secret on the command line -----------------------------------------------


def test_client_secret_option_warns_that_ps_shows_it(env) -> None:
    result = run("--service", "musicbrainz", "--client-secret", CLIENT_SECRET, "status")
    assert result.exit_code == _cli_exit.EXIT_LOGIN_REQUIRED  # it still works
    assert "Warning: --client-secret is visible" in result.stderr
    assert "MB_OAUTH_CLIENT_SECRET" in result.stderr and "config file" in result.stderr
    assert CLIENT_SECRET not in result.stderr + result.stdout


def test_client_secret_from_the_environment_is_not_warned_about(env) -> None:
    result = run("--service", "musicbrainz", "status", env={"MB_OAUTH_CLIENT_SECRET": "s"})
    assert result.exit_code == _cli_exit.EXIT_LOGIN_REQUIRED
    assert "Warning" not in result.stderr


def test_settings_from_config_file(env, tmp_path, monkeypatch, mock) -> None:
    """The client id and secret from the config file reach the token endpoint."""
    monkeypatch.setenv("MB_OAUTH_SERVICE", BASE)
    monkeypatch.delenv("MB_OAUTH_CLIENT_ID")
    config = Path(env["MB_OAUTH_CONFIG"])
    config.write_text(f'client_id = "{CLIENT_ID}"\nclient_secret = "from-file"\n')
    FileStore(tmp_path / "store").save(StoreKey(BASE, CLIENT_ID), make_tokens(expires_in=-1))
    route = mock.post("/oauth2/token").respond(200, json=token_json("a2"))
    assert run("token").exit_code == 0
    assert parse_qs(route.calls[0].request.content.decode())["client_secret"] == ["from-file"]


def test_an_answer_another_profile_expects_is_told_the_rules(env, mock, tmp_path) -> None:
    """MetaBrainz's way of saying 'log in again', met under the musicbrainz rules."""
    FileStore(tmp_path / "store").save(StoreKey(BASE, CLIENT_ID), make_tokens(expires_in=-9))
    revoked = {"error": "invalid_request", "error_description": "was already revoked."}
    mock.post("/oauth2/token").respond(400, json=revoked)
    result = run("--service", BASE, "refresh", env={"MB_OAUTH_CLIENT_SECRET": "s"})
    assert result.exit_code == _cli_exit.EXIT_GENERIC
    assert "Note:" in result.stderr and "--service metabrainz" in result.stderr
