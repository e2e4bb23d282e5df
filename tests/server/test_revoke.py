"""POST /oauth2/revoke: spec 4.4 and the effects table of section 3."""

from __future__ import annotations

import pytest

from reference_server.credentials import token_key
from steps.http import html

from .flows import database_row, refresh, revoke, token_set, works


def assert_revoked_ok(response) -> None:
    assert response.status_code == 200
    assert response.content == b""
    assert response.headers["content-length"] == "0"


class TestEffects:
    @pytest.mark.rule("REVOKE-ACCESS-KEEPS-REFRESH")
    @pytest.mark.parametrize("client_name", ["installed", "web_offline"])
    def test_access_token_of_offline_grant_only_that_token(self, world, user, http, client_name):
        client = world.installed if client_name == "installed" else world.web
        extra = {"access_type": "offline", "approval_prompt": "force"}
        tokens = token_set(user, http, client, **(extra if client is world.web else {}))
        assert_revoked_ok(revoke(http, client, tokens["access_token"]))
        assert not works(http, tokens["access_token"])
        fresh = refresh(http, client, tokens["refresh_token"])
        assert fresh.status_code == 200
        assert works(http, fresh.json()["access_token"])

    @pytest.mark.rule("REVOKE-REFRESH-WHOLE-GRANT")
    def test_refresh_token_revokes_the_whole_grant(self, world, user, http):
        tokens = token_set(user, http, world.installed)
        assert_revoked_ok(revoke(http, world.installed, tokens["refresh_token"]))
        assert not works(http, tokens["access_token"])
        assert refresh(http, world.installed, tokens["refresh_token"]).status_code == 400

    @pytest.mark.rule("REVOKE-ONLINE-WHOLE-GRANT")
    def test_access_token_of_online_grant_revokes_the_grant(self, world, user, http):
        tokens = token_set(user, http, world.web, approval_prompt="force")
        assert "refresh_token" not in tokens
        assert_revoked_ok(revoke(http, world.web, tokens["access_token"]))
        assert not works(http, tokens["access_token"])
        grant = database_row(
            world,
            "SELECT g.revoked_at FROM grants g JOIN access_tokens t ON t.grant_id = g.id"
            " WHERE t.id = ?",
            token_key(tokens["access_token"]).selector,
        )
        assert grant is not None and grant["revoked_at"] is not None

    @pytest.mark.rule("REVOKE-EMPTY-200", "INFO-REVOKE-HEADERS", "VERSION-REVOCATION")
    def test_a_revocation_answers_200_with_an_empty_body(self, world, user, http):
        """No content type and a zero length: what the observation of its headers records."""
        tokens = token_set(user, http, world.installed)
        response = revoke(http, world.installed, tokens["refresh_token"])
        assert_revoked_ok(response)
        assert "content-type" not in response.headers

    @pytest.mark.rule("REVOKE-INVALID-TOKEN-200")
    def test_unknown_token_is_still_200(self, world, http):
        assert_revoked_ok(revoke(http, world.web, "z" * 32))

    @pytest.mark.rule("REVOKE-OTHER-CLIENT")
    def test_other_clients_tokens_are_untouched(self, world, user, http):
        tokens = token_set(user, http, world.installed)
        for token in (tokens["access_token"], tokens["refresh_token"]):
            assert_revoked_ok(revoke(http, world.other, token))
        assert works(http, tokens["access_token"])
        assert refresh(http, world.installed, tokens["refresh_token"]).status_code == 200

    def test_revoking_twice_is_fine(self, world, user, http):
        tokens = token_set(user, http, world.installed)
        assert_revoked_ok(revoke(http, world.installed, tokens["refresh_token"]))
        assert_revoked_ok(revoke(http, world.installed, tokens["refresh_token"]))


class TestErrors:
    @pytest.mark.rule("REVOKE-REQUIRED-PARAMS")
    @pytest.mark.parametrize("missing", ["token", "client_id", "client_secret"])
    def test_missing_parameters(self, world, http, missing):
        data = {
            "token": "t",
            "client_id": world.web.client_id,
            "client_secret": world.web.client_secret,
        }
        del data[missing]
        response = http.post("/oauth2/revoke", data=data)
        assert response.status_code == 400
        assert response.json()["error"] == "invalid_request"

    @pytest.mark.rule("REVOKE-ERR-INVALID-CLIENT", "AUTH-REVOKE-CLIENT-SECRET")
    def test_bad_client(self, world, user, http):
        tokens = token_set(user, http, world.installed)
        response = http.post(
            "/oauth2/revoke",
            data={
                "token": tokens["refresh_token"],
                "client_id": world.installed.client_id,
                "client_secret": "wrong",
            },
        )
        assert response.status_code == 401
        assert response.json()["error"] == "invalid_client"
        assert works(http, tokens["access_token"])

    @pytest.mark.rule("REVOKE-POST-ONLY")
    def test_only_post(self, http):
        assert http.get("/oauth2/revoke").status_code == 405

    @pytest.mark.rule("REVOKE-NO-QUERY-PARAMS")
    def test_query_string_parameters_are_refused(self, world, http):
        response = http.post(
            "/oauth2/revoke",
            params={
                "token": "t",
                "client_id": world.web.client_id,
                "client_secret": world.web.client_secret,
            },
        )
        assert response.status_code == 400


class TestManualRevocation:
    @pytest.mark.rule("REVOKE-MANUAL")
    def test_user_revokes_on_the_authorized_applications_page(self, world, user, http):
        tokens = token_set(user, http, world.installed, scope="profile submit_isrc")
        page = user.http.get("/account/authorized")
        assert "Desktop app" in page.text
        forms = html.find_forms(page.text, 'form.revoke-form[action="/account/authorized/revoke"]')
        chosen = next(f for f in forms if f.field("scope") == "profile submit_isrc")
        done = user.http.post("/account/authorized/revoke", data=dict(chosen.fields))
        assert done.status_code == 303
        assert refresh(http, world.installed, tokens["refresh_token"]).status_code == 400
        assert not works(http, tokens["access_token"])
        assert 'value="profile submit_isrc"' not in user.http.get("/account/authorized").text

    def test_manual_revocation_needs_the_csrf_token(self, world, user, http):
        tokens = token_set(user, http, world.installed, scope="profile submit_barcode")
        response = user.http.post(
            "/account/authorized/revoke",
            data={
                "client_id": world.installed.client_id,
                "scope": "profile submit_barcode",
                "csrf_token": "forged",
            },
        )
        assert response.status_code == 403
        assert refresh(http, world.installed, tokens["refresh_token"]).status_code == 200
