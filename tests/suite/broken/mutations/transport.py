"""Broken clocks, transport, and the earlier description as a whole."""

from __future__ import annotations

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
    set_form_value,
    token_answer,
    userinfo_token_ways,
)
from tests.suite.broken.mutations.pkce import pkce_ignored
from tests.suite.broken.registry import CLOCK, REVOKE, USERINFO, mutation


@mutation(
    "tokens-never-expire",
    "access tokens (and codes) never expire: the clock the suite moves does not matter",
    breaks={"LIFETIME-ACCESS-EXPIRES", "TOKEN-CODE-LIFETIME"},
    also={"LIFETIME-REFRESH-PERSISTS"},
)
async def tokens_never_expire(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.path == CLOCK and req.method == "POST":
        # Answer as the clock would, without moving it: to the suite time passes, to the
        # target it does not.
        offset = ctx.state.get("offset", 0) + int(req.param("advance") or 0)
        ctx.state["offset"] = offset
        current = await forward(ProxyRequest("GET", CLOCK, [], []))
        data = current.json() or {}
        return json_response(200, {"offset": offset, "now": data.get("now", 0) + offset})
    return await forward(req)


@mutation(
    "plain-http-served",
    "the endpoints also answer over plain HTTP (so a bearer token sent in clear works)",
    breaks={"TRANSPORT-HTTPS-ONLY", "BEARER-HTTP-IGNORED"},
    also={"USERINFO-HEADER"},
    profile={"capabilities": {"plain_http_url": "{plain_url}"}},
)
async def plain_http_served(req: ProxyRequest, forward: Forward, ctx: Context):
    return await forward(req)


@mutation(
    "earlier-description",
    "follows the earlier description: no PKCE, mac accepted, no revocation, no POST body",
    breaks={
        "VERSION-PKCE",
        "VERSION-TOKEN-TYPE-BEARER-ONLY",
        "VERSION-REVOCATION",
        "VERSION-USERINFO-POST",
    },
    also={"USERINFO-HEADER", "PKCE-S256"},
)
async def earlier_description(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.path == REVOKE:
        return ProxyResponse(404, [("content-type", "text/plain")], b"Not Found")
    if req.is_("POST", USERINFO) and userinfo_token_ways(req) == ["body"]:
        return invalid_token()
    if grant(req) and (req.param("token_type") or "").lower() == "mac":
        set_form_value(req, "token_type", None)
    return await pkce_ignored(req, forward, ctx)


@mutation(
    "refresh-expires-with-access",
    "a refresh token stops working when its first access token expires",
    breaks={"LIFETIME-REFRESH-PERSISTS"},
    also={"LIFETIME-ACCESS-EXPIRES"},
)
async def refresh_expires_with_access(req: ProxyRequest, forward: Forward, ctx: Context):
    issued = ctx.state.setdefault("issued", {})
    offset = ctx.state.get("offset", 0)
    token = req.param("refresh_token") if grant(req) == "refresh_token" else None
    if token in issued and offset - issued[token] >= 3600:
        return json_response(400, {"error": "invalid_grant"})
    resp = await forward(req)
    if req.path == CLOCK and isinstance(resp.json(), dict):
        ctx.state["offset"] = int(resp.json().get("offset", offset))
    data = token_answer(req, resp, "authorization_code")
    if isinstance(data, dict) and data.get("refresh_token"):
        issued[data["refresh_token"]] = offset
    return resp
