"""Attacks through the service's own pages: clickjacking, session fixation, cookies and
caching, reflected and stored markup, other users' objects. CSRF: test_csrf.py; open redirect
after login: test_login_redirects.py."""

from __future__ import annotations

import secrets
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest

from steps.http.html import soup
from tests.support.user_agent import UserAgent, find_form

from .helpers import World, authorize_params, exchange, query_of, session_csrf, works

# --- clickjacking -------------------------------------------------------------------------------

PAGES = [
    ("GET", "/"),
    ("GET", "/login"),
    ("GET", "/login?returnto=/account/authorized"),
    ("GET", "/account/authorized"),
    ("GET", "/account/applications"),
    ("GET", "/user/alice"),
    ("GET", "/user/nobody-here"),
    ("GET", "/oauth2/oob?code=abc&state=x"),
    ("GET", "/oauth2/oob"),
    ("GET", "/oauth2/authorize"),
    ("GET", "/oauth2/authorize?client_id=unknown&redirect_uri=x"),
    ("GET", "/no/such/page"),
    ("GET", "/static/site.css"),
    ("POST", "/oauth2/token"),
    ("POST", "/oauth2/revoke"),
    ("GET", "/oauth2/userinfo"),
    ("POST", "/login"),
    ("POST", "/logout"),
    ("POST", "/account/applications"),
    ("PUT", "/oauth2/token"),
]


def _assert_unframeable(answer: httpx.Response, what: str) -> None:
    assert answer.headers.get("x-frame-options", "").upper() == "DENY", what
    csp = answer.headers.get("content-security-policy", "")
    directives = {d.strip().split(" ", 1)[0]: d.strip() for d in csp.split(";") if d.strip()}
    assert directives.get("frame-ancestors") == "frame-ancestors 'none'", (what, csp)


@pytest.mark.rule("AUTHZ-FRAMING")
@pytest.mark.parametrize("logged_in", [False, True])
def test_every_page_refuses_to_be_framed(site: World, logged_in: bool):
    browser = site.agent()
    try:
        if logged_in:
            browser.log_in()
        for method, path in PAGES:
            _assert_unframeable(browser.http.request(method, path), f"{method} {path}")
        consent = browser.open_authorize(authorize_params(site.web))
        _assert_unframeable(consent, "consent page")
        if logged_in:
            assert 'id="consent-form"' in consent.text
    finally:
        browser.close()


# --- sessions, cookies, caching, reflected and stored markup -------------------------------------


def test_login_replaces_the_session_no_fixation(site: World, agent: UserAgent):
    """A session id planted before login (session fixation) must not become a logged-in one.

    No session exists before login (no row per anonymous visit): the planted id is one the
    attacker made up, or one of their own earlier sessions.
    """
    planted = secrets.token_urlsafe(24)
    host = site.server.base_url.removeprefix("https://").rsplit(":", 1)[0]
    agent.http.cookies.set("__Host-mb-session", planted, domain=host, path="/")
    assert agent.http.get("/login").status_code == 200
    agent.log_in()
    assert agent.http.cookies["__Host-mb-session"] != planted
    with site.http() as attacker:
        attacker.cookies.set("__Host-mb-session", planted)
        answer = attacker.get("/account/authorized")
        assert answer.status_code == 303 and answer.headers["location"].startswith("/login")


def test_session_cookie_attributes(site: World, agent: UserAgent):
    answer = agent.http.get("/login")
    cookie = answer.headers["set-cookie"]
    attributes = {part.strip().split("=")[0].lower() for part in cookie.split(";")}
    assert cookie.startswith("__Host-")  # host-only, Secure, Path=/ (no subdomain can set it)
    assert {"secure", "httponly", "samesite", "path"} <= attributes
    assert "domain" not in attributes
    assert "samesite=none" not in cookie.lower()


