"""The server's flow in a real browser: log in, consent, code to localhost and out-of-band."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import ClassVar
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from tests.support.browser import chromium_page

from .flows import authorize_params, exchange, works

pytestmark = pytest.mark.browser


class _Callback(BaseHTTPRequestHandler):
    received: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        type(self).received.append(self.path)
        body = b"<!DOCTYPE html><title>done</title><p>Received.</p>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def _log_in_and_approve(page, world) -> None:
    page.fill("#username", world.username)
    page.fill("#password", world.password)
    page.click("#login-form button[type=submit]")
    page.wait_for_selector("#consent-form")
    assert "Desktop app" in page.inner_text("#application-name")
    page.click("#consent-form button[value=approve]")


def test_login_consent_and_code_to_a_localhost_redirect(world, http):
    listener = HTTPServer(("127.0.0.1", 0), _Callback)
    threading.Thread(target=listener.serve_forever, daemon=True).start()
    port = listener.server_address[1]
    params = authorize_params(
        world.installed, scope="profile tag", redirect_uri=f"http://localhost:{port}/callback"
    )
    query = urlencode(params)
    try:
        with chromium_page() as page:
            page.goto(world.server.base_url + "/oauth2/authorize?" + query)
            assert "/login" in page.url
            _log_in_and_approve(page, world)
            page.wait_for_url(f"http://localhost:{port}/callback?*")
    finally:
        listener.shutdown()
    callback = next(p for p in _Callback.received if p.startswith("/callback?"))  # not favicon
    answer = {k: v[0] for k, v in parse_qs(urlsplit(callback).query).items()}
    assert answer["state"] == params["state"]
    tokens = exchange(
        http, world.installed, answer["code"], redirect_uri=params["redirect_uri"]
    ).json()
    assert works(http, tokens["access_token"])


def test_out_of_band_page_shows_the_code(world, http):
    params = authorize_params(world.installed, redirect_uri="urn:ietf:wg:oauth:2.0:oob")
    query = urlencode(params)
    with chromium_page() as page:
        page.goto(world.server.base_url + "/oauth2/authorize?" + query)
        _log_in_and_approve(page, world)
        page.wait_for_selector("#oob-code")
        code = page.inner_text("#oob-code").strip()
    response = exchange(http, world.installed, code, redirect_uri=params["redirect_uri"])
    assert response.status_code == 200, response.text


def test_revoking_by_keyboard_asks_first(world, user, http):
    """ "Revoke access" opens a confirmation that names the application; the
    keyboard alone gets through it, and the redirect after it lands on the notice."""
    from .flows import token_set

    tokens = token_set(user, http, world.installed, scope="profile submit_barcode")
    with chromium_page() as page:
        page.goto(world.server.base_url + "/login?returnto=/account/authorized")
        page.fill("#username", world.username)
        page.fill("#password", world.password)
        page.keyboard.press("Enter")
        page.wait_for_url("**/account/authorized")
        row = page.locator("tr.authorization", has_text="profile submit_barcode").filter(
            has_text="Desktop app"
        )
        summary = row.get_by_role("group").locator("summary")
        confirm = row.get_by_role("button", name="Yes, revoke access of Desktop app")
        assert not confirm.is_visible()
        summary.focus()
        page.keyboard.press("Enter")
        assert "Desktop app will lose this access" in row.inner_text()
        confirm.focus()
        page.keyboard.press("Enter")
        page.wait_for_url("**/account/authorized?revoked=1")
        assert "Access revoked." in page.inner_text("#notice")
    assert not works(http, tokens["access_token"])
