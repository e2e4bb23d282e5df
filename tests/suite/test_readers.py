"""The suite's readers: strict where a rule states the format, lenient (and noted) in premises,
and never more lenient than a rule: each leniency names the rule that fails on it."""

from __future__ import annotations

import httpx
import pytest

from steps.consent.base import RedirectResult, redirect_target
from steps.definitions.framing import forbids_framing
from steps.definitions.userinfo_outcomes import _bearer_challenges
from steps.http.evidence import Exchange
from steps.http.readers import (
    EXCHANGE_KEY,
    LENIENCIES,
    auth_param,
    challenges,
    directives,
    granted,
    issued_tokens,
    read_token_answer,
    strict_json,
    strict_token_fields,
)
from steps.outcomes import PremiseFailed
from steps.rules.catalogue import load_catalogue

JSON = {"content-type": "application/json"}
TOKENS = '{"access_token": "a-token", "token_type": "Bearer", "expires_in": 3600}'


def answer(status: int, body: str | bytes, headers: dict[str, str] | None = None) -> httpx.Response:
    content = body.encode() if isinstance(body, str) else body
    response = httpx.Response(status, content=content, headers=headers or {})
    response.extensions[EXCHANGE_KEY] = Exchange("POST", "https://t.example/oauth2/token", [], "")
    return response


def notes(response: httpx.Response) -> list[str]:
    return response.extensions[EXCHANGE_KEY].notes


def test_every_leniency_names_a_rule_of_the_catalogue() -> None:
    assert set(LENIENCIES.values()) <= set(load_catalogue())


@pytest.mark.parametrize(
    ("body", "headers", "problem"),
    [
        (TOKENS, {"content-type": "text/plain"}, "content type"),
        (TOKENS, {"content-type": "application/jsonp"}, "content type"),
        ('{"access_token": "a", "access_token": "b"}', JSON, "given twice"),
        (b'{"access_token": "\xe9"}', JSON, "not UTF-8"),
        ('["access_token"]', JSON, "not an object"),
        ("access_token=a&token_type=Bearer", JSON, "not JSON"),
    ],
)
def test_the_strict_reader_refuses_what_rfc_6749_does_not_allow(body, headers, problem) -> None:
    read = strict_json(answer(200, body, headers))
    assert read.body is None and problem in read.problem


def test_the_strict_reader_takes_a_token_answer_as_rfc_6749_sends_it() -> None:
    read = strict_json(answer(200, TOKENS, {"content-type": "Application/JSON; charset=UTF-8"}))
    assert read.body is not None and read.body["access_token"] == "a-token"


@pytest.mark.parametrize(
    ("body", "headers", "leniency"),
    [
        ("access_token=f-token&token_type=Bearer&expires_in=3600", {}, "a form-encoded"),
        (TOKENS, {"content-type": "text/html"}, "without the application/json media type"),
        ('{"access_token": "x", "access_token": "a-token"}', JSON, "not strict JSON"),
    ],
)
def test_a_premise_reads_a_token_answer_as_a_client_library_and_notes_it(
    body, headers, leniency
) -> None:
    response = answer(200, body, headers)
    read = granted(response)
    assert read is not None and read.access_token in ("f-token", "a-token")
    assert leniency in read.leniency
    (note,) = notes(response)
    assert note.startswith("read leniently:") and "TOKEN-RESPONSE-ACCESS-TOKEN judges it" in note


def test_a_strict_answer_is_read_without_a_note() -> None:
    response = answer(200, TOKENS, JSON)
    assert granted(response) is not None and notes(response) == []


def test_only_a_2xx_with_an_access_token_is_granted() -> None:
    assert granted(answer(400, TOKENS, JSON)) is None
    assert granted(answer(200, '{"error": "invalid_grant"}', JSON)) is None
    assert granted(answer(201, TOKENS, JSON)) is not None  # TOKEN-RESPONSE-STATUS-200 judges it


def test_a_token_in_any_answer_is_issued_whatever_its_status_or_encoding() -> None:
    assert issued_tokens(answer(400, TOKENS, JSON)) == ["access_token"]
    assert issued_tokens(answer(401, "access_token=x&refresh_token=y")) == [
        "access_token",
        "refresh_token",
    ]
    assert issued_tokens(answer(200, '{"error": "invalid_client"}', JSON)) == []
    assert read_token_answer(answer(400, "<html>a=b</html>")).fields == {}


