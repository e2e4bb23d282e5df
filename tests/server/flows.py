"""Short-hands for the OAuth steps that many server tests repeat."""

from __future__ import annotations

import base64
import hashlib
import secrets

import httpx

from tests.support.user_agent import UserAgent, query_of
from tests.support.world import App


def authorize_params(client: App, scope: str = "profile", **extra: str) -> dict[str, str]:
    params = {
        "response_type": "code",
        "client_id": client.client_id,
        "redirect_uri": client.redirect_uri,
        "scope": scope,
        "state": secrets.token_urlsafe(8),
    }
    params.update(extra)
    return params


def obtain_code(user: UserAgent, client: App, scope: str = "profile", **extra: str) -> str:
    params = authorize_params(client, scope, **extra)
    location = user.authorize(params)
    answer = query_of(location)
    assert "code" in answer, location
    assert answer.get("state") == params["state"]
    return answer["code"]


def exchange(http: httpx.Client, client: App, code: str, **extra: str) -> httpx.Response:
    data = {
        "grant_type": "authorization_code",
        "code": code,
        "client_id": client.client_id,
        "client_secret": client.client_secret,
        "redirect_uri": extra.pop("redirect_uri", client.redirect_uri),
    }
    data.update(extra)
    return http.post("/oauth2/token", data=data)


def refresh(http: httpx.Client, client: App, refresh_token: str, **extra: str) -> httpx.Response:
    data = {
        "grant_type": "refresh_token",
        "refresh_token": refresh_token,
        "client_id": client.client_id,
        "client_secret": client.client_secret,
    }
    data.update(extra)
    return http.post("/oauth2/token", data=data)


def revoke(http: httpx.Client, client: App, token: str) -> httpx.Response:
    return http.post(
        "/oauth2/revoke",
        data={"token": token, "client_id": client.client_id, "client_secret": client.client_secret},
    )


def userinfo(http: httpx.Client, access_token: str) -> httpx.Response:
    return http.get("/oauth2/userinfo", headers={"Authorization": f"Bearer {access_token}"})


def token_set(
    user: UserAgent, http: httpx.Client, client: App, scope: str = "profile", **extra: str
) -> dict:
    """A fresh token set from a full authorization: code, then exchange."""
    response = exchange(http, client, obtain_code(user, client, scope, **extra))
    assert response.status_code == 200, response.text
    return response.json()


def pkce_pair(method: str = "S256") -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    if method == "plain":
        return verifier, verifier
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def works(http: httpx.Client, access_token: str) -> bool:
    return userinfo(http, access_token).status_code == 200


def database_row(world, sql: str, *args: object):
    """Read the server's SQLite file directly (it is in WAL mode: readers never block)."""
    import sqlite3

    db = sqlite3.connect(world.server.data_dir / "server.sqlite3")
    db.row_factory = sqlite3.Row
    try:
        return db.execute(sql, args).fetchone()
    finally:
        db.close()


OOB = "urn:ietf:wg:oauth:2.0:oob"


def assert_own_error_page(response: httpx.Response) -> None:
    """The server answered on its own error page: no redirect to anyone."""
    assert response.status_code == 400
    assert "location" not in response.headers
    assert 'id="error-message"' in response.text


def assert_error(response: httpx.Response, error: str, status: int = 400) -> None:
    """An error answer of the token endpoint (RFC 6749 5.2), not kept by any cache."""
    assert response.status_code == status, response.text
    assert response.json()["error"] == error
    assert response.json()["error_description"]
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["pragma"] == "no-cache"
