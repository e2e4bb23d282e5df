"""Only safe redirect URLs can be registered, by the CLI or the web form.

https anywhere; plain http only on a loopback host and only for installed (public)
applications; the out-of-band URN for installed applications; ports 1-65535. Every refusal
says why.
"""

from __future__ import annotations

import secrets

import pytest

from reference_server.launcher import ServerError
from steps.http.html import text_of
from tests.support.user_agent import UserAgent, find_form

from .helpers import World

REFUSED = [  # (type, redirect URL, a word the reason must contain)
    ("confidential", "http://evil.example/cb", "https"),
    ("confidential", "http://localhost/cb", "https"),
    ("public", "http://evil.example/cb", "loopback"),
    ("confidential", "https://client.example:65536/cb", "65535"),
    ("confidential", "https://client.example:99999/cb", "65535"),
    ("confidential", "https://client.example:/cb", "empty port"),
    ("public", "http://localhost:/cb", "empty port"),
    ("public", "http://localhost:0/cb", "65535"),
    ("public", "http://127.0.0.1:0/cb", "65535"),
    ("confidential", "urn:ietf:wg:oauth:2.0:oob", "installed"),
]
ACCEPTED = [
    ("confidential", "https://client.example:8443/cb"),
    ("public", "https://app.example/cb"),
    ("public", "http://127.0.0.1:5555/cb"),
    ("public", "http://[::1]/cb"),
    ("public", "urn:ietf:wg:oauth:2.0:oob"),
]


@pytest.fixture(scope="module")
def owner(site: World):
    browser = site.agent()
    browser.log_in()
    yield browser
    browser.close()


def _register(owner: UserAgent, kind: str, uri: str) -> tuple[int, str]:
    csrf = find_form(owner.http.get("/account/applications").text, "register-form").csrf_token
    answer = owner.http.post(
        "/account/applications",
        data={
            "csrf_token": csrf,
            "name": f"reg-{secrets.token_hex(3)}",
            "type": kind,
            "redirect_uri": uri,
        },
    )
    return answer.status_code, text_of(answer.text, "#error-message") or ""


@pytest.mark.parametrize(("kind", "uri", "reason"), REFUSED)
def test_the_web_form_refuses_and_says_why(owner: UserAgent, kind: str, uri: str, reason: str):
    status, message = _register(owner, kind, uri)
    assert status == 400, (uri, status)
    assert reason in message, message


@pytest.mark.parametrize(("kind", "uri"), ACCEPTED)
def test_the_web_form_accepts_safe_urls(owner: UserAgent, kind: str, uri: str):
    assert _register(owner, kind, uri) == (200, "")


@pytest.mark.parametrize(("kind", "uri", "reason"), REFUSED[:4])
def test_the_cli_refuses_and_says_why(site: World, kind: str, uri: str, reason: str):
    with pytest.raises(ServerError) as refused:
        site.server.add_app(site.username, "cli-app", kind, uri)
    assert reason in str(refused.value)
