"""GET /oauth2/authorize by application type: the desktop application's out-of-band and
loopback redirects, and when a web application is asked for consent again (spec 4.1, 7.1)."""

from __future__ import annotations

import pytest

from steps.http import html
from tests.support.user_agent import query_of

from .flows import OOB, assert_own_error_page, authorize_params, exchange, obtain_code


class TestDesktopRedirects:
    @pytest.mark.rule("DESKTOP-OOB", "CODE-OOB-SHOWN")
    def test_out_of_band_code_lands_on_our_page(self, world, user, http):
        params = authorize_params(world.installed, redirect_uri=OOB)
        location = user.authorize(params)
        assert location.startswith("/oauth2/oob?")
        page = user.http.get(location)
        code = html.text_of(page.text, "code#oob-code")
        assert code
        assert query_of(location)["state"] == params["state"]
        response = exchange(http, world.installed, code, redirect_uri=OOB)
        assert response.status_code == 200, response.text

    def test_out_of_band_errors_are_shown_not_redirected(self, world, user):
        params = authorize_params(world.installed, redirect_uri=OOB, scope="bogus")
        response = user.open_authorize(params)
        assert response.status_code == 400
        assert "invalid_scope" in response.text
        assert "location" not in response.headers

    @pytest.mark.rule("DESKTOP-LOCALHOST-ANY-PORT")
    @pytest.mark.parametrize("port", ["1", "8080", "49152", "65535"])
    def test_localhost_with_any_port(self, world, user, port):
        uri = f"http://localhost:{port}/callback"
        location = user.authorize(authorize_params(world.installed, redirect_uri=uri))
        assert location.startswith(uri + "?code=")

    @pytest.mark.parametrize(
        "uri",
        [
            "http://localhost:8080/other",
            "http://localhost:8080/Callback",
            "http://localhost:8080/callback/",
            "http://localhost:8080/callback?x=1",
            "http://localhost:80@evil.example/callback",
            "http://localhost.evil.example:8080/callback",
            "http://localhost:0/callback",
            "http://localhost:65536/callback",
            "http://localhost:08080/callback",
            "https://localhost:8080/callback",
            "http://LOCALHOST:8080/callback",
            "http://localhost:8080/%63allback",
            "http://127.0.0.1:8080/callback",
        ],
    )
    @pytest.mark.rule("DESKTOP-LOOPBACK-PATH")
    def test_localhost_path_and_the_rest_exact(self, world, user, uri):
        assert_own_error_page(
            user.open_authorize(authorize_params(world.installed, redirect_uri=uri))
        )

    @pytest.mark.rule("TOKEN-REFRESH-INSTALLED")
    def test_installed_apps_always_see_consent_and_get_refresh_tokens(self, world, user, http):
        for _ in range(2):
            params = authorize_params(world.installed, approval_prompt="auto", access_type="online")
            assert 'id="consent-form"' in user.open_authorize(params).text
        code = obtain_code(user, world.installed, access_type="online")
        assert "refresh_token" in exchange(http, world.installed, code).json()


class TestWebApplicationPrompts:
    @pytest.mark.rule(
        "AUTHZ-APPROVAL-AUTO", "AUTHZ-APPROVAL-AUTO-NEW-SCOPES", "TOKEN-REFRESH-OFFLINE"
    )
    def test_consent_once_per_scope_set_with_auto(self, world, user, http):
        scope = "profile rating"
        params = authorize_params(world.other, scope=scope, access_type="offline")
        page = user.open_authorize(params)
        assert 'id="consent-form"' in page.text
        first = query_of(user.decide(page, "approve").headers["location"])
        assert "refresh_token" in exchange(http, world.other, first["code"]).json()
        # Same scope set again: no page, a code at once, and no new refresh token.
        again = user.open_authorize(
            authorize_params(world.other, scope=scope, access_type="offline")
        )
        assert again.status_code == 302
        code = query_of(again.headers["location"])["code"]
        assert "refresh_token" not in exchange(http, world.other, code).json()
        # Another scope set: the page again.
        other = user.open_authorize(authorize_params(world.other, scope="profile"))
        assert 'id="consent-form"' in other.text

    @pytest.mark.rule("AUTHZ-APPROVAL-FORCE")
    def test_force_always_shows_consent(self, world, user, http):
        scope = "profile collection"
        obtain_code(user, world.other, scope)
        params = authorize_params(
            world.other, scope=scope, approval_prompt="force", access_type="offline"
        )
        page = user.open_authorize(params)
        assert 'id="consent-form"' in page.text
        code = query_of(user.decide(page, "approve").headers["location"])["code"]
        assert "refresh_token" in exchange(http, world.other, code).json()

    @pytest.mark.rule("TOKEN-NO-REFRESH-ONLINE")
    def test_online_web_apps_get_no_refresh_token(self, world, user, http):
        code = obtain_code(user, world.web, "profile", approval_prompt="force")
        body = exchange(http, world.web, code).json()
        assert "refresh_token" not in body
        assert body["token_type"] == "Bearer"

    @pytest.mark.parametrize("extra", [{"access_type": "sometimes"}, {"approval_prompt": "never"}])
    def test_unknown_prompt_values_are_invalid_request(self, world, user, extra):
        params = authorize_params(world.web, **extra)
        response = user.open_authorize(params)
        assert query_of(response.headers["location"])["error"] == "invalid_request"
