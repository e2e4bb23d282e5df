"""Service profiles and the token set."""

from __future__ import annotations

import json
import ssl

import pytest

from client_kit import _errors, profiles
from client_kit._errors import ConfigurationError, InsecureTransportError, ProtocolError
from client_kit._tokens import TokenSet


def test_musicbrainz_profile_endpoints_and_capabilities() -> None:
    p = profiles.musicbrainz()
    assert p.authorize_url == "https://musicbrainz.org/oauth2/authorize"
    assert p.token_url == "https://musicbrainz.org/oauth2/token"
    assert p.revoke_url == "https://musicbrainz.org/oauth2/revoke"
    assert p.userinfo_url == "https://musicbrainz.org/oauth2/userinfo"
    assert p.allows_oob and not p.exact_loopback_port and not p.rotating_refresh_tokens
    assert p.wire_scopes(["profile", "tag", "submit_isrc"]) == ["profile", "tag", "submit_isrc"]


def test_metabrainz_profile_prefixes_scopes_and_capabilities() -> None:
    p = profiles.metabrainz()
    assert p.token_url == "https://metabrainz.org/oauth2/token"
    assert not p.allows_oob and p.exact_loopback_port and p.rotating_refresh_tokens
    assert p.wire_scopes(
        ["profile", "email", "tag", "rating", "collection", "submit_isrc", "submit_barcode"]
    ) == [
        "profile",
        "email",
        "musicbrainz:tag",
        "musicbrainz:rating",
        "musicbrainz:collection",
        "musicbrainz:submit_isrc",
        "musicbrainz:submit_barcode",
    ]
    # already-prefixed names and comma lists are accepted, duplicates dropped
    assert p.wire_scopes(["musicbrainz:tag,tag profile"]) == ["musicbrainz:tag", "profile"]
    assert p.short_scopes(["musicbrainz:tag", "email"]) == ["tag", "email"]


def test_unknown_scope_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="unknown scope 'tags'"):
        profiles.musicbrainz().wire_scopes(["tags"])


def test_resolve_names_and_urls() -> None:
    assert profiles.resolve("metabrainz").name == "metabrainz"
    p = profiles.resolve("https://127.0.0.1:8443/", ca_bundle="/x/ca.pem")
    assert p.base_url == "https://127.0.0.1:8443"
    assert p.token_url == "https://127.0.0.1:8443/oauth2/token"
    assert p.ca_bundle == "/x/ca.pem"
    with pytest.raises(ConfigurationError):
        profiles.resolve("discogs")


def test_plain_http_base_url_is_refused() -> None:
    with pytest.raises(InsecureTransportError, match="https"):
        profiles.resolve("http://127.0.0.1:8080")


def test_client_options_pass_settings_to_httpx(tmp_path) -> None:
    p = profiles.musicbrainz(proxy="http://proxy.example:3128", user_agent="app/1.0 (me@x)")
    options = p.client_options()
    assert isinstance(options["verify"], ssl.SSLContext)
    assert options["proxy"] == "http://proxy.example:3128"
    assert options["headers"]["User-Agent"] == "app/1.0 (me@x)"
    with p.http_client() as client:
        assert client.headers["User-Agent"] == "app/1.0 (me@x)"
    with pytest.raises(_errors.CertificateRejected, match="does not exist"):
        profiles.musicbrainz(ca_bundle=str(tmp_path / "missing.pem")).ssl_context()


def test_token_set_from_response_and_expiry() -> None:
    t = TokenSet.from_response(
        {
            "access_token": "a" * 32,
            "refresh_token": "r" * 32,
            "expires_in": 3600,
            "token_type": "bearer",
            "scope": "profile tag",
        },
        now=1000.0,
    )
    assert t.expires_at == 4600.0 and t.scopes == ("profile", "tag")
    assert not t.is_expired(now=4500.0)
    assert t.is_expired(now=4541.0)  # inside the clock-skew margin
    assert t.is_expired(now=4600.0, margin=0)
    assert "a" * 32 not in repr(t) and "r" * 32 not in repr(t)


def test_token_set_keeps_previous_refresh_token_and_reads_scope_arrays() -> None:
    old = TokenSet("old", "refresh-1", 0.0, ("profile",), username="alice")
    t = TokenSet.from_response(
        {"access_token": "new", "expires_in": 10, "scope": ["profile", "musicbrainz:tag"]},
        previous=old,
    )
    assert t.refresh_token == "refresh-1"
    assert t.scopes == ("profile", "musicbrainz:tag")
    assert t.username == "alice"
    rotated = TokenSet.from_response(
        {"access_token": "n2", "refresh_token": "refresh-2"}, previous=old
    )
    assert rotated.refresh_token == "refresh-2" and rotated.scopes == ("profile",)


@pytest.mark.parametrize(
    "data", [{}, {"access_token": ""}, {"access_token": "x", "token_type": "mac"}]
)
def test_bad_token_responses(data) -> None:
    with pytest.raises(ProtocolError):
        TokenSet.from_response(data)


def test_serialisation_is_compact_and_round_trips() -> None:
    t = TokenSet(
        "meba_" + "a" * 60,
        "mebr_" + "b" * 60,
        1_900_000_000.4,
        ("profile", "musicbrainz:tag"),
        obtained_at=1_899_996_400.0,
        username="bob",
    )
    text = t.to_json()
    assert " " not in text.replace("profile musicbrainz", "")
    assert set(json.loads(text)) == {"a", "r", "e", "s", "o", "u"}
    back = TokenSet.from_json(text)
    assert back.access_token == t.access_token and back.refresh_token == t.refresh_token
    assert back.scopes == t.scopes and back.username == "bob"
    assert back.expires_at == 1_900_000_000
    with pytest.raises(ProtocolError, match="log in again"):
        TokenSet.from_json("{not json")
