"""Attacks on codes and tokens at the token endpoint: PKCE downgrade, cross-client use, replay.

RFC 7636 4.6, RFC 9700 2.1.1 and 4.8 (PKCE downgrade), RFC 6749 4.1.3 and 10.5 (a code is
bound to its client and used once; a replay revokes what it gave), RFC 6749 6 and 10.4
(a refresh token is bound to its client).
"""

from __future__ import annotations

import base64
import hashlib
import secrets

import httpx
import pytest

from tests.support.user_agent import UserAgent

from .helpers import (
    App,
    World,
    exchange,
    get_code,
    refresh,
    revoke,
    tokens,
    works,
)


def _s256(verifier: str) -> str:
    return (
        base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    )


def _refused(answer: httpx.Response, *errors: str) -> None:
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] in errors, answer.text
    assert "access_token" not in answer.json()


@pytest.fixture(scope="module")
def apps(site: World) -> dict[str, App]:
    """Fresh applications: the failures these tests cause must not lock out other modules."""
    return {
        "web": site.new_app("confidential"),
        "installed": site.new_app("public"),
        "other": site.new_app("confidential"),
    }


@pytest.mark.parametrize("kind", ["web", "installed"])
def test_verifier_for_code_issued_without_challenge_is_refused(
    site: World, agent: UserAgent, client: httpx.Client, apps: dict[str, App], kind: str
):
    """PKCE downgrade (RFC 9700 4.8.2): a verifier the authorization request never committed to."""
    app = apps[kind]
    code = get_code(agent, app)
    _refused(
        exchange(client, app, code, verifier=secrets.token_urlsafe(48)),
        "invalid_grant",
        "invalid_request",
    )


@pytest.mark.parametrize("method", ["S256", "plain"])
def test_code_issued_with_challenge_needs_its_verifier(
    site: World, agent: UserAgent, client: httpx.Client, apps: dict[str, App], method: str
):
    app = apps["installed"]
    verifier = secrets.token_urlsafe(48)
    challenge = _s256(verifier) if method == "S256" else verifier
    code = get_code(agent, app, challenge=challenge, method=method)
    # No verifier at all: the downgrade the other way.
    _refused(exchange(client, app, code), "invalid_request", "invalid_grant")
    # A different, well-formed verifier.
    _refused(exchange(client, app, code, verifier=secrets.token_urlsafe(48)), "invalid_grant")
    if method == "S256":
        # The challenge itself sent as a plain verifier must not pass for an S256 challenge.
        _refused(exchange(client, app, code, verifier=challenge), "invalid_grant")
        # Nor the verifier's S256 of the S256 (a client confused about the method).
        _refused(exchange(client, app, code, verifier=_s256(challenge)), "invalid_grant")
    else:
        # A plain challenge is not satisfied by a verifier whose S256 equals it.
        _refused(exchange(client, app, code, verifier=_s256(verifier)), "invalid_grant")


def test_code_of_one_client_cannot_be_redeemed_by_another(
    site: World, agent: UserAgent, client: httpx.Client, apps: dict[str, App]
):
    victim, thief = apps["web"], apps["other"]
    code = get_code(agent, victim, offline=True)
    for redirect_uri in (thief.redirect_uri, victim.redirect_uri):
        _refused(exchange(client, thief, code, redirect_uri=redirect_uri), "invalid_grant")
    # The thief's id with the victim's secret (or the reverse) is no client at all.
    mixed = App(thief.client_id, victim.client_secret, victim.redirect_uri, "confidential")
    answer = exchange(client, mixed, code)
    assert answer.status_code == 401 and answer.json()["error"] == "invalid_client"
    assert "access_token" not in answer.json()


def test_code_is_bound_to_the_redirect_uri_it_was_issued_for(
    site: World, agent: UserAgent, client: httpx.Client, apps: dict[str, App]
):
    """RFC 6749 4.1.3: the loopback port of the authorization request, not any other."""
    app = apps["installed"]
    code = get_code(agent, app)
    _refused(
        exchange(client, app, code, redirect_uri="http://localhost:4343/callback"), "invalid_grant"
    )


def test_refresh_token_of_one_client_is_useless_to_another(
    site: World, agent: UserAgent, client: httpx.Client, apps: dict[str, App]
):
    victim, thief = apps["installed"], apps["other"]
    issued = tokens(client, agent, victim)
    _refused(refresh(client, thief, issued["refresh_token"]), "invalid_grant")
    # The thief's attempt changed nothing for the victim.
    assert works(client, issued["access_token"])
    again = refresh(client, victim, issued["refresh_token"])
    assert again.status_code == 200, again.text


def test_revocation_by_another_client_changes_nothing(
    site: World, agent: UserAgent, client: httpx.Client, apps: dict[str, App]
):
    """RFC 7009 2.1: a client may revoke only its own tokens (the answer is still 200)."""
    victim, thief = apps["installed"], apps["other"]
    issued = tokens(client, agent, victim)
    for token in (issued["access_token"], issued["refresh_token"]):
        answer = revoke(client, thief, token)
        assert answer.status_code == 200
    assert works(client, issued["access_token"])
    assert refresh(client, victim, issued["refresh_token"]).status_code == 200


@pytest.mark.parametrize("kind", ["web", "installed"])
def test_replayed_code_is_refused_and_revokes_its_tokens(
    site: World, agent: UserAgent, client: httpx.Client, apps: dict[str, App], kind: str
):
    """RFC 6749 4.1.2 and 10.5: whoever replays a code also loses what it gave the first time."""
    app = apps[kind]
    code = get_code(agent, app, offline=True)
    first = exchange(client, app, code)
    assert first.status_code == 200, first.text
    issued = first.json()
    assert works(client, issued["access_token"])
    _refused(exchange(client, app, code), "invalid_grant")
    assert not works(client, issued["access_token"])
    _refused(refresh(client, app, issued["refresh_token"]), "invalid_grant")


def test_failed_pkce_attempts_do_not_hand_out_tokens_later(
    site: World, agent: UserAgent, client: httpx.Client, apps: dict[str, App]
):
    """After refused verifiers, only the true verifier redeems the code, and only once."""
    app = apps["installed"]
    verifier = secrets.token_urlsafe(48)
    code = get_code(agent, app, challenge=_s256(verifier), method="S256")
    _refused(exchange(client, app, code, verifier="x" * 43), "invalid_grant")
    good = exchange(client, app, code, verifier=verifier)
    if good.status_code == 200:  # a server may also burn the code on a failed attempt
        _refused(exchange(client, app, code, verifier=verifier), "invalid_grant")
    else:
        _refused(good, "invalid_grant")