def test_repeated_list_fields_are_read_whole() -> None:
    response = httpx.Response(
        200, headers=[("Cache-Control", "private"), ("cache-control", "no-store")]
    )
    assert directives(response, "cache-control") == {"private", "no-store"}
    assert "no-store" not in directives(
        httpx.Response(200, headers={"Cache-Control": "no-storex"}), "cache-control"
    )


def test_the_code_is_the_querys_and_a_repeated_parameter_is_seen() -> None:
    redirect = RedirectResult.from_url("https://app.example/cb?state=a&state=b#code=c1&state=s")
    assert redirect.code is None and redirect.fragment_code == "c1"
    assert redirect.repeated == ("state",)
    plain = RedirectResult.from_url("https://app.example/cb?code=c2&state=s#_")
    assert (plain.code, plain.fragment_code, plain.state) == ("c2", None, "s")


def test_a_redirect_naming_two_places_is_not_followed() -> None:
    request = httpx.Request("GET", "https://t.example/oauth2/authorize")
    two = httpx.Response(
        302, headers=[("Location", "https://a.example/"), ("Location", "https://b.example/")]
    )
    two.request = request
    one = httpx.Response(302, headers={"Location": "/login"})
    one.request = request
    assert redirect_target(two) is None
    assert redirect_target(one) == "https://t.example/login"


@pytest.mark.parametrize(
    ("headers", "forbidden"),
    [
        ({"X-Frame-Options": "DENY"}, True),
        ({"content-security-policy": "default-src 'self'; frame-ancestors 'none'"}, True),
        ({"content-security-policy": "frame-ancestors 'self' https://evil.example"}, False),
        ({"content-security-policy": "frame-ancestors *"}, False),
        ({"content-security-policy": "default-src 'self', frame-ancestors 'self'"}, True),
        ({"X-Frame-Options": "ALLOW-FROM https://evil.example"}, False),
    ],
)
def test_framing_is_forbidden_only_when_no_other_site_may_frame(headers, forbidden) -> None:
    assert forbids_framing(headers) is forbidden


def test_a_challenges_error_is_read_as_an_auth_param_not_a_substring() -> None:
    response = httpx.Response(
        401,
        headers=[
            ("WWW-Authenticate", 'Digest realm="x", nonce="n"'),
            ("WWW-Authenticate", 'Bearer realm="x", xerror="invalid_token"'),
        ],
    )
    bearer = [c for c in challenges(response) if c.startswith("Bearer")]
    assert bearer and auth_param(bearer[0], "error") is None
    assert auth_param('Bearer error="invalid_token", realm="x"', "error") == "invalid_token"
    assert auth_param("Bearer error=invalid_token", "error") == "invalid_token"


def test_every_check_of_a_token_answer_shares_one_strict_reading() -> None:
    """A token_type named twice is no answer to read token_type from: the checks of its fields
    could not be checked, naming TOKEN-RESPONSE-ACCESS-TOKEN, which fails on it (a client that
    takes the last value would have let TOKEN-TYPE-BEARER pass)."""
    twice = '{"access_token": "a", "token_type": "mac", "token_type": "Bearer", "expires_in": 3600}'
    with pytest.raises(PremiseFailed) as raised:
        strict_token_fields(answer(200, twice, JSON), "the refresh", see="REFRESH-NEW-ACCESS-TOKEN")
    assert raised.value.see == "TOKEN-RESPONSE-ACCESS-TOKEN"
    assert "token_type given twice" in raised.value.reason
    fields = strict_token_fields(answer(200, TOKENS, JSON), "x", see="X")
    assert fields["token_type"] == "Bearer"


def test_every_bearer_challenge_is_read() -> None:
    response = httpx.Response(
        401,
        headers=[
            ("www-authenticate", 'Bearer realm="a", error="invalid_token"'),
            ("www-authenticate", 'Digest realm="a", nonce="n"'),
            ("www-authenticate", 'Bearer realm="b"'),
        ],
    )
    bearer = _bearer_challenges(response)
    assert len(bearer) == 2
    assert [auth_param(c, "error") for c in bearer] == ["invalid_token", None]
