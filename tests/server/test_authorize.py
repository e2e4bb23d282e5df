"""GET /oauth2/authorize: spec 4.1 and 7.1. Desktop redirects and prompts by application type:
test_authorize_prompts.py."""

from __future__ import annotations

import pytest

from tests.support.user_agent import query_of

from .flows import OOB, assert_own_error_page, authorize_params, exchange, obtain_code, pkce_pair


class TestClientAndRedirectChecksComeFirst:
    @pytest.mark.rule("AUTHZ-ERR-BAD-CLIENT")
    def test_unknown_client_is_shown_on_our_page(self, world, user):
        params = authorize_params(world.web, client_id="no-such-client")
        assert_own_error_page(user.open_authorize(params))

    def test_missing_client_id_is_shown_on_our_page(self, world, user):
        params = authorize_params(world.web)
        del params["client_id"]
        assert_own_error_page(user.open_authorize(params))

    @pytest.mark.parametrize(
        "redirect_uri",
        [
            "https://evil.example/callback",
            "https://client.example/callback/../x",
            "https://client.example/Callback",
            "https://client.example/callback?x=1",
            "https://client.example/callback#frag",
            "https://client.example:444/callback",
            "http://client.example/callback",
            "https://CLIENT.example/callback",
            "https://client.example%2fcallback",
            "",
        ],
    )
    @pytest.mark.rule("AUTHZ-ERR-BAD-REDIRECT")
    def test_redirect_uri_must_match_exactly(self, world, user, redirect_uri):
        params = authorize_params(world.web, redirect_uri=redirect_uri)
        assert_own_error_page(user.open_authorize(params))

    def test_missing_redirect_uri_is_shown_on_our_page(self, world, user):
        params = authorize_params(world.web)
        del params["redirect_uri"]
        assert_own_error_page(user.open_authorize(params))

    def test_bad_client_wins_over_other_errors(self, world, user):
        params = authorize_params(world.web, client_id="nope", response_type="token", scope="bogus")
        assert_own_error_page(user.open_authorize(params))

    def test_web_apps_may_not_use_the_desktop_redirects(self, world, user):
        for uri in (OOB, "http://localhost:8080/callback"):
            assert_own_error_page(
                user.open_authorize(authorize_params(world.web, redirect_uri=uri))
            )

    def test_repeated_client_id_is_shown_on_our_page(self, world, user):
        response = user.http.get(
            "/oauth2/authorize?response_type=code&scope=profile"
            f"&client_id={world.web.client_id}&client_id={world.other.client_id}"
            f"&redirect_uri={world.web.redirect_uri}"
        )
        assert_own_error_page(response)


class TestRedirectedErrors:
    def redirected(self, user, params) -> dict[str, str]:
        response = user.open_authorize(params)
        assert response.status_code == 302, response.text
        location = response.headers["location"]
        assert location.startswith(params["redirect_uri"] + "?")
        return query_of(location)

    @pytest.mark.rule("AUTHZ-ERR-UNSUPPORTED-RESPONSE-TYPE", "AUTHZ-STATE-ON-ERROR")
    def test_unsupported_response_type(self, world, user):
        params = authorize_params(world.web, response_type="token")
        answer = self.redirected(user, params)
        assert answer["error"] == "unsupported_response_type"
        assert answer["state"] == params["state"]

    @pytest.mark.rule("AUTHZ-ERR-INVALID-SCOPE", "SCOPE-CASE-SENSITIVE")
    @pytest.mark.parametrize("scope", ["bogus", "profile bogus", "PROFILE", ""])
    def test_invalid_scope(self, world, user, scope):
        params = authorize_params(world.web, scope=scope)
        answer = self.redirected(user, params)
        assert answer["error"] == "invalid_scope"
        assert answer["state"] == params["state"]

    @pytest.mark.parametrize(
        "pkce",
        [
            {"code_challenge_method": "S256"},  # method without a challenge
            {"code_challenge": "a" * 43, "code_challenge_method": "S512"},
            {"code_challenge": "short", "code_challenge_method": "plain"},
            {"code_challenge": "a" * 129},
            {"code_challenge": "a" * 44, "code_challenge_method": "S256"},
            {"code_challenge": "+" * 43, "code_challenge_method": "S256"},
        ],
    )
    @pytest.mark.rule("AUTHZ-ERR-INVALID-REQUEST", "PKCE-BAD-METHOD", "PKCE-CHALLENGE-FORMAT")
    def test_forbidden_pkce_parameters(self, world, user, pkce):
        params = authorize_params(world.web, **pkce)
        answer = self.redirected(user, params)
        assert answer["error"] == "invalid_request"
        assert answer["state"] == params["state"]

    @pytest.mark.rule("AUTHZ-REQUIRED-PARAMS")
    @pytest.mark.parametrize(
        ("missing", "error"), [("response_type", "invalid_request"), ("scope", "invalid_scope")]
    )
    def test_missing_response_type_or_scope(self, world, user, missing, error):
        params = authorize_params(world.web)
        del params[missing]
        answer = self.redirected(user, params)
        assert answer["error"] == error and "code" not in answer

    @pytest.mark.rule("AUTHZ-ERR-ACCESS-DENIED")
    def test_user_refusal_is_access_denied(self, world, user):
        params = authorize_params(world.installed)
        answer = query_of(user.authorize(params, decision="deny"))
        assert answer == {
            "error": "access_denied",
            "state": params["state"],
            "error_description": answer["error_description"],
        }

    def test_state_is_optional(self, world, user):
        params = authorize_params(world.installed)
        del params["state"]
        answer = query_of(user.authorize(params))
        assert "code" in answer and "state" not in answer

    @pytest.mark.rule("AUTHZ-STATE-ECHO")
    def test_state_comes_back_unchanged(self, world, user):
        odd_state = "a b&c=d/é?#%"
        params = authorize_params(world.installed, state=odd_state)
        assert query_of(user.authorize(params))["state"] == odd_state

    def test_repeated_parameter_is_invalid_request(self, world, user):
        response = user.http.get(
            "/oauth2/authorize",
            params=[
                ("response_type", "code"),
                ("client_id", world.web.client_id),
                ("redirect_uri", world.web.redirect_uri),
                ("scope", "profile"),
                ("scope", "email"),
                ("state", "s"),
            ],
        )
        assert response.status_code == 302
        assert query_of(response.headers["location"])["error"] == "invalid_request"


