"""Redirect URI bypasses (RFC 6749 10.6, 10.15; RFC 9700 4.1): never redirect to a stranger.
The matching rule alone, property-based: test_redirect_matching.py.

Every request below has a redirect_uri that is not the registered one (or no usable client):
the server must answer on its own page (400, no Location) and issue nothing, logged in or not.
"""

from __future__ import annotations

import itertools

import httpx
import pytest

from tests.support.user_agent import UserAgent, find_form

from .helpers import World, authorize_params

WEB_VECTORS = [
    "https://evil.example/callback",
    "https://client.example.evil.example/callback",
    "https://evilclient.example/callback",
    "https://client.example:8443/callback",
    "https://client.example:443/callback",
    "http://client.example/callback",
    "https://client.example/Callback",
    "https://client.example/CALLBACK",
    "https://client.example/callback/",
    "https://client.example/callback/extra",
    "https://client.example/callbackx",
    "https://client.example/callback/../evil",
    "https://client.example/evil/../callback",
    "https://client.example/callback/%2e%2e/evil",
    "https://client.example/evil/%2e%2e/callback",
    "https://client.example/callback%2F..%2Fevil",
    "https://client.example/callback/%252e%252e/evil",
    "https://client.example/evil/%252e%252e/callback",
    "https://client.example/%63allback",
    "https://client.example/callback?",
    "https://client.example/callback?x=1",
    "https://client.example/callback?code=attacker-code",
    "https://client.example/callback?state=attacker-state",
    "https://client.example/callback?redirect_uri=https://evil.example/",
    "https://client.example/callback#",
    "https://client.example/callback#fragment",
    "https://client.example/callback#@evil.example",
    "https://client.example@evil.example/callback",
    "https://client.example:443@evil.example/callback",
    "https://user:pass@client.example/callback",
    "https://evil.example\\@client.example/callback",
    "https://evil.example#@client.example/callback",
    "https://evil.example?@client.example/callback",
    "https://evil.example/https://client.example/callback",
    "https://CLIENT.EXAMPLE/callback",
    "https://Client.Example/callback",
    "HTTPS://client.example/callback",
    "https://client.example./callback",
    "https://client.example%2eevil.example/callback",
    "https://clıent.example/callback",  # dotless i
    "https://сlient.example/callback",  # Cyrillic es
    "https://xn--lient-3ve.example/callback",
    "https://client.example\u3002evil.example/callback",  # ideographic full stop
    "javascript:alert(document.domain)//https://client.example/callback",
    "javascript://client.example/callback%0aalert(1)",
    "JaVaScRiPt:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "file:///etc/passwd",
    "ftp://client.example/callback",
    "urn:ietf:wg:oauth:2.0:oob",  # out-of-band is for installed applications only
    "//client.example/callback",
    "client.example/callback",
    "/callback",
    "",
    " https://client.example/callback",
    "https://client.example/callback ",
    "https://client.example/callback\n",
    "https://client.example/callback\r\nLocation: https://evil.example/",
    "https://client.example/callback%00",
    "https://client.example/callback\x00",
    "https://client.example/callback\t",
]

INSTALLED_VECTORS = [
    "http://localhost:80@evil.example/callback",
    "http://localhost@evil.example/callback",
    "http://localhost:4242@evil.example/callback",
    "http://localhost.evil.example/callback",
    "http://localhost.evil.example:4242/callback",
    "http://localhost:4242.evil.example/callback",
    "http://localhostevil.example/callback",
    "http://evil.example/callback",
    "http://evil.example:4242/callback",
    "http://evil.example/http://localhost/callback",
    "http://LOCALHOST:4242/callback",
    "http://LocalHost/callback",
    "http://localhost:4242/Callback",
    "http://localhost:4242/callback/",
    "http://localhost:4242/callback/../evil",
    "http://localhost:4242/evil/../callback",
    "http://localhost:4242/callback/%2e%2e/evil",
    "http://localhost:4242/callback/%252e%252e/evil",
    "http://localhost:4242/callback?code=attacker-code",
    "http://localhost:4242/callback?state=attacker-state",
    "http://localhost:4242/callback?x=1",
    "http://localhost:4242/callback#x",
    "http://localhost:4242/callback#@evil.example",
    "http://localhost:4242/",
    "http://localhost:4242",
    "http://localhost:4242\\@evil.example/callback",
    "http://localhost:4242/callback\\..\\evil",
    "http://localhost:0/callback",
    "http://localhost:65536/callback",
    "http://localhost:99999/callback",
    "http://localhost:-1/callback",
    "http://localhost:+80/callback",
    "http://localhost:/callback",
    "http://localhost:04242/callback",
    "http://localhost:4242 /callback",
    "https://localhost:4242/callback",
    "http://localhost%2eevil.example/callback",
    "http://lоcalhost/callback",  # Cyrillic o
    "javascript:alert(1)//http://localhost/callback",
    "data:text/html,x",
    "urn:ietf:wg:oauth:2.0:oob:auto",
    "urn:ietf:wg:oauth:2.0:oob#x",
    "URN:IETF:WG:OAUTH:2.0:OOB",
    "urn:ietf:wg:oauth:2.0:oob ",
    "",
]


