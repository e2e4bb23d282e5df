"""The revocation and user-information endpoints' core (reference_server/oauth/), without
HTTP: the parameter rules of spec 4.4 and RFC 7009 2.1-2.2, the three ways of spec 4.5 and
the bearer errors of RFC 6750 3.

(Over HTTPS, through the real server: test_revoke.py, test_userinfo.py.)
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from reference_server.answers import Answer
from reference_server.errors import ParameterError
from reference_server.oauth import ClientRequest
from reference_server.urlencoded import FORM_TYPE

from .core import Core, basic, error_of, form, json_of


def _revoked(answer: Answer) -> bool:
    """200, an empty body, no content type, not cached (RFC 7009 2.2)."""
    return (
        answer.status == 200
        and answer.body == b""
        and answer.header("content-type") is None
        and answer.header("cache-control") == "no-store"
    )


class TestRevocationParameters:
    @pytest.mark.parametrize("missing", ["token", "client_id", "client_secret"])
    def test_each_is_required(self, core: Core, missing: str) -> None:
        tokens = core.tokens(core.installed)
        fields = core.revoke_form(core.installed, tokens["access_token"])
        del fields[missing]
        assert error_of(core.revoke(form(fields))) == (400, "invalid_request")
        assert core.works(tokens["access_token"])

    def test_a_query_string_is_refused(self, core: Core) -> None:
        tokens = core.tokens(core.installed)
        fields = core.revoke_form(core.installed, tokens["access_token"])
        answer = core.revoke(form(fields, query=urlencode(fields)))
        assert error_of(answer) == (400, "invalid_request")
        assert core.works(tokens["access_token"])

    def test_another_content_type_is_refused(self, core: Core) -> None:
        fields = core.revoke_form(core.installed, core.tokens(core.installed)["access_token"])
        answer = core.revoke(form(fields, content_type="application/json"))
        assert error_of(answer) == (400, "invalid_request")

    def test_a_repeated_parameter_is_refused(self, core: Core) -> None:
        tokens = core.tokens(core.installed)
        fields = [*core.revoke_form(core.installed, tokens["access_token"]).items()]
        answer = core.revoke(form([*fields, ("token", tokens["refresh_token"])]))
        assert error_of(answer) == (400, "invalid_request")
        assert core.works(tokens["access_token"])

    def test_a_body_that_could_not_be_read_is_refused(self, core: Core) -> None:
        too_large = ParameterError("the request body is too large", status=413)
        answer = core.revoke(ClientRequest(content_type=FORM_TYPE, body=too_large))
        assert error_of(answer) == (413, "invalid_request")

    def test_a_wrong_secret_is_invalid_client_and_revokes_nothing(self, core: Core) -> None:
        tokens = core.tokens(core.installed)
        fields = {**core.revoke_form(core.installed, tokens["access_token"]), "client_secret": "x"}
        answer = core.revoke(form(fields))
        assert error_of(answer) == (401, "invalid_client")
        assert answer.header("www-authenticate") is not None
        assert core.works(tokens["access_token"])


class TestRevocation:
    def test_a_valid_token_is_revoked_with_an_empty_200(self, core: Core) -> None:
        tokens = core.tokens(core.installed)
        assert _revoked(core.revoke(form(core.revoke_form(core.installed, tokens["access_token"]))))
        assert not core.works(tokens["access_token"])

    @pytest.mark.parametrize("token", ["unknown", "", "A" * 43])
    def test_an_invalid_token_is_an_empty_200_too(self, core: Core, token: str) -> None:
        fields = core.revoke_form(core.installed, token)
        answer = core.revoke(form(fields))
        if token:
            assert _revoked(answer)
        else:  # an empty token is a missing one
            assert error_of(answer) == (400, "invalid_request")

    def test_basic_credentials_are_accepted(self, core: Core) -> None:
        tokens = core.tokens(core.installed)
        credentials = basic(core.installed.client_id, core.installed.secret)
        answer = core.revoke(form({"token": tokens["refresh_token"]}, authorization=credentials))
        assert _revoked(answer)
        assert not core.works(tokens["access_token"])

    def test_a_bearer_header_beside_body_credentials_is_ignored(self, core: Core) -> None:
        """MusicBrainz Picard's logout."""
        tokens = core.tokens(core.installed)
        fields = core.revoke_form(core.installed, tokens["refresh_token"])
        answer = core.revoke(form(fields, authorization=f"Bearer {tokens['access_token']}"))
        assert _revoked(answer)

    def test_another_clients_token_stays(self, core: Core) -> None:
        tokens = core.tokens(core.installed)
        assert _revoked(core.revoke(form(core.revoke_form(core.web, tokens["refresh_token"]))))
        assert core.works(tokens["access_token"])


def _asked(token: str, way: str) -> ClientRequest:
    if way == "header":
        return ClientRequest("GET", authorization=f"Bearer {token}")
    if way == "query":
        return ClientRequest("GET", query=urlencode({"access_token": token}).encode())
    return form({"access_token": token})


