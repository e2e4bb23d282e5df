"""The manual driver's first look at an authorization URL (steps/consent/anonymous.py) stays on
the service's origin: scheme, host and port. A redirect to `http://` on the same host and port
is where the browser would go, never a request the suite makes."""

from __future__ import annotations

from pathlib import Path

from steps.consent.anonymous import AnonymousLook
from steps.consent.base import RedirectResult
from steps.http.layer import HttpLayer
from tests.kit.hostile import Exchange, hostile


def test_a_redirect_to_plain_http_on_the_same_host_and_port_is_not_followed(
    tmp_path: Path,
) -> None:
    with hostile(tmp_path) as server:
        plain = server.base_url.replace("https://", "http://")
        target = f"{plain}/cb?error=invalid_scope&state=s"

        def redirect(exchange: Exchange) -> None:
            exchange.send(f"HTTP/1.1 302 Found\r\nLocation: {target}\r\nContent-Length: 0\r\n\r\n")

        server.behaviours["/oauth2/authorize"] = redirect
        http = HttpLayer(server.ca_file)
        outcome = AnonymousLook(http, server.base_url).outcome(
            server.base_url + "/oauth2/authorize?client_id=x&state=s"
        )
        assert [e.url for e in http.exchanges] == [
            server.base_url + "/oauth2/authorize?client_id=x&state=s"
        ]
        assert isinstance(outcome, RedirectResult) and outcome.url == target
        assert outcome.error == "invalid_scope"
