"""Small request/response helpers shared by the mutations."""

from __future__ import annotations

import base64
import hashlib
from typing import Any
from urllib.parse import urlencode

from tests.suite.broken.exchange import (
    Context,
    ProxyRequest,
    ProxyResponse,
    json_response,
    redirect,
)
from tests.suite.broken.registry import AUTHORIZE, TOKEN


def is_authorize(req: ProxyRequest) -> bool:
    return req.path == AUTHORIZE


def grant(req: ProxyRequest) -> str | None:
    return req.param("grant_type") if req.is_("POST", TOKEN) else None


def token_answer(req: ProxyRequest, resp: ProxyResponse, grant_type: str) -> Any:
    """The JSON of a 200 token answer to a request of `grant_type`, else None."""
    return resp.json() if grant(req) == grant_type and resp.status == 200 else None


def remember_tokens(ctx: Context, req: ProxyRequest, resp: ProxyResponse) -> None:
    """Note which client each issued token belongs to (for later revocation or misuse)."""
    data = resp.json() if req.is_("POST", TOKEN) and resp.status == 200 else None
    if not isinstance(data, dict):
        return
    owners = ctx.state.setdefault("owner", {})
    for key in ("access_token", "refresh_token"):
        if isinstance(data.get(key), str):
            owners[data[key]] = req.param("client_id")


def remember_code(ctx: Context, req: ProxyRequest, resp: ProxyResponse) -> str | None:
    """The code of an authorization redirect, noted with the client it was issued to."""
    code = resp.location_params().get("code") if is_authorize(req) else None
    if code:
        ctx.state.setdefault("code_client", {})[code] = req.query_value("client_id")
    return code


def swap_credentials(req: ProxyRequest, ctx: Context, owner_id: str | None) -> None:
    """Present the owner's credentials (and redirect URI) instead of the request's own."""
    found = ctx.client_by_id(owner_id)
    if found is None or owner_id == req.param("client_id"):
        return
    client = found[1]
    creds = {k: client[k] for k in ("client_id", "client_secret", "redirect_uri")}
    req.set_form([(k, creds.get(k, v)) for k, v in req.form()])


def set_form_value(req: ProxyRequest, name: str, value: str | None) -> None:
    """Replace (or with None remove) a form field."""
    pairs = [(k, v) for k, v in req.form() if k != name]
    req.set_form(pairs if value is None else [*pairs, (name, value)])


def drop_query(req: ProxyRequest, *names: str) -> None:
    req.query = [(k, v) for k, v in req.query if k not in names]


def s256(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def userinfo_token_ways(req: ProxyRequest) -> list[str]:
    ways = []
    if req.header("authorization"):
        ways.append("header")
    if req.query_value("access_token") is not None:
        ways.append("query")
    if any(k == "access_token" for k, _ in req.form()):
        ways.append("body")
    return ways


def invalid_token() -> ProxyResponse:
    return json_response(
        401,
        {"error": "invalid_token"},
        [("www-authenticate", 'Bearer realm="proxy", error="invalid_token"')],
    )


def error_redirect(req: ProxyRequest, error: str) -> ProxyResponse:
    """An authorization error sent back to the request's redirect URI, with its state."""
    target = req.query_value("redirect_uri") or ""
    params = [("error", error)]
    if (state := req.query_value("state")) is not None:
        params.append(("state", state))
    return redirect(f"{target}{'&' if '?' in target else '?'}{urlencode(params)}")


def role_of(ctx: Context, client_id: str | None) -> str | None:
    """The profile's role (web, installed, other_web) of a client id."""
    found = ctx.client_by_id(client_id)
    return found[0] if found else None


def presented_token(req: ProxyRequest) -> str | None:
    """The bearer token of a user information request, whichever way it came."""
    scheme, _, value = (req.header("authorization") or "").partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    body = next((v for k, v in req.form() if k == "access_token"), None)
    return req.query_value("access_token") or body
