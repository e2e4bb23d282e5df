"""The consent page and the login page reached from an authorization link: what they tell
the person about the application asking, on the real server over TLS."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from steps.http.html import soup, text_of
from tests.support.user_agent import UserAgent, find_form

from .flows import authorize_params


@pytest.fixture
def logged_in(user: UserAgent) -> UserAgent:
    user.log_in()
    return user


class TestConsentAndLogin:
    def test_consent_page_shows_destination_and_owner(self, world, logged_in):
        params = authorize_params(world.web, approval_prompt="force")
        page = logged_in.open_authorize(params).text
        assert "https://client.example/callback</code>" in page.replace("<wbr>", "")
        assert 'id="destination"' in page
        name = soup(page).select_one("#application-name")
        assert name is not None  # nothing else on the name's line:
        assert name.decode_contents() == '<bdi class="name">Web app</bdi>'
        assert text_of(page, "#application-owner bdi.name") == world.username
        assert soup(page).select_one(f'#owner-profile a[href="/user/{world.username}"]')

    def test_consent_page_of_a_loopback_and_an_oob_application(self, world, logged_in):
        page = logged_in.open_authorize(authorize_params(world.installed)).text
        assert "to the application on this computer" in page
        oob = authorize_params(world.installed, redirect_uri="urn:ietf:wg:oauth:2.0:oob")
        assert "shows you a code to copy" in logged_in.open_authorize(oob).text

    def test_login_from_an_authorization_link_names_the_application(self, world, user):
        params = authorize_params(world.web)
        answer = user.http.get("/oauth2/authorize", params=params)
        login = user.http.get(answer.headers["location"]).text
        assert text_of(login, "#asking-application > strong > bdi.name") == "Web app"
        names = [bdi.get_text() for bdi in soup(login).select("#asking-application bdi.name")]
        assert names == ["Web app", "alice"]
        assert "registered by the account alice" in (text_of(login, "#asking-application") or "")

    def test_login_page_names_only_registered_applications(self, user):
        target = "/oauth2/authorize?" + urlencode({"client_id": "<b>Evil</b>"})
        page = user.http.get("/login", params={"returnto": target}).text
        assert 'id="asking-application"' not in page
        assert "Evil</" not in page and "Evil&lt;" not in page

    def test_an_expired_session_on_the_consent_form_says_so(self, world, logged_in):
        params = authorize_params(world.web, approval_prompt="force")
        consent = logged_in.open_authorize(params)
        form = find_form(consent.text, "consent-form")
        logged_in.http.cookies.delete("__Host-mb-session")  # the session ended meanwhile
        answer = logged_in.http.post(
            form.action, data={"csrf_token": form.csrf_token, "decision": "approve"}
        )
        assert answer.status_code == 303
        assert "why=session-ended" in answer.headers["location"]
        login = logged_in.http.get(answer.headers["location"])
        assert "Your session ended before you answered" in login.text
        assert '<strong><bdi class="name">Web app</bdi></strong>' in login.text
        # Logging in again leads back to the consent page, to answer again: no decision yet.
        back = logged_in.submit_login(login.text)
        assert back.status_code == 303 and back.headers["location"].startswith("/oauth2/authorize")
        assert 'id="consent-form"' in logged_in.http.get(back.headers["location"]).text