class TestLoginAndConsent:
    @pytest.mark.rule("AUTH-USER-CONSENT")
    def test_no_code_before_the_user_decides(self, world, user):
        page = user.open_authorize(authorize_params(world.installed, scope="profile rating"))
        assert page.status_code == 200 and 'id="consent-form"' in page.text
        assert "location" not in page.headers

    @pytest.mark.rule("AUTHZ-RESPONSE-TYPE-CODE", "CODE-IN-REDIRECT")
    def test_an_approved_request_gets_a_code_in_the_query_of_its_redirect(self, world, user):
        params = authorize_params(world.installed, scope="profile tag")
        location = user.authorize(params)
        assert location.startswith(params["redirect_uri"] + "?")
        assert query_of(location)["code"]

    def test_logged_out_user_logs_in_and_returns_to_the_request(self, world, user):
        params = authorize_params(world.installed, scope="profile tag")
        first = user.http.get("/oauth2/authorize", params=params)
        assert first.status_code == 302
        assert first.headers["location"].startswith("/login?returnto=")
        back = user.submit_login(user.http.get(first.headers["location"]).text)
        assert back.status_code == 303
        consent = user.http.get(back.headers["location"])
        assert 'id="consent-form"' in consent.text
        assert query_of(back.headers["location"]) == params

    @pytest.mark.rule("SCOPE-IDENTIFIERS")
    def test_consent_page_names_the_application_and_scopes_in_words(self, world, user):
        params = authorize_params(
            world.installed, scope="profile email tag rating collection submit_isrc submit_barcode"
        )
        page = user.open_authorize(params).text
        assert "Desktop app" in page
        for words in (
            "public account information",
            "email address",
            "private tags",
            "private ratings",
            "private collections",
            "ISRCs",
            "barcodes",
        ):
            assert words in page

    def test_consent_form_token_is_single_use(self, world, user):
        params = authorize_params(world.installed)
        page = user.open_authorize(params)
        assert user.decide(page, "approve").status_code == 302
        again = user.decide(page, "approve")
        assert again.status_code == 403
        assert "location" not in again.headers

    def test_consent_form_token_is_bound_to_its_request(self, world, user):
        page = user.open_authorize(authorize_params(world.installed, scope="profile"))
        from tests.support.user_agent import find_form

        form = find_form(page.text, "consent-form")
        other = authorize_params(world.installed, scope="profile email")
        response = user.http.post(
            "/oauth2/authorize",
            params=other,
            data={"csrf_token": form.csrf_token, "decision": "approve"},
        )
        assert response.status_code == 403


def test_pkce_challenge_is_accepted(world, user, http):
    verifier, challenge = pkce_pair()
    code = obtain_code(
        user, world.installed, code_challenge=challenge, code_challenge_method="S256"
    )
    assert exchange(http, world.installed, code, code_verifier=verifier).status_code == 200
