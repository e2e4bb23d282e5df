"""/oauth2/userinfo: spec 4.5 and the bearer-token errors of RFC 6750 3."""

from __future__ import annotations

import pytest

from .flows import revoke, token_set, userinfo


@pytest.fixture
def tokens(world, user, http) -> dict:
    return token_set(user, http, world.installed, scope="profile email")


def asked(http, token: str, way: str):
    """/oauth2/userinfo with the token passed one of the three ways of spec 4.5."""
    if way == "header":
        return userinfo(http, token)
    if way == "query":
        return http.get("/oauth2/userinfo", params={"access_token": token})
    return http.post("/oauth2/userinfo", data={"access_token": token})


WAYS = ["header", "query", "body"]


class TestThreeWaysOfPassingTheToken:
    @pytest.mark.rule("USERINFO-HEADER")
    def test_header(self, http, tokens):
        assert userinfo(http, tokens["access_token"]).json()["sub"] == "alice"

    @pytest.mark.rule("USERINFO-POST-BODY", "VERSION-USERINFO-POST")
    def test_form_body(self, http, tokens):
        response = http.post("/oauth2/userinfo", data={"access_token": tokens["access_token"]})
        assert response.status_code == 200
        assert response.json()["sub"] == "alice"

    @pytest.mark.rule("USERINFO-QUERY")
    def test_query_parameter(self, http, tokens):
        response = http.get("/oauth2/userinfo", params={"access_token": tokens["access_token"]})
        assert response.status_code == 200

    @pytest.mark.rule("USERINFO-ERR-MULTIPLE-METHODS")
    def test_more_than_one_way_is_refused(self, http, tokens):
        token = tokens["access_token"]
        response = http.get(
            "/oauth2/userinfo",
            params={"access_token": token},
            headers={"Authorization": f"Bearer {token}"},
        )
        assert response.status_code == 400
        assert response.json()["error"] == "invalid_request"
        assert 'error="invalid_request"' in response.headers["www-authenticate"]


class TestFields:
    @pytest.mark.rule(
        "SCOPE-PROFILE-GRANTS-PROFILE", "SCOPE-EMAIL-GRANTS-EMAIL", "INFO-USERINFO-FIELDS"
    )
    def test_profile_and_email_fields(self, world, http, tokens):
        body = userinfo(http, tokens["access_token"]).json()
        assert body["sub"] == "alice"
        assert body["profile"] == f"{world.server.base_url}/user/alice"
        assert isinstance(body["metabrainz_user_id"], int)
        assert body["website"] == "https://alice.example"
        assert body["gender"] == "female"
        assert body["zoneinfo"] == "Europe/Berlin"
        assert body["email"] == "alice@example.org"
        assert body["email_verified"] is True

    @pytest.mark.rule("SCOPE-EMAIL-WITHHELD")
    @pytest.mark.parametrize("way", WAYS)
    def test_email_only_with_the_email_scope(self, world, user, http, way):
        plain = token_set(user, http, world.installed, scope="profile")
        body = asked(http, plain["access_token"], way).json()
        assert "email" not in body and "email_verified" not in body
        assert body["sub"] == "alice"

    @pytest.mark.rule("SCOPE-PROFILE-WITHHELD", "USERINFO-ERR-INSUFFICIENT-SCOPE")
    @pytest.mark.parametrize("way", WAYS)
    def test_without_profile_scope_is_insufficient_scope(self, world, user, http, way):
        no_profile = token_set(user, http, world.installed, scope="email tag")
        response = asked(http, no_profile["access_token"], way)
        assert response.status_code == 403
        assert "alice" not in response.text
        assert response.json()["error"] == "insufficient_scope"
        challenge = response.headers["www-authenticate"]
        assert challenge.startswith("Bearer ") and 'error="insufficient_scope"' in challenge


class TestBadTokens:
    @pytest.mark.rule("USERINFO-ERR-NO-TOKEN")
    def test_missing_token(self, http):
        response = http.get("/oauth2/userinfo")
        assert response.status_code == 401
        challenge = response.headers["www-authenticate"]
        assert challenge.startswith("Bearer realm=")
        assert "error=" not in challenge  # RFC 6750 3.1: no error code without a token

    @pytest.mark.rule("USERINFO-ERR-INVALID-TOKEN")
    def test_unknown_token(self, http):
        response = userinfo(http, "q" * 32)
        assert response.status_code == 401
        assert 'error="invalid_token"' in response.headers["www-authenticate"]

    @pytest.mark.rule("LIFETIME-ACCESS-EXPIRES")
    def test_expired_token(self, world, http, tokens):
        world.server.advance_clock(3600)
        response = userinfo(http, tokens["access_token"])
        assert response.status_code == 401
        assert 'error="invalid_token"' in response.headers["www-authenticate"]

    def test_token_valid_just_before_expiry(self, world, http, tokens):
        world.server.advance_clock(3590)
        assert userinfo(http, tokens["access_token"]).status_code == 200

    def test_revoked_token(self, world, http, tokens):
        revoke(http, world.installed, tokens["access_token"])
        response = userinfo(http, tokens["access_token"])
        assert response.status_code == 401
        assert 'error="invalid_token"' in response.headers["www-authenticate"]

    @pytest.mark.rule("AUTH-BEARER-ONLY")
    @pytest.mark.parametrize("scheme", ["MAC", "Token", "Basic"])
    def test_a_valid_token_under_another_scheme_counts_as_no_token(self, http, tokens, scheme):
        token = tokens["access_token"]
        response = http.get("/oauth2/userinfo", headers={"Authorization": f"{scheme} {token}"})
        assert response.status_code == 401
        assert "error=" not in response.headers["www-authenticate"]
        assert userinfo(http, token).status_code == 200  # the same token, as Bearer

    def test_responses_are_not_cached(self, http, tokens):
        assert userinfo(http, tokens["access_token"]).headers["cache-control"] == "no-store"
