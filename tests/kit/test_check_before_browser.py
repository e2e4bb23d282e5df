"""Embedded logins check before the browser, as ``mb-oauth login`` does.

With a client id the service does not know, ``Session.login``, ``start_login`` and
``alogin`` fail at once with the error the CLI gives (exit 4), and never open the browser or
announce a URL; ``check=False`` skips the checks.
"""

from __future__ import annotations

import asyncio

import pytest

from client_kit import _cli_exit, _errors
from client_kit._cli_exit import exit_code
from tests.kit.cli_process import cli_env, run_cli
from tests.kit.helpers import GUARD, FakeUI, in_thread
from tests.kit.test_integration import new_session

#: long enough that a login which waits for the browser cannot pass for one that failed
LOGIN_TIMEOUT = 5


def bogus(ref_server) -> dict:
    return dict(ref_server.loopback_app, client_id="no-such-client-id")


def test_login_fails_at_once_with_the_cli_error(ref_server, tmp_path) -> None:
    ui = FakeUI(browser=lambda url: None)
    session = new_session(ref_server, tmp_path, ui=ui, app=bogus(ref_server))
    finished, _, error = in_thread(lambda: session.login(["profile"], timeout=LOGIN_TIMEOUT))
    assert finished and isinstance(error, _errors.ClientRejected), error
    assert exit_code(error) == _cli_exit.EXIT_CONFIGURATION and ui.opened == []
    cli = run_cli(cli_env(ref_server, bogus(ref_server), tmp_path), "login", "--no-browser")
    assert cli.returncode == _cli_exit.EXIT_CONFIGURATION and str(error) in cli.stderr


def test_start_login_reports_failed_before_any_url(ref_server, tmp_path) -> None:
    session = new_session(ref_server, tmp_path, app=bogus(ref_server))
    handle = session.start_login(["profile"], open_browser=False, timeout=LOGIN_TIMEOUT)
    assert handle.wait(GUARD)
    kinds = [event.kind for event in handle.poll()]
    assert kinds == ["failed"], kinds
    with pytest.raises(_errors.ClientRejected, match="does not know the client id"):
        handle.result()


def test_alogin_fails_at_once(ref_server, tmp_path) -> None:
    session = new_session(ref_server, tmp_path, app=bogus(ref_server))
    login = session.alogin(["profile"], open_browser=False, timeout=LOGIN_TIMEOUT)
    with pytest.raises(_errors.ClientRejected):
        asyncio.run(login)


def test_check_false_skips_the_checks(ref_server, tmp_path) -> None:
    session = new_session(ref_server, tmp_path, app=bogus(ref_server))
    handle = session.start_login(["profile"], open_browser=False, timeout=0.5, check=False)
    assert handle.wait(GUARD)
    kinds = [event.kind for event in handle.poll()]
    assert kinds[0] == "authorization_url" and isinstance(handle.error, _errors.LoginTimeout)
