"""The token endpoint's core (reference_server/oauth/token.py), without HTTP: every rule of
its parameters (spec 4, 4.2, 4.3, 7.2; RFC 6749 3.2, 4.1.3, 5.1, 5.2, 6; RFC 7636 4.5-4.6)
and its dispatch by grant type. (Client authentication: test_core_client_auth.py; over HTTPS,
through the real server: test_token.py.)
"""

from __future__ import annotations

import pytest

from reference_server.errors import ParameterError
from reference_server.oauth import ClientRequest
from reference_server.urlencoded import FORM_TYPE

from .core import Core, error_of, form, json_of, no_store, pkce_pair


class TestWhereParametersCome:
    def test_a_form_body_is_read(self, core: Core) -> None:
        answer = core.token(form(core.exchange_form(core.installed, core.code(core.installed))))
        assert answer.status == 200, answer.body

    def test_the_form_type_may_name_a_charset(self, core: Core) -> None:
        fields = core.exchange_form(core.installed, core.code(core.installed))
        content_type = FORM_TYPE.upper() + "; charset=UTF-8"
        assert core.token(form(fields, content_type=content_type)).status == 200

    @pytest.mark.parametrize("query", ["client_secret=x", "code=abc", "anything"])
    def test_any_query_string_is_refused(self, core: Core, query: str) -> None:
        """Not even a valid body is read then: no secret or code may travel in a URL."""
        code = core.code(core.installed)
        answer = core.token(form(core.exchange_form(core.installed, code), query=query))
        assert error_of(answer) == (400, "invalid_request")
        assert core.token(form(core.exchange_form(core.installed, code))).status == 200

    @pytest.mark.parametrize(
        "content_type", ["application/json", "text/plain", "", "multipart/form-data"]
    )
    def test_another_content_type_is_refused(self, core: Core, content_type: str) -> None:
        fields = core.exchange_form(core.installed, core.code(core.installed))
        answer = core.token(form(fields, content_type=content_type))
        assert error_of(answer) == (400, "invalid_request")

    def test_a_body_that_could_not_be_read_is_refused_with_its_status(self, core: Core) -> None:
        too_large = ParameterError("the request body is too large", status=413)
        answer = core.token(ClientRequest(content_type=FORM_TYPE, body=too_large))
        assert error_of(answer) == (413, "invalid_request")
        assert no_store(answer)

    def test_a_repeated_parameter_is_refused_even_with_the_same_value(self, core: Core) -> None:
        fields = list(core.exchange_form(core.installed, core.code(core.installed)).items())
        answer = core.token(form([*fields, fields[1]]))
        assert error_of(answer) == (400, "invalid_request")
        assert "repeated" in json_of(answer)["error_description"]

    @pytest.mark.parametrize("body", [b"code=%zz", b"code=%C3%28", b"code=\xe9", b"code=a%00b"])
    def test_badly_encoded_parameters_are_refused(self, core: Core, body: bytes) -> None:
        answer = core.token(ClientRequest(content_type=FORM_TYPE, body=body))
        assert error_of(answer) == (400, "invalid_request")


class TestRequiredParameters:
    @pytest.mark.parametrize(
        "missing", ["grant_type", "code", "redirect_uri", "client_id", "client_secret"]
    )
    def test_a_code_exchange_lacking_one_is_refused(self, core: Core, missing: str) -> None:
        code = core.code(core.installed)
        fields = core.exchange_form(core.installed, code)
        del fields[missing]
        answer = core.token(form(fields))
        assert error_of(answer) == (400, "invalid_request")
        assert missing in json_of(answer)["error_description"]
        assert core.token(form(core.exchange_form(core.installed, code))).status == 200

    @pytest.mark.parametrize(
        "missing", ["grant_type", "refresh_token", "client_id", "client_secret"]
    )
    def test_a_refresh_lacking_one_is_refused(self, core: Core, missing: str) -> None:
        fields = core.refresh_form(core.installed, core.tokens(core.installed)["refresh_token"])
        del fields[missing]
        assert error_of(core.token(form(fields))) == (400, "invalid_request")

    @pytest.mark.parametrize("empty", ["grant_type", "code", "redirect_uri", "client_id"])
    def test_an_empty_value_is_a_missing_one(self, core: Core, empty: str) -> None:
        fields = {**core.exchange_form(core.installed, core.code(core.installed)), empty: ""}
        assert error_of(core.token(form(fields))) == (400, "invalid_request")

    def test_an_empty_secret_is_a_wrong_one(self, core: Core) -> None:
        fields = core.exchange_form(core.installed, core.code(core.installed), client_secret="")
        assert error_of(core.token(form(fields))) == (401, "invalid_client")


