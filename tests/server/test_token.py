"""POST /oauth2/token: spec 4.2, 4.3, 2.3 and the errors of RFC 6749 5.2."""

from __future__ import annotations

import base64
import re

import pytest

from .flows import assert_error, exchange, obtain_code, refresh, token_set, userinfo, works

# Split tokens (credentials.py): an 8-byte selector and a 24-byte verifier, base64url.
TOKEN_PATTERN = re.compile(r"^[A-Za-z0-9_-]{43}$")


class TestCodeExchange:
    @pytest.mark.rule(
        "TOKEN-CODE-EXCHANGE",
        "TOKEN-RESPONSE-ACCESS-TOKEN",
        "TOKEN-RESPONSE-STATUS-200",
        "TOKEN-TYPE-BEARER",
        "TOKEN-EXPIRES-IN-3600",
        "TOKEN-NO-STORE",
        "PKCE-OPTIONAL",
    )
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
        refused = exchange(http, world.installed, code)  # used: refused, and not kept either
        assert refused.status_code == 400
        assert refused.headers["cache-control"] == "no-store"
        assert refused.headers["pragma"] == "no-cache"

    @pytest.mark.rule("INFO-TOKEN-FORMAT", "INFO-TOKEN-TYPE-CASE", "INFO-TOKEN-EXTRA-FIELDS")
    def test_what_the_observations_record_of_this_server(self, world, user, http):
        """Codes and tokens of 43 base64url characters, the token type spelt "Bearer", and
        no fields beyond those of spec 2.3."""
        code = obtain_code(user, world.installed)
        body = exchange(http, world.installed, code).json()
        assert all(TOKEN_PATTERN.match(t) for t in (code, body["access_token"]))
        assert body["token_type"] == "Bearer"
        assert set(body) == {"access_token", "token_type", "expires_in", "refresh_token"}

    @pytest.mark.rule("TOKEN-CODE-SINGLE-USE", "TOKEN-CODE-REPLAY-REVOKES")
    def test_code_is_single_use_and_replay_revokes(self, world, user, http):
        code = obtain_code(user, world.installed)
        first = exchange(http, world.installed, code).json()
        assert works(http, first["access_token"])
        assert_error(exchange(http, world.installed, code), "invalid_grant")
        assert not works(http, first["access_token"])
        assert_error(refresh(http, world.installed, first["refresh_token"]), "invalid_grant")

    @pytest.mark.rule("TOKEN-CODE-LIFETIME")
    def test_code_lives_ten_minutes(self, world, user, http):
        code = obtain_code(user, world.installed)
        world.server.advance_clock(601)
        assert_error(exchange(http, world.installed, code), "invalid_grant")

    def test_code_is_still_good_before_ten_minutes(self, world, user, http):
        code = obtain_code(user, world.installed)
        world.server.advance_clock(590)
        assert exchange(http, world.installed, code).status_code == 200

    @pytest.mark.rule("TOKEN-CROSS-CLIENT-CODE")
    def test_code_is_bound_to_its_client(self, world, user, http):
        code = obtain_code(user, world.web)
        foreign = exchange(http, world.other, code, redirect_uri=world.web.redirect_uri)
        assert_error(foreign, "invalid_grant")
        assert exchange(http, world.web, code).status_code == 200  # untouched

    @pytest.mark.rule("APP-TYPES")
    @pytest.mark.parametrize("kind", ["web", "installed"])
    def test_both_application_types_complete_the_flow(self, world, user, http, kind):
        client = getattr(world, kind)
        response = exchange(http, client, obtain_code(user, client))
        assert response.status_code == 200, response.text
        assert works(http, response.json()["access_token"])

    @pytest.mark.rule("TOKEN-REDIRECT-URI-REGISTERED")
    @pytest.mark.parametrize("kind", ["web", "installed"])
    def test_code_is_exchanged_only_with_the_registered_redirect_uri(self, world, user, http, kind):
        client = getattr(world, kind)
        code = obtain_code(user, client)
        for uri in ("https://evil.example/callback", client.redirect_uri + "x"):
            assert_error(exchange(http, client, code, redirect_uri=uri), "invalid_grant")
        assert exchange(http, client, code).status_code == 200  # the code was not used up

    @pytest.mark.rule("TOKEN-REDIRECT-URI-SAME")
    def test_code_is_bound_to_its_redirect_uri(self, world, user, http):
        uri = "http://localhost:5555/callback"
        code = obtain_code(user, world.installed, redirect_uri=uri)
        other = exchange(http, world.installed, code, redirect_uri="http://localhost:5556/callback")
        assert_error(other, "invalid_grant")
        assert exchange(http, world.installed, code, redirect_uri=uri).status_code == 200

    @pytest.mark.rule("TOKEN-ERR-INVALID-GRANT")
    def test_unknown_code(self, world, http):
        assert_error(exchange(http, world.web, "x" * 32), "invalid_grant")

    @pytest.mark.rule("TOKEN-REQUIRED-PARAMS", "TOKEN-ERR-INVALID-REQUEST")
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

    @pytest.mark.rule("TOKEN-ERR-UNSUPPORTED-GRANT")
    def test_unsupported_grant_type(self, world, http):
        data = {
            "grant_type": "password",
            "client_id": world.web.client_id,
            "client_secret": world.web.client_secret,
        }
        assert_error(http.post("/oauth2/token", data=data), "unsupported_grant_type")

    @pytest.mark.rule("TOKEN-TYPE-PARAM", "VERSION-TOKEN-TYPE-BEARER-ONLY")
    @pytest.mark.parametrize("token_type", ["mac", "MAC", "jwt", ""])
    def test_token_type_other_than_bearer_is_refused(self, world, user, http, token_type):
        code = obtain_code(user, world.installed)
        assert_error(
            exchange(http, world.installed, code, token_type=token_type), "invalid_request"
        )

    def test_token_type_bearer_is_allowed(self, world, user, http):
        code = obtain_code(user, world.installed)
        assert exchange(http, world.installed, code, token_type="bearer").status_code == 200