def _assert_own_error_page(answer: httpx.Response) -> None:
    assert answer.status_code == 400, f"{answer.status_code}: {answer.text[:300]}"
    assert "location" not in answer.headers, answer.headers.get("location")
    assert 'id="error-message"' in answer.text


def _codes(site: World) -> int:
    return site.count("SELECT COUNT(*) FROM codes")


@pytest.fixture(scope="module")
def logged_in(site: World):
    """One logged-in browser for the whole module (logging in costs an scrypt hash)."""
    browser = site.agent()
    browser.log_in()
    yield browser
    browser.close()


@pytest.mark.parametrize("vector", WEB_VECTORS)
def test_web_app_redirect_vector_is_refused(site: World, logged_in: UserAgent, vector: str):
    before = _codes(site)
    params = authorize_params(site.web, state="s1")
    params["redirect_uri"] = vector
    _assert_own_error_page(logged_in.http.get("/oauth2/authorize", params=params))
    # The consent form's POST goes through the same check.
    answer = logged_in.http.post(
        "/oauth2/authorize", params=params, data={"decision": "approve", "csrf_token": "x"}
    )
    _assert_own_error_page(answer)
    assert _codes(site) == before


@pytest.mark.parametrize("vector", INSTALLED_VECTORS)
def test_installed_app_redirect_vector_is_refused(site: World, logged_in: UserAgent, vector: str):
    before = _codes(site)
    params = authorize_params(site.installed, state="s1")
    params["redirect_uri"] = vector
    _assert_own_error_page(logged_in.http.get("/oauth2/authorize", params=params))
    assert _codes(site) == before


def test_redirect_vectors_refused_when_logged_out(site: World, agent: UserAgent):
    """Before login too: a bad redirect_uri must not even send the user to the login page."""
    for app, vectors in ((site.web, WEB_VECTORS), (site.installed, INSTALLED_VECTORS)):
        for vector in vectors:
            params = authorize_params(app)
            params["redirect_uri"] = vector
            _assert_own_error_page(agent.http.get("/oauth2/authorize", params=params))


def test_redirect_uri_of_another_registered_client_is_refused(site: World, logged_in: UserAgent):
    params = authorize_params(site.web)
    params["redirect_uri"] = site.other.redirect_uri
    _assert_own_error_page(logged_in.http.get("/oauth2/authorize", params=params))


# --- a bad client combined with every other error ----------------------------------------

BAD_CLIENTS = {
    "missing client_id": lambda site: {"client_id": None},
    "empty client_id": lambda site: {"client_id": ""},
    "unknown client_id": lambda site: {"client_id": "unknown-client-0123456789abcdef"},
    "client_id of another case": lambda site: {"client_id": site.web.client_id.swapcase()},
    "missing redirect_uri": lambda site: {"redirect_uri": None},
    "foreign redirect_uri": lambda site: {"redirect_uri": "https://evil.example/callback"},
    "other client's redirect_uri": lambda site: {"redirect_uri": site.other.redirect_uri},
}
OTHER_ERRORS = {
    "none": {},
    "response_type=token": {"response_type": "token"},
    "no response_type": {"response_type": None},
    "unknown scope": {"scope": "profile everything"},
    "no scope": {"scope": None},
    "method without challenge": {"code_challenge_method": "S256"},
    "bad S256 challenge": {"code_challenge": "short", "code_challenge_method": "S256"},
    "unknown challenge method": {"code_challenge": "a" * 43, "code_challenge_method": "S512"},
    "bad access_type": {"access_type": "forever"},
    "bad approval_prompt": {"approval_prompt": "never"},
}


