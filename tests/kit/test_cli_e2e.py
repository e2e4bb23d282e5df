"""``mb-oauth`` as a real process against the bundled server: login, whoami, ..., logout."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from client_kit._storage import FileStore, StoreKey
from client_kit._tokens import TokenSet
from tests.kit.cli_process import LoginProcess, cli_env, headless_env, run_cli
from tests.kit.conftest import PASSWORD
from tests.kit.formdriver import FormDriver, oob_code
from tests.kit.helpers import (
    BASE,
    CLIENT_ID,
    FAKE_KEYRING_ENV,
    file_bytes,
    http_get,
    make_tokens,
)


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
    notes = [stderr]  # the kit page's recipe: a working setup gets no "Note:" on each command

    who = run_cli(env, "whoami", "--json")
    assert who.returncode == 0, who.stderr
    assert json.loads(who.stdout)["email"] == "alice@example.org"

    shown = run_cli(env, "status", "--json")
    status = json.loads(shown.stdout)
    assert status["username"] == "alice" and set(status["scopes"]) == {"profile", "email"}
    notes += [who.stderr, shown.stderr]
    assert not any("Note:" in text for text in notes), notes

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
    """The secret is checked up front, no URL is shown, no grant is made."""
    app = dict(ref_server.oob_app, client_secret="not-the-secret-not-the-secret")
    env = cli_env(ref_server, app, tmp_path)
    result = run_cli(env, "login", "--oob")
    assert result.returncode == 4 and "client id or secret" in result.stderr
    assert "/oauth2/authorize?" not in result.stderr


@pytest.mark.parametrize("mode", ["--no-browser", "--oob", "no flag, no display"])
def test_login_without_a_display(ref_server, tmp_path, mode) -> None:
    oob = mode == "--oob"
    app = ref_server.oob_app if oob else ref_server.loopback_app
    env = headless_env(ref_server, app, tmp_path)
    marker = tmp_path / "browser-was-started"
    args: list[str] = [mode] if mode.startswith("--") else []
    if not args:
        # a browser command that would leave a trace: with no display it must not be run
        script = tmp_path / "fake-browser"
        script.write_text(f"#!/bin/sh\ntouch {marker}\n")
        script.chmod(0o755)
        env["BROWSER"] = str(script)
    login = LoginProcess(env, *args, "--json")
    try:
        url = login.authorization_url()
        answer = FormDriver(ref_server.base_url, ref_server.ca_file, "alice", PASSWORD).authorize(
            url
        )
        # the user pastes what the browser showed: the OOB code, or the redirected URL
        if oob:
            pasted = oob_code(answer)
        else:
            assert isinstance(answer, str) and answer.startswith("http://localhost:")
            pasted = answer
        assert login.process.stdin is not None
        login.process.stdin.write(pasted + "\n")
        login.process.stdin.flush()
        code, stdout, stderr = login.finish()
    finally:
        login.kill()
    assert code == 0, stderr
    assert json.loads(stdout)["username"] == "alice"
    assert "Open this URL in a browser" in stderr and "browser has been opened" not in stderr
    assert not marker.exists()
    stored = list((tmp_path / "store").glob("*.json"))
    assert len(stored) == 1 and TokenSet.from_json(stored[0].read_text()).refresh_token
    who = run_cli(env, "whoami", "--json")
    assert who.returncode == 0, who.stderr
    assert json.loads(who.stdout)["sub"] == "alice"


@pytest.fixture
def stored_cli_login(ref_server, tmp_path):
    """A real ``mb-oauth`` environment whose file store already holds a valid login."""
    env = headless_env(ref_server, ref_server.loopback_app, tmp_path)
    key = StoreKey(ref_server.profile().base_url, ref_server.loopback_app["client_id"])
    FileStore(tmp_path / "store").save(
        key, make_tokens("access-kept-123", "refresh-kept-456", username="alice")
    )
    return env, tmp_path / "store"


@pytest.mark.parametrize("outcome", ["ctrl-c", "timeout", "denied"])
def test_interrupted_cli_login_exit_6_keeps_the_stored_tokens(
    ref_server, stored_cli_login, outcome
) -> None:
    env, directory = stored_cli_login
    before = file_bytes(directory)
    args = ["--no-browser"] + (["--timeout", "1"] if outcome == "timeout" else [])
    login = LoginProcess(env, *args)
    try:
        url = login.authorization_url()
        if outcome == "ctrl-c":
            login.process.send_signal(signal.SIGINT)
        elif outcome == "denied":
            target = FormDriver(
                ref_server.base_url, ref_server.ca_file, "alice", PASSWORD
            ).authorize(url, decision="deny")
            assert isinstance(target, str) and "error=access_denied" in target
            assert http_get(target)[0] == 200
        code, stdout, stderr = login.finish()
    finally:
        login.kill()
    assert code == 6, stderr
    words = {"ctrl-c": "interrupted", "timeout": "seconds", "denied": "not granted"}[outcome]
    assert words in stderr.lower() and stdout == "", stderr
    assert file_bytes(directory) == before
    status = run_cli(env, "status", "--json")
    assert status.returncode == 0 and json.loads(status.stdout)["username"] == "alice"


def keyring_cli_env(tmp_path: Path, backend: str, timeout: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MB_OAUTH_")}
    env.update(
        MB_OAUTH_SERVICE=BASE,
        MB_OAUTH_CLIENT_ID=CLIENT_ID,
        MB_OAUTH_STORE="keyring",
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        PYTHON_KEYRING_BACKEND=f"tests.kit.helpers.{backend}",
        PYTHONPATH=str(Path(__file__).resolve().parents[2]),
        **{FAKE_KEYRING_ENV: "1"},
    )
    if timeout is not None:
        env["MB_OAUTH_KEYRING_TIMEOUT"] = timeout
    return env


@pytest.mark.parametrize(
    ("command", "timeout", "shown"),
    [
        ("status", "1", "1 s"),
        ("token", "1", "1 s"),
        ("logout", "1", "1 s"),
        ("status", None, "5 s"),
    ],
)
def test_cli_hanging_keyring_exit_7(tmp_path, command, timeout, shown) -> None:
    # SleepyKeyring hangs 60 s; run_cli gives up at 60 s: only the kit's timeout passes
    result = run_cli(keyring_cli_env(tmp_path, "SleepyKeyring", timeout), command)
    assert result.returncode == 7, result.stderr
    assert f"the keyring did not answer within {shown}" in result.stderr
    assert "--store file" in result.stderr and "Unlock the keyring" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(("backend", "name"), [("LockedKeyring", "KeyringLocked")])
@pytest.mark.parametrize("command", ["status", "token", "logout"])
def test_cli_failing_keyring_exit_7(tmp_path, backend, name, command) -> None:
    result = run_cli(keyring_cli_env(tmp_path, backend, "5"), command)
    assert result.returncode == 7, result.stderr
    assert name in result.stderr and "--store file" in result.stderr
    assert "Traceback" not in result.stderr