WAYS = ["header", "query", "body"]


class TestUserinfo:
    @pytest.mark.parametrize("way", WAYS)
    def test_each_of_the_three_ways_is_read(self, core: Core, way: str) -> None:
        answer = core.userinfo(_asked(core.tokens(core.installed)["access_token"], way))
        assert answer.status == 200 and answer.header("cache-control") == "no-store"
        assert json_of(answer)["sub"] == "carol"

    def test_the_scheme_is_case_insensitive(self, core: Core) -> None:
        token = core.tokens(core.installed)["access_token"]
        assert core.userinfo(ClientRequest("GET", authorization=f"bEaReR {token}")).status == 200

    @pytest.mark.parametrize(("first", "second"), [("header", "query"), ("query", "body")])
    def test_two_ways_at_once_are_refused(self, core: Core, first: str, second: str) -> None:
        token = core.tokens(core.installed)["access_token"]
        one, other = _asked(token, first), _asked(token, second)
        both = one._replace(
            method=other.method if other.method == "POST" else one.method,
            query=one.query or other.query,
            authorization=one.authorization or other.authorization,
            content_type=one.content_type or other.content_type,
            body=one.body or other.body,
        )
        answer = core.userinfo(both)
        assert answer.status == 400 and json_of(answer)["error"] == "invalid_request"
        assert 'error="invalid_request"' in (answer.header("www-authenticate") or "")

    @pytest.mark.parametrize(
        "request_",
        [
            ClientRequest("GET"),
            ClientRequest("GET", authorization="Basic dXNlcjpwYXNz"),
            ClientRequest("GET", authorization="MAC token"),
            form({"access_token": "x"}, method="GET"),  # a body only counts in a POST
            form({"access_token": "x"}, content_type="application/json"),
        ],
        ids=["nothing", "basic", "mac", "get-with-body", "json-body"],
    )
    def test_no_token_is_a_bare_challenge(self, core: Core, request_: ClientRequest) -> None:
        answer = core.userinfo(request_)
        assert answer.status == 401 and json_of(answer) == {}
        assert (
            answer.header("www-authenticate") == 'Bearer realm="MusicBrainz OAuth reference server"'
        )

    def test_an_unknown_revoked_or_expired_token_is_invalid_token(self, core: Core) -> None:
        revoked = core.tokens(core.installed)["access_token"]
        core.revoke(form(core.revoke_form(core.installed, revoked)))
        expiring = core.tokens(core.installed)["access_token"]
        core.advance(3599)
        assert core.works(expiring)
        core.advance(1)
        for token in ("unknown", revoked[:-1] + "A", revoked, expiring):
            answer = core.userinfo(_asked(token, "header"))
            assert answer.status == 401, token
            assert 'error="invalid_token"' in (answer.header("www-authenticate") or "")

    @pytest.mark.parametrize("way", WAYS)
    def test_without_the_profile_scope_is_insufficient_scope(self, core: Core, way: str) -> None:
        answer = core.userinfo(_asked(core.tokens(core.installed, "email")["access_token"], way))
        assert answer.status == 403 and json_of(answer)["error"] == "insufficient_scope"
        assert 'scope="profile"' in (answer.header("www-authenticate") or "")

    def test_the_email_only_with_the_email_scope(self, core: Core) -> None:
        without = json_of(
            core.userinfo(_asked(core.tokens(core.installed)["access_token"], "header"))
        )
        token = core.tokens(core.installed, "profile email")["access_token"]
        with_email = json_of(core.userinfo(_asked(token, "header")))
        assert "email" not in without
        assert with_email["email"] == "carol@example.org"

    @pytest.mark.parametrize(
        "request_",
        [
            ClientRequest("GET", query=b"access_token=a&access_token=b"),
            ClientRequest("GET", query=b"access_token=%C3%28"),
            ClientRequest(content_type=FORM_TYPE, body=b"access_token=a&access_token=a"),
            ClientRequest(content_type=FORM_TYPE, body=ParameterError("too large", status=413)),
        ],
        ids=["repeated-query", "bad-query", "repeated-body", "unread-body"],
    )
    def test_unreadable_parameters_are_invalid_request(
        self, core: Core, request_: ClientRequest
    ) -> None:
        answer = core.userinfo(request_)
        assert answer.status == 400 and json_of(answer)["error"] == "invalid_request"

    def test_the_challenge_holds_only_what_rfc_6750_allows(self, core: Core) -> None:
        """A description with a quote and a non-ASCII letter: the JSON keeps them, the
        challenge's quoted string drops them."""
        answer = core.userinfo(ClientRequest("GET", query=b"%C3%A9%22=1&%C3%A9%22=2"))
        assert 'é"' in json_of(answer)["error_description"]
        challenge = answer.header("www-authenticate") or ""
        description = challenge.split('error_description="', 1)[1].rsplit('"', 1)[0]
        assert description and all(0x20 <= ord(c) <= 0x7E and c not in '"\\' for c in description)