class TestClientAuthentication:
    @pytest.mark.rule("AUTH-TOKEN-CLIENT-SECRET", "TOKEN-ERR-INVALID-CLIENT")
    def test_wrong_secret_is_invalid_client_with_challenge(self, world, user, http):
        client = world.installed
        code = obtain_code(user, client)
        secret = client.client_secret
        last = "A" if secret[-1] != "A" else "B"
        for wrong in ("wrong", secret[:-1], secret + "x", secret[:-1] + last):
            response = exchange(http, client, code, client_secret=wrong)
            assert_error(response, "invalid_client", 401)
            assert response.headers["www-authenticate"].startswith("Basic realm=")
        assert exchange(http, client, code).status_code == 200  # the code was not used up

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
    @pytest.mark.rule("TOKEN-NO-QUERY-PARAMS")
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
    @pytest.mark.rule("REFRESH-SAME-TOKEN", "REFRESH-NEW-ACCESS-TOKEN")
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

    @pytest.mark.rule("REFRESH-TOKEN-STAYS-VALID")
    def test_refresh_token_stays_valid_for_many_refreshes(self, world, user, http):
        tokens = token_set(user, http, world.installed)
        for _ in range(3):
            assert refresh(http, world.installed, tokens["refresh_token"]).status_code == 200

    @pytest.mark.rule("LIFETIME-REFRESH-PERSISTS")
    def test_refresh_token_outlives_the_access_token(self, world, user, http):
        tokens = token_set(user, http, world.installed)
        world.server.advance_clock(3601)
        assert not works(http, tokens["access_token"])
        fresh = refresh(http, world.installed, tokens["refresh_token"]).json()
        assert works(http, fresh["access_token"])

    @pytest.mark.rule("REFRESH-CROSS-CLIENT")
    def test_refresh_token_of_another_client_is_refused(self, world, user, http):
        tokens = token_set(user, http, world.installed)
        assert_error(refresh(http, world.other, tokens["refresh_token"]), "invalid_grant")
        assert refresh(http, world.installed, tokens["refresh_token"]).status_code == 200

    @pytest.mark.rule("REFRESH-REQUIRED-PARAMS")
    @pytest.mark.parametrize(
        "missing", ["grant_type", "refresh_token", "client_id", "client_secret"]
    )
    def test_a_refresh_without_a_field_is_refused(self, world, user, http, missing):
        client = world.installed
        data = {
            "grant_type": "refresh_token",
            "refresh_token": token_set(user, http, client)["refresh_token"],
            "client_id": client.client_id,
            "client_secret": client.client_secret,
        }
        del data[missing]
        assert_error(http.post("/oauth2/token", data=data), "invalid_request")

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
