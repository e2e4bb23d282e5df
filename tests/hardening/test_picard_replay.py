"""MusicBrainz Picard's own OAuth requests, replayed byte for byte in their form.

Picard 2.13 authenticates with body credentials everywhere, and its log-out (revoke) also
carries `Authorization: Bearer <access token>`, added by its web-service layer. A bearer
header is no client authentication method (RFC 6749 2.3 is Basic or body); musicbrainz.org
reads client credentials from a Basic header only, and from the body otherwise.
"""

from __future__ import annotations

import httpx

from tests.support.user_agent import UserAgent

from .helpers import World, get_code, works

PICARD = {
    "User-Agent": "MusicBrainz-Picard/2.13.3 (Linux; x86_64; Python 3.11)",
    "Accept": "application/json",
    "Content-Type": "application/x-www-form-urlencoded",
}


def _post(http: httpx.Client, path: str, body: str, bearer: str | None = None) -> httpx.Response:
    headers = dict(PICARD)
    if bearer:
        headers["Authorization"] = f"Bearer {bearer}"
    return http.post(path, content=body.encode(), headers=headers)


def test_picard_logs_in_refreshes_and_logs_out(site: World, client: httpx.Client, agent: UserAgent):
    app = site.installed
    creds = f"client_id={app.client_id}&client_secret={app.client_secret}"
    code = get_code(agent, app)
    exchanged = _post(
        client,
        "/oauth2/token",
        f"grant_type=authorization_code&code={code}&{creds}&redirect_uri={app.redirect_uri}",
    )
    assert exchanged.status_code == 200, exchanged.text
    access, refresh = exchanged.json()["access_token"], exchanged.json()["refresh_token"]
    info = client.get("/oauth2/userinfo", headers={**PICARD, "Authorization": f"Bearer {access}"})
    assert info.status_code == 200 and info.json()["sub"] == site.username
    # A refresh that also carries the (old) bearer token: the header is not a client method.
    renewed = _post(
        client, "/oauth2/token", f"grant_type=refresh_token&refresh_token={refresh}&{creds}", access
    )
    assert renewed.status_code == 200, renewed.text
    access = renewed.json()["access_token"]
    # Log out: Picard's exact revoke, body credentials plus its bearer header.
    logged_out = _post(client, "/oauth2/revoke", f"token={refresh}&{creds}", access)
    assert logged_out.status_code == 200, logged_out.text
    assert not works(client, access), "revoking the refresh token ended the grant"


def test_a_basic_header_still_conflicts_with_body_credentials(site: World, client: httpx.Client):
    """Only a Basic header is a client authentication method: with body secrets, one too many."""
    app = site.installed
    answer = client.post(
        "/oauth2/revoke",
        data={"token": "t", "client_id": app.client_id, "client_secret": app.client_secret},
        auth=(app.client_id, app.client_secret),
    )
    assert answer.status_code == 400 and answer.json()["error"] == "invalid_request"
