"""POST /oauth2/token: spec 4.2, 4.3, 2.3 and the errors of RFC 6749 5.2."""

from __future__ import annotations

import base64
import re

import pytest

from .flows import exchange, obtain_code, pkce_pair, refresh, token_set, userinfo, works

# Split tokens (credentials.py): an 8-byte selector and a 24-byte verifier, base64url.
TOKEN_PATTERN = re.compile(r"^[A-Za-z0-9_-]{43}$")


def assert_error(response, error: str, status: int = 400) -> None:
    assert response.status_code == status, response.text
    assert response.json()["error"] == error
    assert response.json()["error_description"]
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["pragma"] == "no-cache"


class TestCodeExchange:
    def test_success_shape_and_headers(self, world, user, http):
        code = obtain_code(user, world.installed)
        response = exchange(http, world.installed, code)
        assert response.status_code == 200
        body = response.json()
        assert body["token_type"] == "Bearer"
        assert body["expires_in"] == 3600
        assert TOKEN_PATTERN.match(body["access_token"])
        assert TOKEN_PATTERN.match(body["refresh_token"])
        assert response.headers["cache-control"] == "no-store"
        assert response.headers["pragma"] == "no-cache"

    def test_code_is_single_use_and_replay_revokes(self, world, user, http):
        code = obtain_code(user, world.installed)
        first = exchange(http, world.installed, code).json()
        assert works(http, first["access_token"])
        assert_error(exchange(http, world.installed, code), "invalid_grant")
        assert not works(http, first["access_token"])
        assert_error(refresh(http, world.installed, first["refresh_token"]), "invalid_grant")

    def test_code_lives_ten_minutes(self, world, user, http):
        code = obtain_code(user, world.installed)
        world.server.advance_clock(601)
        assert_error(exchange(http, world.installed, code), "invalid_grant")

    def test_code_is_still_good_before_ten_minutes(self, world, user, http):
        code = obtain_code(user, world.installed)
        world.server.advance_clock(590)
        assert exchange(http, world.installed, code).status_code == 200

    def test_code_is_bound_to_its_client(self, world, user, http):
        code = obtain_code(user, world.web)
        foreign = exchange(http, world.other, code, redirect_uri=world.web.redirect_uri)
        assert_error(foreign, "invalid_grant")
        assert exchange(http, world.web, code).status_code == 200  # untouched

    def test_code_is_bound_to_its_redirect_uri(self, world, user, http):
        uri = "http://localhost:5555/callback"
        code = obtain_code(user, world.installed, redirect_uri=uri)
        other = exchange(http, world.installed, code, redirect_uri="http://localhost:5556/callback")
        assert_error(other, "invalid_grant")
        assert exchange(http, world.installed, code, redirect_uri=uri).status_code == 200

    def test_unknown_code(self, world, http):
        assert_error(exchange(http, world.web, "x" * 32), "invalid_grant")

    @pytest.mark.parametrize("missing", ["code", "redirect_uri", "grant_type"])
    def test_missing_parameters(self, world, http, missing):
        data = {
            "grant_type": "authorization_code",
            "code": "c",
            "redirect_uri": "r",
            "client_id": world.web.client_id,
            "client_secret": world.web.client_secret,
        }
        del data[missing]
        assert_error(http.post("/oauth2/token", data=data), "invalid_request")

    def test_unsupported_grant_type(self, world, http):
        data = {
            "grant_type": "password",
            "client_id": world.web.client_id,
            "client_secret": world.web.client_secret,
        }
        assert_error(http.post("/oauth2/token", data=data), "unsupported_grant_type")

    @pytest.mark.parametrize("token_type", ["mac", "MAC", "jwt", ""])
    def test_token_type_other_than_bearer_is_refused(self, world, user, http, token_type):
        code = obtain_code(user, world.installed)
        assert_error(
            exchange(http, world.installed, code, token_type=token_type), "invalid_request"
        )

    def test_token_type_bearer_is_allowed(self, world, user, http):
        code = obtain_code(user, world.installed)
        assert exchange(http, world.installed, code, token_type="bearer").status_code == 200


class TestPkce:
    @pytest.mark.parametrize("method", ["S256", "plain"])
    def test_matching_verifier(self, world, user, http, method):
        verifier, challenge = pkce_pair(method)
        code = obtain_code(
            user, world.installed, code_challenge=challenge, code_challenge_method=method
        )
        assert exchange(http, world.installed, code, code_verifier=verifier).status_code == 200

    def test_wrong_verifier_is_refused_and_keeps_the_code(self, world, user, http):
        verifier, challenge = pkce_pair()
        code = obtain_code(
            user, world.installed, code_challenge=challenge, code_challenge_method="S256"
        )
        wrong = exchange(http, world.installed, code, code_verifier=pkce_pair()[0])
        assert_error(wrong, "invalid_grant")
        assert exchange(http, world.installed, code, code_verifier=verifier).status_code == 200

    def test_missing_verifier_is_refused(self, world, user, http):
        _, challenge = pkce_pair()
        code = obtain_code(
            user, world.installed, code_challenge=challenge, code_challenge_method="S256"
        )
        assert_error(exchange(http, world.installed, code), "invalid_request")

    def test_challenge_itself_is_not_a_verifier_for_s256(self, world, user, http):
        _, challenge = pkce_pair()
        code = obtain_code(
            user, world.installed, code_challenge=challenge, code_challenge_method="S256"
        )
        assert_error(
            exchange(http, world.installed, code, code_verifier=challenge), "invalid_grant"
        )

    def test_default_method_is_plain(self, world, user, http):
        verifier, _ = pkce_pair("plain")
        code = obtain_code(user, world.installed, code_challenge=verifier)
        assert exchange(http, world.installed, code, code_verifier=verifier).status_code == 200

    def test_verifier_for_a_code_without_challenge_is_refused(self, world, user, http):
        code = obtain_code(user, world.installed)
        assert_error(
            exchange(http, world.installed, code, code_verifier=pkce_pair()[0]), "invalid_grant"
        )


