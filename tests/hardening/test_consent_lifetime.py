"""A standing consent (approval_prompt=auto) ends with the access it gave.

Revoked by the user on the authorized-applications page, revoked by the application, or with
every token expired: the next `auto` request shows the consent page again. While it stands,
the authorized-applications page lists it, so the user can always end it.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import httpx
import pytest

from reference_server.grants import ACCESS_TOKEN_LIFETIME
from tests.support.user_agent import UserAgent

from .helpers import (
    App,
    World,
    authorize_params,
    exchange,
    logged_in,
    query_of,
    revoke,
    session_csrf,
)


@pytest.fixture
def browser(site: World) -> Iterator[UserAgent]:
    yield from logged_in(site)


def _scope() -> str:
    """A scope set of this test's own: consent is per exact scope set."""
    return "profile " + secrets.choice(["tag", "rating", "collection", "submit_isrc"])


def _asks_consent(browser: UserAgent, app: App, scope: str) -> bool:
    answer = browser.open_authorize(authorize_params(app, scope=scope, force=False))
    if answer.status_code == 200 and 'id="consent-form"' in answer.text:
        return True
    assert answer.status_code == 302 and "code" in query_of(answer.headers["location"])
    return False


def _consent_and_exchange(http: httpx.Client, browser: UserAgent, app: App, scope: str) -> dict:
    location = browser.authorize(authorize_params(app, scope=scope, force=False))
    answer = exchange(http, app, query_of(location)["code"])
    assert answer.status_code == 200, answer.text
    assert not _asks_consent(browser, app, scope), "the control: consent stands"
    return answer.json()


def _listed(browser: UserAgent, app_name_part: str) -> bool:
    return app_name_part in browser.http.get("/account/authorized").text


def test_revoked_by_the_application_ends_the_consent(site: World, client, browser):
    app, scope = site.new_app(), _scope()
    tokens = _consent_and_exchange(client, browser, app, scope)
    assert revoke(client, app, tokens["access_token"]).status_code == 200
    assert _asks_consent(browser, app, scope)


def test_expired_tokens_end_the_consent(site: World, client, browser):
    app, scope = site.new_app(), _scope()
    _consent_and_exchange(client, browser, app, scope)
    client.post("/_test/clock", data={"advance": str(ACCESS_TOKEN_LIFETIME + 1)})
    assert _asks_consent(browser, app, scope)


def test_revoked_by_the_user_ends_the_consent_and_the_page_lists_it(site: World, client, browser):
    app, scope = site.new_app(), _scope()
    _consent_and_exchange(client, browser, app, scope)
    page = browser.http.get("/account/authorized").text
    assert app.client_id in page, "a standing consent is listed where the user can end it"
    answer = browser.http.post(
        "/account/authorized/revoke",
        data={"csrf_token": session_csrf(browser), "client_id": app.client_id, "scope": scope},
    )
    assert answer.status_code == 303
    assert app.client_id not in browser.http.get("/account/authorized").text
    assert _asks_consent(browser, app, scope)