class TestTokenType:
    @pytest.mark.parametrize("token_type", ["bearer", "Bearer", "BEARER"])
    def test_bearer_is_allowed(self, core: Core, token_type: str) -> None:
        fields = core.exchange_form(core.installed, core.code(core.installed))
        assert core.token(form({**fields, "token_type": token_type})).status == 200

    @pytest.mark.parametrize("token_type", ["mac", "", "bearer "])
    def test_anything_else_is_refused_for_both_grants(self, core: Core, token_type: str) -> None:
        tokens = core.tokens(core.installed)
        code_fields = core.exchange_form(core.installed, core.code(core.installed))
        refresh_fields = core.refresh_form(core.installed, tokens["refresh_token"])
        for fields in (code_fields, refresh_fields):
            answer = core.token(form({**fields, "token_type": token_type}))
            assert error_of(answer) == (400, "invalid_request")


class TestGrantTypes:
    @pytest.mark.parametrize(
        "grant_type", ["password", "client_credentials", "Authorization_Code", "implicit"]
    )
    def test_other_grant_types_are_unsupported(self, core: Core, grant_type: str) -> None:
        fields = core.exchange_form(core.installed, core.code(core.installed))
        answer = core.token(form({**fields, "grant_type": grant_type}))
        assert error_of(answer) == (400, "unsupported_grant_type")

    def test_a_code_exchange_answers_the_fields_of_spec_2_3(self, core: Core) -> None:
        answer = core.token(form(core.exchange_form(core.installed, core.code(core.installed))))
        body = json_of(answer)
        assert answer.status == 200
        assert answer.header("content-type") == "application/json"
        assert no_store(answer)
        assert set(body) == {"access_token", "token_type", "expires_in", "refresh_token"}
        assert (body["token_type"], body["expires_in"]) == ("Bearer", 3600)
        assert core.works(body["access_token"])

    def test_an_online_web_application_gets_no_refresh_token(self, core: Core) -> None:
        assert "refresh_token" not in core.tokens(core.web)

    def test_an_offline_web_application_gets_one(self, core: Core) -> None:
        assert "refresh_token" in core.tokens(core.web, offline=True)

    def test_a_refresh_repeats_the_refresh_token_and_issues_a_new_access_token(
        self, core: Core
    ) -> None:
        first = core.tokens(core.installed)
        answer = core.token(form(core.refresh_form(core.installed, first["refresh_token"])))
        renewed = json_of(answer)
        assert answer.status == 200 and no_store(answer)
        assert renewed["refresh_token"] == first["refresh_token"]
        assert core.works(renewed["access_token"]) and not core.works(first["access_token"])

    def test_a_refresh_may_narrow_the_scope_never_widen_it(self, core: Core) -> None:
        refresh = core.tokens(core.installed, "profile email")["refresh_token"]
        fields = core.refresh_form(core.installed, refresh, scope="profile")
        assert core.token(form(fields)).status == 200
        fields = core.refresh_form(core.installed, refresh, scope="profile tag")
        assert error_of(core.token(form(fields))) == (400, "invalid_scope")

    def test_an_unknown_or_foreign_refresh_token_is_invalid_grant(self, core: Core) -> None:
        refresh = core.tokens(core.installed)["refresh_token"]
        fields = core.refresh_form(core.web, refresh)
        assert error_of(core.token(form(fields))) == (400, "invalid_grant")
        fields = core.refresh_form(core.installed, refresh[:-1] + "A")
        assert error_of(core.token(form(fields))) == (400, "invalid_grant")