def _combined(site: World, bad: str, other: str) -> list[tuple[str, str]]:
    values: dict[str, str | None] = dict(authorize_params(site.web, state="st"))
    values.update(BAD_CLIENTS[bad](site))
    values.update(OTHER_ERRORS[other])
    return [(k, v) for k, v in values.items() if v is not None]


@pytest.mark.parametrize("bad", list(BAD_CLIENTS))
def test_bad_client_never_redirects_whatever_else_is_wrong(
    site: World, logged_in: UserAgent, agent: UserAgent, bad: str
):
    for other, browser in itertools.product(OTHER_ERRORS, (logged_in, agent)):
        pairs = _combined(site, bad, other)
        answer = browser.http.get("/oauth2/authorize", params=pairs)
        assert 400 <= answer.status_code < 500, (other, answer.status_code)
        assert "location" not in answer.headers, (other, answer.headers.get("location"))
        # A denial posted to the consent endpoint with the same bad client: no redirect either.
        answer = browser.http.post(
            "/oauth2/authorize", params=pairs, data={"decision": "deny", "csrf_token": "x"}
        )
        assert 400 <= answer.status_code < 500, (other, answer.status_code)
        assert "location" not in answer.headers, (other, answer.headers.get("location"))


@pytest.mark.parametrize("name", ["client_id", "redirect_uri"])
def test_repeated_client_id_or_redirect_uri_never_redirects(
    site: World, logged_in: UserAgent, name: str
):
    """A second value could be the attacker's: neither one is trusted."""
    pairs = list(authorize_params(site.web).items())
    evil = "https://evil.example/callback" if name == "redirect_uri" else site.other.client_id
    for extra in ([(name, evil)], [(name, dict(pairs)[name])]):
        for ordered in (pairs + extra, extra + pairs):
            _assert_own_error_page(logged_in.http.get("/oauth2/authorize", params=ordered))


def test_control_registered_redirect_uris_are_accepted(site: World, logged_in: UserAgent):
    """The vectors above fail for the right reason: the registered URIs themselves work."""
    for app in (site.web, site.installed):
        answer = logged_in.http.get("/oauth2/authorize", params=authorize_params(app))
        assert answer.status_code == 200 and 'id="consent-form"' in answer.text


REGISTRATION_VECTORS = [
    ("public", "javascript:alert(1)"),
    ("public", "http://localhost@evil.example/callback"),
    ("public", "http://localhost:80@evil.example/callback"),
    ("confidential", "https://user:pass@client.example/cb"),
    ("confidential", "https://client.example/cb#fragment"),
    ("confidential", "https://client.example/cb#"),
    ("confidential", "data:text/html,x"),
    ("confidential", "file:///etc/passwd"),
    ("confidential", "urn:ietf:wg:oauth:2.0:oob"),  # out-of-band is for installed apps only
    ("confidential", "//client.example/cb"),
    ("confidential", "https:///cb"),
    ("confidential", "https://client.example/cb with space"),
    ("confidential", "https://client.example/" + "a" * 3000),
    ("confidential", ""),
]


@pytest.mark.parametrize(("kind", "uri"), REGISTRATION_VECTORS)
def test_dangerous_redirect_uris_cannot_be_registered(
    site: World, logged_in: UserAgent, kind: str, uri: str
):
    """Exact matching is only as good as what may be registered (RFC 6749 3.1.2, 9700 4.1)."""
    before = site.count("SELECT COUNT(*) FROM applications")
    page = logged_in.http.get("/account/applications").text
    csrf = find_form(page, "register-form").csrf_token
    answer = logged_in.http.post(
        "/account/applications",
        data={"csrf_token": csrf, "name": "Dubious", "type": kind, "redirect_uri": uri},
    )
    assert answer.status_code == 400, answer.status_code
    assert 'id="new-client-secret"' not in answer.text
    assert site.count("SELECT COUNT(*) FROM applications") == before
