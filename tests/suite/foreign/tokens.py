"""Token, revocation and user information endpoints, metabrainz.org style: body-only
parameters, client auth by body or Basic, rotating refresh tokens with family revocation on
reuse, `{}` from revoke, userinfo from the header under any scheme word."""

from __future__ import annotations

import base64
import hashlib
import secrets
import sqlite3
from urllib.parse import parse_qsl, unquote

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from tests.suite.foreign.storage import Store


def error(status: int, name: str, description: str = "") -> JSONResponse:
    headers = {"WWW-Authenticate": "Basic"} if status == 401 else {}
    body = {"error": name, "error_description": description or name}
    return JSONResponse(body, status_code=status, headers=headers)


async def form_of(request: Request) -> dict[str, str]:
    """Body fields only (parameters in the query string are not read); the last of repeats."""
    if not request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        return {}
    body = (await request.body()).decode("utf-8", errors="replace")
    return dict(parse_qsl(body, keep_blank_values=True))


def authenticate(store: Store, request: Request, form: dict[str, str]) -> sqlite3.Row | None:
    """client_secret_basic wins over client_secret_post."""
    client_id, secret = form.get("client_id"), form.get("client_secret")
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "basic":
        try:
            pair = base64.b64decode(value, validate=True).decode()
        except ValueError:
            return None
        client_id, _, secret = (unquote(part) for part in pair.partition(":"))
    client = store.client(client_id)
    if client is None or secret is None:
        return None
    return client if secrets.compare_digest(client["secret"], secret) else None


#: Grant types the provider knows but an ordinary application may not use (RFC 6749 5.2:
#: unauthorized_client), as metabrainz.org answers client_credentials.
OFFERED_TO_OTHERS = ("client_credentials",)


def token_response(store: Store, pair: dict[str, str], scopes: str) -> JSONResponse:
    body = {"access_token": pair["access_token"], "token_type": "Bearer", "expires_in": 3600}
    body |= {"refresh_token": pair["refresh_token"], "scope": scopes.split()}
    return JSONResponse(body)


async def token(request: Request) -> Response:
    store: Store = request.app.state.store
    form = await form_of(request)
    grant = form.get("grant_type")
    if not grant:
        return error(400, "invalid_request", "missing grant_type")
    if grant not in ("authorization_code", "refresh_token", *OFFERED_TO_OTHERS):
        return error(400, "unsupported_grant_type")
    if grant == "refresh_token":
        reused = store.token(form.get("refresh_token"), "refresh")
        if reused is not None and (reused["used"] or reused["revoked"]):
            store.revoke_family(reused["client_id"], reused["user_id"])  # before the client check
            return error(400, "invalid_request", "refresh token already used or revoked")
    client = authenticate(store, request, form)
    if client is None:
        return error(401, "invalid_client")
    if grant in OFFERED_TO_OTHERS:  # Authlib: a grant the provider has, not for this client
        return error(400, "unauthorized_client")
    if grant == "refresh_token":
        return refresh(store, client["client_id"], form)
    return exchange(store, client["client_id"], form)


def exchange(store: Store, client_id: str, form: dict[str, str]) -> Response:
    if not form.get("code"):
        return error(400, "invalid_request", "missing code")
    code = store.code(form["code"])
    if code is None:
        return error(400, "invalid_grant")
    if code["used"]:
        store.revoke_from_code(code["code"])
        return error(400, "invalid_grant", "code already used")
    if code["client_id"] != client_id or code["expires"] < store.clock.now():
        return error(400, "invalid_grant")
    if form.get("redirect_uri") != code["redirect_uri"]:
        return error(400, "invalid_grant", "redirect_uri mismatch")
    problem = pkce_problem(code["challenge"], code["method"], form.get("code_verifier"))
    if problem:
        return problem
    store.use_code(code["code"])
    pair = store.issue(client_id, code["user_id"], code["scopes"], code["code"])
    return token_response(store, pair, code["scopes"])  # access_type ignored: always a refresh


def pkce_problem(
    challenge: str | None, method: str | None, verifier: str | None
) -> Response | None:
    if not challenge and not verifier:
        return None
    if not challenge or not verifier:
        return error(400, "invalid_request", "code_verifier and code_challenge go together")
    if method == "S256":
        digest = hashlib.sha256(verifier.encode()).digest()
        verifier = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    return None if secrets.compare_digest(verifier, challenge) else error(400, "invalid_grant")


def refresh(store: Store, client_id: str, form: dict[str, str]) -> Response:
    if not form.get("refresh_token"):
        return error(400, "invalid_request", "missing refresh_token")
    old = store.token(form["refresh_token"], "refresh")
    if old is None or old["client_id"] != client_id:
        return error(400, "invalid_grant")
    return token_response(store, store.rotate(old), old["scopes"])


async def revoke(request: Request) -> Response:
    """Client auth required; `{}` for known and unknown tokens; a refresh token takes every
    access token of the client and user with it."""
    store: Store = request.app.state.store
    form = await form_of(request)
    client = authenticate(store, request, form)
    if client is None:
        return error(401, "invalid_client")
    if not form.get("token"):
        return error(400, "invalid_request", "missing token")
    for kind in ("access", "refresh"):
        row = store.token(form["token"], kind)
        if row is not None and row["client_id"] == client["client_id"]:
            store.revoke(row["token"])
            if kind == "refresh":
                store.revoke_family(row["client_id"], row["user_id"], "access")
    return JSONResponse({})


async def userinfo(request: Request) -> Response:
    """Header only, any scheme word, no scope check; 401 without a token, 403 with a bad one."""
    store: Store = request.app.state.store
    _, _, value = request.headers.get("authorization", "").strip().partition(" ")
    if not value.strip():
        return JSONResponse({"error": "missing auth header"}, status_code=401)
    row = store.live_access(value.strip())
    if row is None:
        return JSONResponse({"error": "invalid access token"}, status_code=403)
    user = store.user(row["user_id"])
    body = {"sub": str(user["id"]), "username": user["username"]}
    return JSONResponse(body | {"member_since": user["member_since"]})
