"""End to end in a real browser: Chromium logs in and approves, the kit's listener gets the code.

Skipped when Chromium or Playwright is missing, unless MB_OAUTH_REQUIRE_BROWSER=1.
"""

from __future__ import annotations

import json

import pytest

from tests.kit.cli_process import LoginProcess, cli_env, run_cli
from tests.kit.conftest import PASSWORD
from tests.support.browser import chromium

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser():
    with chromium() as instance:
        yield instance


def approve_in_browser(browser, url: str, decision: str = "approve") -> str:
    """Log in as alice and press the consent button; returns the final page's text."""
    context = browser.new_context(ignore_https_errors=True)
    try:
        page = context.new_page()
        page.goto(url)
        page.fill("#login-form [name=username]", "alice")
        page.fill("#login-form [name=password]", PASSWORD)
        page.click("#login-form button[type=submit]")
        page.wait_for_selector("#consent-form")
        page.click(f"#consent-form button[name=decision][value={decision}]")
        page.wait_for_url("http://localhost:*/callback*")
        page.wait_for_selector("h1")
        return page.inner_text("body")
    finally:
        context.close()


def test_login_in_chromium_then_whoami(browser, ref_server, tmp_path) -> None:
    env = cli_env(ref_server, ref_server.loopback_app, tmp_path)
    login = LoginProcess(env, "--no-browser", "--scope", "profile,email")
    try:
        text = approve_in_browser(browser, login.authorization_url())
        code, stdout, stderr = login.finish()
    finally:
        login.kill()
    assert "Authorization received" in text
    assert code == 0, stderr
    assert "Logged in as alice" in stdout
    assert list((tmp_path / "store").glob("*.json"))  # the tokens landed in the store
    who = run_cli(env, "whoami", "--json")
    assert who.returncode == 0, who.stderr
    assert json.loads(who.stdout)["sub"] == "alice"


def test_deny_in_chromium(browser, ref_server, tmp_path) -> None:
    env = cli_env(ref_server, ref_server.loopback_app, tmp_path)
    login = LoginProcess(env, "--no-browser")
    try:
        text = approve_in_browser(browser, login.authorization_url(), decision="deny")
        code, _, stderr = login.finish()
    finally:
        login.kill()
    assert "Login failed" in text and "access_denied" in text
    assert code == 6 and "not granted" in stderr
    assert not list((tmp_path / "store").glob("*.json"))
