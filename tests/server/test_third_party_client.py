"""A standard OAuth 2.0 client library (Authlib) completes the flows against the server."""

from __future__ import annotations

import secrets

import pytest
from authlib.integrations.httpx_client import OAuth2Client

from tests.support.user_agent import query_of

from .flows import works


@pytest.mark.parametrize("auth_method", ["client_secret_post", "client_secret_basic"])
def test_authlib_code_exchange_refresh_and_revoke(world, user, http, auth_method):
    base = world.server.base_url
    client = OAuth2Client(
        world.installed.client_id,
        world.installed.client_secret,
        scope="profile email",
        redirect_uri="http://localhost:8765/callback",
        token_endpoint_auth_method=auth_method,
        revocation_endpoint_auth_method=auth_method,
        code_challenge_method="S256",
        verify=world.server.ssl_context(),
    )
    verifier = secrets.token_urlsafe(48)
    url, state = client.create_authorization_url(base + "/oauth2/authorize", code_verifier=verifier)
    location = user.authorize(query_of(url))
    assert query_of(location)["state"] == state

    token = client.fetch_token(
        base + "/oauth2/token", authorization_response=location, code_verifier=verifier
    )
    assert token["token_type"] == "Bearer" and token["expires_in"] == 3600
    me = client.get(base + "/oauth2/userinfo").json()
    assert me["sub"] == "alice" and me["email"] == world.email

    renewed = client.refresh_token(base + "/oauth2/token", refresh_token=token["refresh_token"])
    assert renewed["refresh_token"] == token["refresh_token"]
    assert works(http, renewed["access_token"])

    revoked = client.revoke_token(
        base + "/oauth2/revoke", token=renewed["refresh_token"], token_type_hint="refresh_token"
    )
    assert revoked.status_code == 200
    assert not works(http, renewed["access_token"])
    client.close()
