"""Authorization URL, PKCE, state, and parsing what comes back."""

from __future__ import annotations

import base64
import hashlib

import pytest

from client_kit import _cli_exit, _errors, profiles
from client_kit._authorization import build_request, check_redirect, parse_pasted
from client_kit._cli_exit import exit_code
from tests.kit.helpers import CLIENT_ID, query


def test_url_has_pkce_s256_state_and_wire_scopes() -> None:
    req = build_request(
        profiles.metabrainz(), CLIENT_ID, "http://localhost:8976/callback", ["profile", "tag"]
    )
    q = query(req.url)
    assert req.url.startswith("https://metabrainz.org/oauth2/authorize?")
    assert q["response_type"] == "code" and q["client_id"] == CLIENT_ID
    assert q["redirect_uri"] == "http://localhost:8976/callback"
    assert q["scope"] == "profile musicbrainz:tag"
    assert q["state"] == req.state and len(req.state) >= 32
    assert q["code_challenge_method"] == "S256"
    digest = hashlib.sha256(req.code_verifier.encode()).digest()
    assert q["code_challenge"] == base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    other = build_request(profiles.metabrainz(), CLIENT_ID, "x", ["profile"])
    assert other.state != req.state and other.code_verifier != req.code_verifier


def test_pkce_can_be_disabled() -> None:
    req = build_request(profiles.musicbrainz(), CLIENT_ID, "x", ["profile"], use_pkce=False)
    assert "code_challenge" not in query(req.url) and req.code_verifier is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("abc123", {"code": "abc123"}),
        ("  abc123\n", {"code": "abc123"}),
        ("http://localhost:5000/callback?code=C1&state=S1", {"code": "C1", "state": "S1"}),
        ("https://mb.test/oauth2/oob?code=C2&state=S2", {"code": "C2", "state": "S2"}),
        ("http://localhost:1/cb?code=C3&state=S3#_", {"code": "C3", "state": "S3"}),
        ("?code=C4&state=S4", {"code": "C4", "state": "S4"}),
        ("code=C5&state=S5", {"code": "C5", "state": "S5"}),
        ("http://localhost:1/cb?error=access_denied", {"error": "access_denied"}),
        ("", {}),
    ],
)
def test_parse_pasted(text, expected) -> None:
    assert parse_pasted(text) == expected


def test_check_redirect_returns_code_when_state_matches() -> None:
    assert check_redirect({"code": "C", "state": "S"}, "S") == "C"


def test_wrong_or_missing_state_is_refused() -> None:
    with pytest.raises(_errors.StateMismatch):
        check_redirect({"code": "C", "state": "evil"}, "S")
    with pytest.raises(_errors.StateMismatch):
        check_redirect({"code": "C"}, "S")
    # a bare code typed by the user carries no state
    assert check_redirect({"code": "C"}, "S", pasted=True) == "C"
    with pytest.raises(_errors.StateMismatch):  # but a wrong one is still refused
        check_redirect({"code": "C", "state": "evil"}, "S", pasted=True)


@pytest.mark.parametrize(
    ("error", "cls", "words"),
    [
        ("access_denied", _errors.AccessDenied, "not granted"),
        ("invalid_scope", _errors.InvalidScope, "scope"),
        ("invalid_request", _errors.InvalidRequest, "malformed"),
        ("unsupported_response_type", _errors.UnsupportedResponseType, "response type"),
        ("temporarily_unavailable", _errors.ServerUnavailable, "try again later"),
        ("something_new", _errors.AuthorizationError, "refused"),
    ],
)
def test_redirect_errors_become_distinct_exceptions(error, cls, words) -> None:
    with pytest.raises(cls) as info:
        check_redirect({"error": error, "error_description": "because", "state": "S"}, "S")
    assert type(info.value) is cls
    assert words in str(info.value) and "because" in str(info.value)
    assert info.value.error == error


def test_error_without_state_is_reported_but_with_wrong_state_is_forgery() -> None:
    with pytest.raises(_errors.AccessDenied):  # MetaBrainz drops state on cancel
        check_redirect({"error": "access_denied"}, "S")
    with pytest.raises(_errors.StateMismatch):
        check_redirect({"error": "access_denied", "state": "evil"}, "S")


def test_exit_codes_of_authorization_errors() -> None:
    assert exit_code(_errors.AccessDenied()) == _cli_exit.EXIT_CANCELLED
    assert exit_code(_errors.ServerUnavailable()) == _cli_exit.EXIT_TEMPORARY
    assert exit_code(_errors.UnauthorizedClient()) == _cli_exit.EXIT_CONFIGURATION
