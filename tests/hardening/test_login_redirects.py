"""Open redirect through the login page: `returnto` leads only to our own site, logged in
or not, whatever its spelling."""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

import httpx

from tests.support.user_agent import UserAgent, find_form

from .helpers import World

RETURNTO_VECTORS = [
    "//evil.example",
    "//evil.example/path",
    "///evil.example",
    "////evil.example",
    "https://evil.example",
    "https://evil.example/account/authorized",
    "http://evil.example",
    "HTTPS://evil.example",
    "https:evil.example",
    "https:/evil.example",
    "/\\evil.example",
    "\\/evil.example",
    "\\\\evil.example",
    "/\\/evil.example",
    "/%5Cevil.example",
    "/%2F%2Fevil.example",
    "%2F%2Fevil.example",
    "/%09/evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r\nLocation: https://evil.example",
    " //evil.example",
    "\x00//evil.example",
    "//evil.example%00",
    "javascript:alert(1)",
    "JavaScript://%0aalert(1)",
    "data:text/html,<script>alert(1)</script>",
    "/login?returnto=//evil.example",
    "evil.example",
    "@evil.example",
    "/@evil.example",
    "//localhost@evil.example",
    "/..//evil.example",
    "/.//evil.example",
    "//evil。example",
    "/\u3000/evil.example",
    "",
]


def _stays_on_site(base_url: str, location: str) -> bool:
    target = urlsplit(urljoin(base_url + "/", location))
    own = urlsplit(base_url)
    return (
        (target.scheme, target.netloc) == (own.scheme, own.netloc)
        and location.startswith("/")
        and not location.startswith("//")
        and "\\" not in location
        and not any(ord(c) < 0x21 for c in location)
    )


def _landing(answer: httpx.Response) -> str:
    assert answer.status_code == 303, f"{answer.status_code}: {answer.text[:200]}"
    return answer.headers["location"]


def test_login_returnto_stays_on_our_site_when_already_logged_in(site: World, victim: UserAgent):
    for vector in RETURNTO_VECTORS:
        location = _landing(victim.http.get("/login", params={"returnto": vector}))
        assert _stays_on_site(site.server.base_url, location), (vector, location)


def test_login_returnto_stays_on_our_site_after_logging_in(site: World):
    """The login POST: one browser per vector, since logging in replaces the session."""
    for vector in RETURNTO_VECTORS[:12]:
        browser = site.agent()
        try:
            page = browser.http.get("/login", params={"returnto": vector})
            form = find_form(page.text, "login-form")
            assert _stays_on_site(site.server.base_url, form.action), (vector, form.action)
            answer = browser.http.post(
                "/login",
                params={"returnto": vector},
                data={
                    "username": site.username,
                    "password": site.password,
                    "csrf_token": form.csrf_token,
                },
            )
            location = _landing(answer)
            assert _stays_on_site(site.server.base_url, location), (vector, location)
        finally:
            browser.close()


def test_control_local_returnto_is_kept(site: World, victim: UserAgent):
    location = _landing(victim.http.get("/login", params={"returnto": "/account/applications"}))
    assert location == "/account/applications"