class TestTheCode:
    def test_it_is_used_once_and_its_replay_revokes_what_it_issued(self, core: Core) -> None:
        code = core.code(core.installed)
        first = json_of(core.token(form(core.exchange_form(core.installed, code))))
        answer = core.token(form(core.exchange_form(core.installed, code)))
        assert error_of(answer) == (400, "invalid_grant") and no_store(answer)
        assert not core.works(first["access_token"])

    def test_it_is_bound_to_its_client_and_redirect_uri(self, core: Core) -> None:
        code = core.code(core.installed)
        other = core.exchange_form(core.web, code)
        assert error_of(core.token(form(other))) == (400, "invalid_grant")
        moved = core.exchange_form(core.installed, code, redirect_uri="http://localhost/other")
        assert error_of(core.token(form(moved))) == (400, "invalid_grant")

    def test_it_lives_ten_minutes(self, core: Core) -> None:
        code = core.code(core.installed)
        core.advance(600)
        answer = core.token(form(core.exchange_form(core.installed, code)))
        assert error_of(answer) == (400, "invalid_grant")


class TestPkce:
    @pytest.mark.parametrize("method", ["S256", "plain"])
    def test_the_matching_verifier_is_exchanged(self, core: Core, method: str) -> None:
        verifier, challenge = pkce_pair(method)
        code = core.code(core.installed, challenge=challenge, method=method)
        fields = core.exchange_form(core.installed, code, code_verifier=verifier)
        assert core.token(form(fields)).status == 200

    def test_a_challenge_without_a_method_is_plain(self, core: Core) -> None:
        verifier, _ = pkce_pair("plain")
        code = core.code(core.installed, challenge=verifier)
        fields = core.exchange_form(core.installed, code, code_verifier=verifier)
        assert core.token(form(fields)).status == 200

    @pytest.mark.parametrize("wrong", ["another", "short", "x" * 129, "é" * 43])
    def test_a_verifier_that_disagrees_is_rejected_and_the_code_stays(
        self, core: Core, wrong: str
    ) -> None:
        verifier, challenge = pkce_pair()
        if wrong == "another":
            wrong = pkce_pair()[0]
        code = core.code(core.installed, challenge=challenge, method="S256")
        fields = core.exchange_form(core.installed, code, code_verifier=wrong)
        assert error_of(core.token(form(fields))) == (400, "invalid_grant")
        fields = core.exchange_form(core.installed, code, code_verifier=verifier)
        assert core.token(form(fields)).status == 200

    def test_the_plain_challenge_itself_does_not_match_an_s256_code(self, core: Core) -> None:
        _, challenge = pkce_pair()
        code = core.code(core.installed, challenge=challenge, method="S256")
        fields = core.exchange_form(core.installed, code, code_verifier=challenge)
        assert error_of(core.token(form(fields))) == (400, "invalid_grant")

    def test_a_missing_verifier_is_invalid_request(self, core: Core) -> None:
        _, challenge = pkce_pair()
        code = core.code(core.installed, challenge=challenge, method="S256")
        answer = core.token(form(core.exchange_form(core.installed, code)))
        assert error_of(answer) == (400, "invalid_request")

    def test_a_verifier_for_a_code_without_challenge_is_a_downgrade(self, core: Core) -> None:
        verifier, _ = pkce_pair()
        code = core.code(core.installed)
        fields = core.exchange_form(core.installed, code, code_verifier=verifier)
        assert error_of(core.token(form(fields))) == (400, "invalid_grant")
