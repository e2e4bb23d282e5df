"""Missed defects, class 3: a rule's variant that one sample misses.

Each target breaks a rule only on one of the variants the rule's words cover (client type,
grant kind, token delivery, error kind) and keeps it on the others, so a suite that checks
the rule on one variant passes it."""

from __future__ import annotations

from typing import Any

from tests.suite.broken.exchange import (
    Context,
    Forward,
    ProxyRequest,
    ProxyResponse,
    json_response,
)
from tests.suite.broken.helpers import (
    grant,
    invalid_token,
    presented_token,
    remember_tokens,
    role_of,
    token_answer,
    userinfo_token_ways,
)
from tests.suite.broken.registry import REVOKE, TOKEN, USERINFO, one_rule


@one_rule(
    "installed-refresh-lasts-7200",
    "refresh answers to the installed application say expires_in 7200 (its code exchange, "
    "and every answer to the web application, say 3600)",
    breaks="TOKEN-EXPIRES-IN-3600",
    kind="variant",
)
async def installed_refresh_lasts_7200(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    data = token_answer(req, resp, "refresh_token")
    if isinstance(data, dict) and role_of(ctx, req.param("client_id")) == "installed":
        data["expires_in"] = 7200
        resp.set_json(data)
    return resp


@one_rule(
    "refresh-cacheable",
    "refresh answers carry no Cache-Control and no Pragma (code-exchange answers do)",
    breaks="TOKEN-NO-STORE",
    kind="variant",
)
async def refresh_cacheable(req: ProxyRequest, forward: Forward, ctx: Context) -> ProxyResponse:
    resp = await forward(req)
    if grant(req) == "refresh_token":
        resp.set_header("cache-control", None)
        resp.set_header("pragma", None)
    return resp


@one_rule(
    "scope-refusal-off-header",
    "a token without the profile scope is answered 401 invalid_token when it comes in a form "
    "body or the query string (403 insufficient_scope in the Authorization header)",
    breaks="USERINFO-ERR-INSUFFICIENT-SCOPE",
    kind="variant",
)
async def scope_refusal_off_header(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    ways = userinfo_token_ways(req)
    if req.path == USERINFO and resp.status == 403 and ways in (["body"], ["query"]):
        return invalid_token()
    return resp


def _revoking_own_refresh(req: ProxyRequest, ctx: Context, refresh: dict[str, Any]) -> bool:
    """A revocation of an installed application's refresh token with its right credentials, in
    the form body (the service reads no revocation from the query string)."""
    token = req.body_param("token") if req.is_("POST", REVOKE) else None
    found = ctx.client_by_id(req.body_param("client_id"))
    if token not in refresh or found is None or found[0] != "installed":
        return False
    right = found[1]["client_id"] == refresh[token]
    return right and req.body_param("client_secret") == found[1]["client_secret"]


@one_rule(
    "installed-refresh-revocation-partial",
    "revoking an installed application's refresh token ends only that token: the grant's "
    "access token keeps working (a web application's whole grant goes)",
    breaks="REVOKE-REFRESH-WHOLE-GRANT",
    kind="variant",
)
async def installed_refresh_revocation_partial(req: ProxyRequest, forward: Forward, ctx: Context):
    refresh: dict[str, str] = ctx.state.setdefault("refresh", {})  # token -> client_id
    dead: set[str] = ctx.state.setdefault("dead", set())
    if _revoking_own_refresh(req, ctx, refresh):
        dead.add(req.param("token") or "")
        return ProxyResponse(200, [("cache-control", "no-store"), ("pragma", "no-cache")])
    if grant(req) == "refresh_token" and req.param("refresh_token") in dead:
        return json_response(400, {"error": "invalid_grant"}, [("cache-control", "no-store")])
    resp = await forward(req)
    data = resp.json() if req.is_("POST", TOKEN) and resp.status == 200 else None
    if isinstance(data, dict) and isinstance(data.get("refresh_token"), str):
        refresh[data["refresh_token"]] = req.param("client_id") or ""
    return resp


@one_rule(
    "revoked-token-forbidden",
    "an access token the application revoked is answered 403 (an unknown, near-miss or "
    'expired one: 401 error="invalid_token")',
    breaks="USERINFO-ERR-INVALID-TOKEN",
    kind="variant",
)
async def revoked_token_forbidden(req: ProxyRequest, forward: Forward, ctx: Context):
    revoked: set[str] = ctx.state.setdefault("revoked", set())
    resp = await forward(req)
    remember_tokens(ctx, req, resp)
    if req.is_("POST", REVOKE) and resp.status == 200 and req.param("token"):
        revoked.add(req.param("token") or "")
    if req.path == USERINFO and resp.status == 401 and presented_token(req) in revoked:
        resp.status = 403
    return resp