def test_pages_with_secrets_are_not_cached_or_referred(site: World, victim: UserAgent):
    """Codes and client secrets on pages must not stay in caches or leak through Referer."""
    page = victim.http.get("/account/applications").text
    csrf = find_form(page, "register-form").csrf_token
    registered = victim.http.post(
        "/account/applications",
        data={
            "csrf_token": csrf,
            "name": "Cached?",
            "type": "public",
            "redirect_uri": "http://localhost/cb",
        },
    )
    assert 'id="new-client-secret"' in registered.text
    consent = victim.open_authorize(authorize_params(site.web))
    for answer in (registered, consent, victim.http.get("/oauth2/oob?code=abc")):
        assert "no-store" in answer.headers.get("cache-control", "")
        assert answer.headers.get("referrer-policy") == "no-referrer"


XSS = '"><script>alert(1)</script><img src=x onerror=alert(1)>'


def test_reflected_values_are_escaped(site: World, victim: UserAgent):
    pages = [
        victim.http.get("/oauth2/oob", params={"code": XSS, "state": XSS}),
        victim.http.get("/login", params={"returnto": "/" + XSS}),
        victim.http.get(f"/user/{XSS}"),
        victim.open_authorize(authorize_params(site.web, state=XSS)),
        victim.http.get("/oauth2/authorize", params={"client_id": XSS, "redirect_uri": XSS}),
    ]
    for answer in pages:
        assert "<script>" not in answer.text
        assert "<img src=x" not in answer.text


def test_stored_application_name_is_escaped_on_the_consent_page(site: World, victim: UserAgent):
    page = victim.http.get("/account/applications").text
    csrf = find_form(page, "register-form").csrf_token
    victim.http.post(
        "/account/applications",
        data={
            "csrf_token": csrf,
            "name": XSS,
            "type": "public",
            "redirect_uri": "http://localhost/callback",
        },
    )
    listing = victim.http.get("/account/applications").text
    assert "<script>" not in listing and "<img src=x" not in listing
    ids = [code.get_text() for code in soup(listing).select("code.client-id")]
    params = {
        "response_type": "code",
        "client_id": ids[-1],
        "redirect_uri": "http://localhost:5555/callback",
        "scope": "profile",
    }
    consent = victim.open_authorize(params)
    assert 'id="consent-form"' in consent.text
    assert "<script>" not in consent.text and "<img src=x" not in consent.text


@pytest.mark.parametrize(
    "state", ["&code=attacker", "x&code=attacker#frag", "a b+c%26d", "é\u202e", "x" * 500]
)
def test_state_cannot_smuggle_parameters_into_the_redirect(
    site: World, victim: UserAgent, state: str
):
    location = victim.authorize(authorize_params(site.installed, state=state))
    parts = urlsplit(location)
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    assert [name for name, _ in pairs].count("code") == 1
    assert dict(pairs)["state"] == state
    assert parts.fragment == ""
    assert location.startswith(site.installed.redirect_uri + "?")


def test_another_user_cannot_touch_my_applications_or_grants(
    site: World, victim: UserAgent, client: httpx.Client
):
    """Insecure direct object references: a valid session and CSRF token, the wrong owner."""
    app = site.new_app("public")  # owned by alice, the victim
    location = victim.authorize(authorize_params(app, scope="profile"))
    issued = exchange(client, app, query_of(location)["code"]).json()
    site.server.add_user("mallory", "mallory-password-1")
    mallory = site.agent("mallory", "mallory-password-1")
    try:
        mallory.log_in()
        csrf = session_csrf(mallory)
        answer = mallory.http.post(
            "/account/applications/reset-secret",
            data={"csrf_token": csrf, "client_id": app.client_id},
        )
        assert answer.status_code == 404
        assert 'id="new-client-secret"' not in answer.text
        answer = mallory.http.post(
            "/account/authorized/revoke",
            data={"csrf_token": csrf, "client_id": app.client_id, "scope": "profile"},
        )
        assert answer.status_code in (303, 404)
        assert app.client_id not in mallory.http.get("/account/applications").text
        assert app.client_id not in mallory.http.get("/account/authorized").text
    finally:
        mallory.close()
    # Alice's secret and grant are untouched.
    assert works(client, issued["access_token"])
    refreshed = client.post(
        "/oauth2/token",
        data={
            "grant_type": "refresh_token",
            "refresh_token": issued["refresh_token"],
            "client_id": app.client_id,
            "client_secret": app.client_secret,
        },
    )
    assert refreshed.status_code == 200
