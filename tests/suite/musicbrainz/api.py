"""Token, revocation and user information endpoints as musicbrainz-server answers them
(reference/musicbrainz-behaviour.md, "Token endpoint", "Revocation endpoint", "User information
endpoint" and "Observed on a running musicbrainz-server"). Where it departs from an RFC, so
does this: token parameters are read from the query string too, the code's redirect URI is not
remembered, a replayed code leaves its tokens valid, a verifier for a code without challenge is
ignored, userinfo takes the header over a second token and refuses a token without `profile`
with 400 invalid_token, and its 401 has no `error=` attribute."""

from __future__ import annotations

import base64
import hashlib
import secrets
from typing import Any
from urllib.parse import parse_qsl, unquote

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from tests.suite.musicbrainz.model import SCOPE_BITS, App, Grant, Site, now, random_value

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
REQUIRED = {
    "authorization_code": ("code", "redirect_uri", "client_id", "client_secret"),
    "refresh_token": ("refresh_token", "client_id", "client_secret"),
}
CHALLENGES = (
    'Digest realm="musicbrainz.org", qop="auth", algorithm=MD5, nonce="{nonce}"',
    'Bearer realm="musicbrainz.org", charset=UTF-8',
)


class Refusal(Exception):
    """An OAuth error answer (RFC 6749 5.2 JSON)."""

    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error, self.description, self.status = error, description, status


def _json(body: dict[str, Any], status: int = 200, **headers: str) -> JSONResponse:
    return JSONResponse(body, status_code=status, headers=NO_STORE | headers)


async def _pairs(request: Request) -> list[tuple[str, str]]:
    """A form body's fields (a body of another type has none)."""
    if not request.headers.get("content-type", "").startswith("application/x-www-form"):
        return []
    return parse_qsl((await request.body()).decode("utf-8", "replace"), keep_blank_values=True)


async def token(request: Request) -> Response:
    site: Site = request.app.state.site
    pairs = await _pairs(request) + list(request.query_params.multi_items())
    try:
        return _json(_grant(site, pairs, _basic(request)))
    except Refusal as refusal:
        body = {"error": refusal.error, "error_description": refusal.description}
        extra = {"WWW-Authenticate": 'Basic realm="MusicBrainz"'} if refusal.status == 401 else {}
        return _json(body, refusal.status, **extra)


def _basic(request: Request) -> tuple[str, str] | None:
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        client_id, _, secret = base64.b64decode(value).decode().partition(":")
    except ValueError:
        return None
    return unquote(client_id), unquote(secret)


def _grant(site: Site, pairs: list[tuple[str, str]], basic: tuple[str, str] | None) -> dict:
    names = [name for name, _ in pairs]
    fields = dict(pairs)
    if basic:  # HTTP Basic wins over the body
        fields["client_id"], fields["client_secret"] = basic
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise Refusal("invalid_request", f"Duplicated parameter: {repeated[0]}")
    kind = fields.get("grant_type")
    if not kind:
        raise Refusal("invalid_request", "Required parameter is missing: grant_type")
    if kind not in REQUIRED:
        raise Refusal("unsupported_grant_type", "Unsupported grant_type")
    for name in REQUIRED[kind]:
        if not fields.get(name):
            raise Refusal("invalid_request", f"Required parameter is missing: {name}")
    if fields.get("token_type", "bearer") != "bearer":
        raise Refusal("invalid_request", "Only token_type=bearer is supported")
    app = site.app(client_id=fields["client_id"])
    if app is None or not secrets.compare_digest(app.secret, fields["client_secret"]):
        raise Refusal("invalid_client", "Client authentication failed", 401)
    if kind == "refresh_token":
        return _refresh(site, app, fields["refresh_token"])
    return _exchange(site, app, fields)


