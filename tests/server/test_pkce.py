"""PKCE at the token endpoint (RFC 7636, spec 4.1-4.2): a code issued with a challenge is
exchanged only with its verifier; the challenge's own checks at the authorization endpoint are
in test_authorize.py."""

from __future__ import annotations

import pytest

from .flows import assert_error, exchange, obtain_code, pkce_pair


def s256_code(world, user, challenge: str) -> str:
    """A code issued to the installed application for an S256 challenge."""
    return obtain_code(
        user, world.installed, code_challenge=challenge, code_challenge_method="S256"
    )


class TestPkce:
    @pytest.mark.rule("PKCE-S256", "PKCE-PLAIN", "VERSION-PKCE")
    @pytest.mark.parametrize("method", ["S256", "plain"])
    def test_matching_verifier(self, world, user, http, method):
        verifier, challenge = pkce_pair(method)
        code = obtain_code(
            user, world.installed, code_challenge=challenge, code_challenge_method=method
        )
        assert exchange(http, world.installed, code, code_verifier=verifier).status_code == 200

    @pytest.mark.rule("PKCE-VERIFIER-MISMATCH")
    def test_wrong_verifier_is_refused_and_keeps_the_code(self, world, user, http):
        verifier, challenge = pkce_pair()
        code = s256_code(world, user, challenge)
        wrong = exchange(http, world.installed, code, code_verifier=pkce_pair()[0])
        assert_error(wrong, "invalid_grant")
        assert exchange(http, world.installed, code, code_verifier=verifier).status_code == 200

    @pytest.mark.rule("PKCE-VERIFIER-MISSING")
    def test_missing_verifier_is_refused(self, world, user, http):
        _, challenge = pkce_pair()
        code = s256_code(world, user, challenge)
        assert_error(exchange(http, world.installed, code), "invalid_request")

    def test_challenge_itself_is_not_a_verifier_for_s256(self, world, user, http):
        _, challenge = pkce_pair()
        code = s256_code(world, user, challenge)
        assert_error(
            exchange(http, world.installed, code, code_verifier=challenge), "invalid_grant"
        )

    @pytest.mark.rule("PKCE-DEFAULT-PLAIN")
    def test_default_method_is_plain(self, world, user, http):
        verifier, _ = pkce_pair("plain")
        code = obtain_code(user, world.installed, code_challenge=verifier)
        assert exchange(http, world.installed, code, code_verifier=verifier).status_code == 200

    @pytest.mark.rule("PKCE-DOWNGRADE")
    def test_verifier_for_a_code_without_challenge_is_refused(self, world, user, http):
        code = obtain_code(user, world.installed)
        assert_error(
            exchange(http, world.installed, code, code_verifier=pkce_pair()[0]), "invalid_grant"
        )
