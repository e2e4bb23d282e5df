"""Attacks through the service's own pages: CSRF, clickjacking, open redirect after login.

Each CSRF test sends a form with no token, a wrong one and another session's one (same user,
other browser), and checks both the refusal and that nothing changed on the server.
"""

from __future__ import annotations

import html
import re
import secrets
from urllib.parse import parse_qsl, urljoin, urlsplit

import httpx
import pytest

from tests.support.user_agent import UserAgent, find_form

from .helpers import World, authorize_params, exchange, query_of, session_csrf, works


@pytest.fixture
def victim(site: World):
    browser = site.agent()
    browser.log_in()
    yield browser
    browser.close()


@pytest.fixture
def attacker_session(site: World):
    """Another browser of the same user: its CSRF tokens are real, but not the victim's."""
    browser = site.agent()
    browser.log_in()
    yield browser
    browser.close()


def _page_csrf(browser: UserAgent, path: str, form_id: str) -> str:
    return find_form(browser.http.get(path).text, form_id).csrf_token


def _forgeries(attacker: UserAgent, path: str, form_id: str) -> dict[str, str | None]:
    return {
        "missing": None,
        "empty": "",
        "wrong": "not-the-token-0123456789abcdefghij",
        "other session's": _page_csrf(attacker, path, form_id),
    }


def _post(browser: UserAgent, url: str, data: dict[str, str], csrf: str | None, **kw):
    if csrf is not None:
        data = {**data, "csrf_token": csrf}
    return browser.http.post(url, data=data, **kw)


def _refused(answer: httpx.Response) -> None:
    assert answer.status_code == 403, f"{answer.status_code}: {answer.text[:300]}"
    assert "location" not in answer.headers


# --- consent ----------------------------------------------------------------------------------


def test_consent_form_csrf(site: World, victim: UserAgent, attacker_session: UserAgent):
    params = authorize_params(site.web, state="abc")
    page = victim.open_authorize(params)
    form = find_form(page.text, "consent-form")
    other = find_form(attacker_session.open_authorize(params).text, "consent-form")
    # The session-wide token of the page header is not the consent form's token.
    own_csrf = session_csrf(victim)
    codes = site.count("SELECT COUNT(*) FROM codes")
    for name, token in {
        "missing": None,
        "empty": "",
        "wrong": "not-the-token-0123456789abcdefghij",
        "other session's": other.csrf_token,
        "session-wide": own_csrf,
    }.items():
        answer = _post(victim, form.action, {"decision": "approve"}, token)
        assert answer.status_code == 403, (name, answer.status_code)
        assert "location" not in answer.headers, name
    assert site.count("SELECT COUNT(*) FROM codes") == codes
    # The genuine token still works once, and only once.
    answer = _post(victim, form.action, {"decision": "approve"}, form.csrf_token)
    assert answer.status_code == 302 and "code" in query_of(answer.headers["location"])
    _refused(_post(victim, form.action, {"decision": "approve"}, form.csrf_token))


def test_consent_token_is_bound_to_its_request(site: World, victim: UserAgent):
    """A token from a consent page for `profile` cannot approve a request for more scopes."""
    modest = authorize_params(site.web, scope="profile")
    greedy = authorize_params(site.web, scope="profile email collection", offline=True)
    form = find_form(victim.open_authorize(modest).text, "consent-form")
    codes = site.count("SELECT COUNT(*) FROM codes")
    answer = victim.http.post(
        "/oauth2/authorize",
        params=greedy,
        data={"csrf_token": form.csrf_token, "decision": "approve"},
    )
    _refused(answer)
    assert site.count("SELECT COUNT(*) FROM codes") == codes


# --- login ------------------------------------------------------------------------------------


def test_login_form_csrf(site: World, agent: UserAgent, attacker_session: UserAgent):
    agent.http.get("/login")  # the victim's browser has a session, not logged in
    forged = {
        "missing": None,
        "wrong": "not-the-token-0123456789abcdefghij",
        "other session's": session_csrf(attacker_session),
    }
    credentials = {"username": site.username, "password": site.password}
    for name, token in forged.items():
        answer = _post(agent, "/login?returnto=/account/authorized", credentials, token)
        assert answer.status_code == 403, (name, answer.status_code)
        assert "location" not in answer.headers, name
        # Still logged out.
        check = agent.http.get("/account/authorized")
        assert check.status_code == 303 and check.headers["location"].startswith("/login"), name
    # Login CSRF from a page without any of our cookies (SameSite aside).
    with site.http() as bare:
        answer = bare.post("/login", data={**credentials, "csrf_token": "x"})
        assert answer.status_code == 403
        assert bare.get("/account/authorized").status_code == 303  # not logged in


# --- registration, revocation, logout, secret reset --------------------------------------------


def test_registration_form_csrf(site: World, victim: UserAgent, attacker_session: UserAgent):
    apps = site.count("SELECT COUNT(*) FROM applications")
    data = {"name": "Forged app", "type": "public", "redirect_uri": "http://localhost/cb"}
    for name, token in _forgeries(
        attacker_session, "/account/applications", "register-form"
    ).items():
        answer = _post(victim, "/account/applications", data, token)
        assert answer.status_code == 403, (name, answer.status_code)
    assert site.count("SELECT COUNT(*) FROM applications") == apps


def test_revoke_form_csrf(
    site: World, victim: UserAgent, attacker_session: UserAgent, client: httpx.Client
):
    app = site.new_app("public")
    location = victim.authorize(authorize_params(app, scope="profile"))
    issued = exchange(client, app, query_of(location)["code"]).json()
    data = {"client_id": app.client_id, "scope": "profile"}
    forged = {
        "missing": None,
        "wrong": "not-the-token-0123456789abcdefghij",
        "other session's": session_csrf(attacker_session),
    }
    for name, token in forged.items():
        answer = _post(victim, "/account/authorized/revoke", data, token)
        assert answer.status_code == 403, (name, answer.status_code)
        assert works(client, issued["access_token"]), name
    # Control: the genuine form does revoke.
    answer = _post(victim, "/account/authorized/revoke", data, session_csrf(victim))
    assert answer.status_code == 303
    assert not works(client, issued["access_token"])


def test_logout_form_csrf(site: World, victim: UserAgent, attacker_session: UserAgent):
    for token in (None, "wrong-token", session_csrf(attacker_session)):
        _refused(_post(victim, "/logout", {"go": "1"}, token))
        assert victim.http.get("/account/authorized").status_code == 200


def test_secret_reset_form_csrf(
    site: World, victim: UserAgent, attacker_session: UserAgent, client: httpx.Client
):
    app = site.new_app("confidential")
    for token in (None, "wrong-token", session_csrf(attacker_session)):
        _refused(
            _post(victim, "/account/applications/reset-secret", {"client_id": app.client_id}, token)
        )
    # The old secret still authenticates: an unknown token is 200 at the revoke endpoint.
    answer = client.post(
        "/oauth2/revoke",
        data={"token": "x", "client_id": app.client_id, "client_secret": app.client_secret},
    )
    assert answer.status_code == 200


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


# --- open redirect through the login page ------------------------------------------------------

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
    ids = re.findall(r'<code class="client-id">([^<]*)</code>', listing)
    params = {
        "response_type": "code",
        "client_id": html.unescape(ids[-1]),
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