def _exchange(site: Site, app: App, fields: dict[str, str]) -> dict:
    # As the real server orders its checks (observed 2026-11): the redirect URI against the
    # requesting application's rules (not the code's own URI) before the code and its owner.
    if not app.allows(fields["redirect_uri"]):
        raise Refusal("invalid_request", "Mismatched redirect URI")
    grant = site.by_code(fields["code"])
    if grant is None or grant.app is not app or grant.exchanged or grant.code_expires <= now():
        raise Refusal("invalid_grant", "Invalid authorization code")
    if grant.challenge is not None:
        verifier = fields.get("code_verifier")
        if not verifier:
            raise Refusal("invalid_request", "Required parameter is missing: code_verifier")
        if not _verifies(verifier, grant):
            raise Refusal("invalid_grant", "Invalid code_verifier")
    grant.exchanged = True
    grant.new_access_token()
    if grant.offline:
        grant.refresh_token = grant.refresh_token or random_value()
    return _issued(grant)


def _verifies(verifier: str, grant: Grant) -> bool:
    if grant.method == "S256":
        digest = hashlib.sha256(verifier.encode()).digest()
        verifier = base64.urlsafe_b64encode(digest).decode().rstrip("=")
    return secrets.compare_digest(verifier, grant.challenge or "")


def _refresh(site: Site, app: App, refresh_token: str) -> dict:
    grant = site.by_refresh(refresh_token)
    if grant is None or grant.app is not app:
        raise Refusal("invalid_grant", "Invalid refresh token")
    grant.new_access_token()  # the previous access token stops working
    if "refresh-rotates" in site.defects:
        grant.refresh_token = random_value()
    return _issued(grant)


def _issued(grant: Grant) -> dict:
    body: dict[str, Any] = {
        "access_token": grant.access_token,
        "token_type": "bearer",
        "expires_in": grant.access_expires - now(),
    }
    if grant.refresh_token:
        body["refresh_token"] = grant.refresh_token
    return body


async def revoke(request: Request) -> Response:
    """Body parameters only; an empty 200 whatever the token (known, unknown, another's)."""
    site: Site = request.app.state.site
    fields = dict(await _pairs(request))
    for name in ("token", "client_id", "client_secret"):
        if not fields.get(name):
            return _json({"error": "invalid_request", "error_description": f"Missing {name}"}, 400)
    app = site.app(client_id=fields["client_id"])
    if app is None or not secrets.compare_digest(app.secret, fields["client_secret"]):
        body = {"error": "invalid_client", "error_description": "Bad credentials"}
        return _json(body, 401, **{"WWW-Authenticate": 'Basic realm="MusicBrainz"'})
    if (grant := site.by_refresh(fields["token"])) and grant.app is app:
        site.grants.remove(grant)
    elif (grant := site.by_access(fields["token"])) and grant.app is app:
        if grant.offline:
            grant.access_token = None  # only that access token
        else:
            site.grants.remove(grant)  # an online grant goes whole
    return Response(b"", status_code=200, media_type="text/html; charset=utf-8")


async def userinfo(request: Request) -> Response:
    site: Site = request.app.state.site
    scheme, _, header = request.headers.get("authorization", "").partition(" ")
    sent = header.strip() if scheme == "Bearer" else ""
    sent = sent or dict(await _pairs(request)).get("access_token") or ""
    sent = sent or request.query_params.get("access_token", "")
    grant = site.by_access(sent)
    if grant is None or not grant.live_access():
        return _unauthorized()
    if not grant.bits & SCOPE_BITS["profile"]:
        body = {"error": "invalid_token", "error_description": "The profile scope is required"}
        return _json(body, 400)
    user = site.user
    answer: dict[str, Any] = {
        "sub": user.username,
        "profile": f"{request.base_url}user/{user.username}",
        "metabrainz_user_id": user.user_id,
        "zoneinfo": "UTC",
    }
    if grant.bits & SCOPE_BITS["email"]:
        answer |= {"email": user.email, "email_verified": True}
    return JSONResponse(answer)


def _unauthorized() -> Response:
    """401 with a Digest challenge first, then Bearer without an error attribute."""
    response = Response("Authorization required", status_code=401, media_type="text/plain")
    nonce = secrets.token_hex(8)
    for challenge in CHALLENGES:
        response.raw_headers.append((b"www-authenticate", challenge.format(nonce=nonce).encode()))
    return response