class TestClientAuthentication:
    def test_wrong_secret_is_invalid_client_with_challenge(self, world, user, http):
        code = obtain_code(user, world.installed)
        response = exchange(http, world.installed, code, client_secret="wrong")
        assert_error(response, "invalid_client", 401)
        assert response.headers["www-authenticate"].startswith("Basic realm=")

    def test_unknown_client(self, world, http):
        response = exchange(http, world.web, "c", client_id="nobody")
        assert_error(response, "invalid_client", 401)

    def test_missing_secret_is_invalid_request(self, world, http):
        data = {
            "grant_type": "authorization_code",
            "code": "c",
            "redirect_uri": "r",
            "client_id": world.web.client_id,
        }
        assert_error(http.post("/oauth2/token", data=data), "invalid_request")

    def exchange_with_basic(self, world, user, http, **body: str):
        client = world.installed
        basic = base64.b64encode(f"{client.client_id}:{client.client_secret}".encode()).decode()
        data = {
            "grant_type": "authorization_code",
            "code": obtain_code(user, client),
            "redirect_uri": client.redirect_uri,
            **body,
        }
        return http.post("/oauth2/token", headers={"Authorization": f"Basic {basic}"}, data=data)

    def test_http_basic_is_accepted(self, world, user, http):
        response = self.exchange_with_basic(world, user, http)
        assert response.status_code == 200, response.text

    def test_two_authentication_methods_at_once_are_refused(self, world, user, http):
        response = self.exchange_with_basic(
            world,
            user,
            http,
            client_id=world.installed.client_id,
            client_secret=world.installed.client_secret,
        )
        assert_error(response, "invalid_request")


class TestTransportOfParameters:
    def test_parameters_in_the_query_string_are_refused(self, world, user, http):
        code = obtain_code(user, world.installed)
        params = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": world.installed.redirect_uri,
            "client_id": world.installed.client_id,
            "client_secret": world.installed.client_secret,
        }
        response = http.post("/oauth2/token", params=params)
        assert_error(response, "invalid_request")
        assert exchange(http, world.installed, code).status_code == 200  # code not used up

    def test_json_body_is_refused(self, world, http):
        response = http.post("/oauth2/token", json={"grant_type": "refresh_token"})
        assert_error(response, "invalid_request")

    def test_get_is_not_allowed(self, http):
        assert http.get("/oauth2/token").status_code == 405

    def test_repeated_parameter_is_refused(self, world, http):
        body = (
            f"grant_type=refresh_token&grant_type=refresh_token&refresh_token=x"
            f"&client_id={world.web.client_id}&client_secret={world.web.client_secret}"
        )
        response = http.post(
            "/oauth2/token",
            content=body,
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        assert_error(response, "invalid_request")


class TestRefresh:
    def test_refresh_returns_the_same_refresh_token_and_a_new_access_token(self, world, user, http):
        tokens = token_set(user, http, world.installed)
        response = refresh(http, world.installed, tokens["refresh_token"])
        assert response.status_code == 200
        body = response.json()
        assert body["refresh_token"] == tokens["refresh_token"]
        assert body["access_token"] != tokens["access_token"]
        assert body["expires_in"] == 3600 and body["token_type"] == "Bearer"
        assert response.headers["cache-control"] == "no-store"
        assert works(http, body["access_token"])
        assert not works(http, tokens["access_token"])  # only the newest one is valid

    def test_refresh_token_stays_valid_for_many_refreshes(self, world, user, http):
        tokens = token_set(user, http, world.installed)
        for _ in range(3):
            assert refresh(http, world.installed, tokens["refresh_token"]).status_code == 200

    def test_refresh_token_outlives_the_access_token(self, world, user, http):
        tokens = token_set(user, http, world.installed)
        world.server.advance_clock(3601)
        assert not works(http, tokens["access_token"])
        fresh = refresh(http, world.installed, tokens["refresh_token"]).json()
        assert works(http, fresh["access_token"])

    def test_refresh_token_of_another_client_is_refused(self, world, user, http):
        tokens = token_set(user, http, world.installed)
        assert_error(refresh(http, world.other, tokens["refresh_token"]), "invalid_grant")
        assert refresh(http, world.installed, tokens["refresh_token"]).status_code == 200

    def test_unknown_refresh_token(self, world, http):
        assert_error(refresh(http, world.installed, "y" * 32), "invalid_grant")

    def test_narrower_scope_is_allowed_wider_is_not(self, world, user, http):
        tokens = token_set(user, http, world.installed, scope="profile email")
        narrow = refresh(http, world.installed, tokens["refresh_token"], scope="profile")
        assert narrow.status_code == 200
        assert "email" not in userinfo(http, narrow.json()["access_token"]).json()
        wide = refresh(http, world.installed, tokens["refresh_token"], scope="profile tag")
        assert_error(wide, "invalid_scope")

    def test_refresh_token_type_mac_is_refused(self, world, user, http):
        tokens = token_set(user, http, world.installed)
        assert_error(
            refresh(http, world.installed, tokens["refresh_token"], token_type="mac"),
            "invalid_request",
        )
