"""CSRF on the service's own forms: consent, login, registration, revocation, logout and
secret reset.

Each test sends a form with no token, a wrong one and another session's one (same user,
other browser), and checks both the refusal and that nothing changed on the server.
"""

from __future__ import annotations

import httpx

from tests.support.user_agent import UserAgent, find_form

from .helpers import World, authorize_params, exchange, query_of, session_csrf, works


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
