"""What the hardening tests share: OAuth flows and log checks on servers of their own.

The hardening tests run against servers they start themselves (a `World` of
tests/support/world.py, like the session's, but not the session `server`), because they trip
the brute-force guard, move the test clock and kill processes: none of that may disturb the
rule-by-rule tests that share the session server.
"""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
from soak_lib.flows import LOG_PROBLEMS  # tools/ is on the path: see __init__.py
from soak_lib.integrity import CONSISTENCY, integrity_problems

from tests.support.user_agent import UserAgent
from tests.support.world import (
    INSTALLED_REDIRECT,
    LOOPBACK_PORT,
    LOOPBACK_REDIRECT,
    OTHER_REDIRECT,
    WEB_REDIRECT,
    App,
    World,
    log_path,
    make_app,
    provision,
    read_db,
)


def log_problems(text: str) -> list[str]:
    """Lines of a server log that show an unhandled error or a locked database."""
    return [line for line in text.splitlines() if LOG_PROBLEMS.search(line)]


# --- flows ----------------------------------------------------------------------------------


def query_of(location: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def authorize_params(
    app: App,
    *,
    scope: str = "profile",
    state: str | None = None,
    offline: bool = False,
    force: bool = True,
    challenge: str | None = None,
    method: str | None = None,
) -> dict[str, str]:
    params = {
        "response_type": "code",
        "client_id": app.client_id,
        "redirect_uri": app.redirect_uri,
        "scope": scope,
    }
    if state is not None:
        params["state"] = state
    if app.web:
        params["access_type"] = "offline" if offline else "online"
        params["approval_prompt"] = "force" if force else "auto"
    if challenge is not None:
        params["code_challenge"] = challenge
    if method is not None:
        params["code_challenge_method"] = method
    return params


def get_code(agent: UserAgent, app: App, **options: object) -> str:
    """Log in if needed, approve the consent page, and return the code of the redirect."""
    location = agent.authorize(authorize_params(app, **options))  # type: ignore[arg-type]
    params = query_of(location)
    assert "code" in params, f"no code in {location}"
    return params["code"]


def exchange(
    http: httpx.Client,
    app: App,
    code: str,
    *,
    verifier: str | None = None,
    redirect_uri: str | None = None,
) -> httpx.Response:
    data = {
        "grant_type": "authorization_code",
        "code": code,
        "client_id": app.client_id,
        "client_secret": app.client_secret,
        "redirect_uri": redirect_uri or app.redirect_uri,
    }
    if verifier is not None:
        data["code_verifier"] = verifier
    return http.post("/oauth2/token", data=data)


def tokens(http: httpx.Client, agent: UserAgent, app: App, **options: object) -> dict:
    """A full authorization: code, exchange; the token response."""
    answer = exchange(http, app, get_code(agent, app, **options))
    assert answer.status_code == 200, answer.text
    return answer.json()


def refresh(http: httpx.Client, app: App, refresh_token: str) -> httpx.Response:
    return http.post(
        "/oauth2/token",
        data={
            "grant_type": "refresh_token",
            "refresh_token": refresh_token,
            "client_id": app.client_id,
            "client_secret": app.client_secret,
        },
    )


def revoke(http: httpx.Client, app: App, token: str) -> httpx.Response:
    return http.post(
        "/oauth2/revoke",
        data={"token": token, "client_id": app.client_id, "client_secret": app.client_secret},
    )


def userinfo_status(http: httpx.Client, access_token: str) -> int:
    answer = http.get("/oauth2/userinfo", headers={"Authorization": f"Bearer {access_token}"})
    assert answer.status_code in (200, 401), answer.text
    return answer.status_code


def works(http: httpx.Client, access_token: str) -> bool:
    return userinfo_status(http, access_token) == 200


def server_now(http: httpx.Client) -> int:
    return int(http.get("/_test/clock").json()["now"])


def align_to_window(http: httpx.Client, window: int = 60, margin: int = 20) -> None:
    """Move the test clock to the start of a fresh fixed window when little of this one is left.

    The brute-force guard counts failures in fixed windows; a test that makes 20 failures must
    not see the window end half way through.
    """
    now = server_now(http)
    if now % window > window - margin:
        http.post("/_test/clock", data={"advance": str(window - now % window)})


# The database's own consistency checks come from tools/soak_lib/integrity.py (one source for
# the tests and the soak tool); re-exported here for the tests.
__all__ = [
    "CONSISTENCY",
    "INSTALLED_REDIRECT",
    "LOOPBACK_PORT",
    "LOOPBACK_REDIRECT",
    "OTHER_REDIRECT",
    "WEB_REDIRECT",
    "App",
    "World",
    "integrity_problems",
    "log_path",
    "make_app",
    "provision",
    "read_db",
]


def session_csrf(browser: UserAgent) -> str:
    """The session's CSRF token, as the logout form of every logged-in page carries it."""
    page = browser.http.get("/account/authorized").text
    marker = 'name="csrf_token" value="'
    start = page.index(marker) + len(marker)
    return page[start : page.index('"', start)]


def logged_in(site: World) -> Iterator[UserAgent]:
    """A browser of the site's user, logged in for the length of a test."""
    browser = site.agent()
    browser.log_in()
    yield browser
    browser.close()
