"""Broken refresh tokens: when the token endpoint issues one, and how it treats the refresh
grant (rotation, single use, another client's token)."""

from __future__ import annotations

import secrets

from tests.suite.broken.exchange import (
    Context,
    Forward,
    ProxyRequest,
    ProxyResponse,
    json_response,
)
from tests.suite.broken.helpers import (
    grant,
    remember_tokens,
    set_form_value,
    swap_credentials,
    token_answer,
)
from tests.suite.broken.registry import TOKEN, mutation


@mutation(
    "refresh-rotates",
    "refresh answers a new refresh token (which the proxy still honours)",
    breaks={"REFRESH-SAME-TOKEN"},
    also={"REFRESH-NEW-ACCESS-TOKEN", "REFRESH-TOKEN-STAYS-VALID"},
)
async def refresh_rotates(req: ProxyRequest, forward: Forward, ctx: Context) -> ProxyResponse:
    aliases = ctx.state.setdefault("alias", {})
    for name in ("refresh_token", "token"):
        value = req.param(name)
        if value in aliases and req.is_form():
            set_form_value(req, name, aliases[value])
    resp = await forward(req)
    data = token_answer(req, resp, "refresh_token")
    if isinstance(data, dict) and isinstance(data.get("refresh_token"), str):
        fresh = secrets.token_urlsafe(24)
        aliases[fresh] = data["refresh_token"]
        data["refresh_token"] = fresh
        resp.set_json(data)
    return resp


def _strip_refresh(resp: ProxyResponse) -> None:
    data = resp.json()
    if isinstance(data, dict) and data.pop("refresh_token", None) is not None:
        resp.set_json(data)


@mutation(
    "no-refresh-installed",
    "installed applications get no refresh token",
    breaks={"TOKEN-REFRESH-INSTALLED"},
    also={"TOKEN-REFRESH-OFFLINE", "TOKEN-NO-REFRESH-ONLINE"},
)
async def no_refresh_installed(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    role = ctx.client_by_id(req.param("client_id"))
    if grant(req) == "authorization_code" and role and role[0] == "installed":
        _strip_refresh(resp)
    return resp


@mutation(
    "no-refresh-offline",
    "web applications asking for offline access get no refresh token",
    breaks={"TOKEN-REFRESH-OFFLINE"},
    also={"TOKEN-REFRESH-INSTALLED", "TOKEN-NO-REFRESH-ONLINE"},
)
async def no_refresh_offline(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    role = ctx.client_by_id(req.param("client_id"))
    if grant(req) == "authorization_code" and role and role[0] != "installed":
        _strip_refresh(resp)
    return resp


@mutation(
    "refresh-for-online",
    "online web applications get a refresh token too",
    breaks={"TOKEN-NO-REFRESH-ONLINE"},
    also={"TOKEN-REFRESH-OFFLINE", "TOKEN-REFRESH-INSTALLED"},
)
async def refresh_for_online(req: ProxyRequest, forward: Forward, ctx: Context):
    resp = await forward(req)
    data = token_answer(req, resp, "authorization_code")
    if isinstance(data, dict) and "refresh_token" not in data:
        data["refresh_token"] = secrets.token_urlsafe(24)
        resp.set_json(data)
    return resp


@mutation(
    "refresh-cross-client",
    "a refresh token issued to one application is used by another",
    breaks={"REFRESH-CROSS-CLIENT"},
    also={"REFRESH-NEW-ACCESS-TOKEN"},
)
async def cross_client_refresh(req: ProxyRequest, forward: Forward, ctx: Context):
    owners = ctx.state.setdefault("owner", {})
    if grant(req) == "refresh_token" and req.param("refresh_token") in owners:
        swap_credentials(req, ctx, owners[req.param("refresh_token")])
    resp = await forward(req)
    remember_tokens(ctx, req, resp)
    return resp


@mutation(
    "refresh-grant-type-optional",
    "a refresh without grant_type is accepted",
    breaks={"REFRESH-REQUIRED-PARAMS"},
    also={"REFRESH-NEW-ACCESS-TOKEN"},
)
async def refresh_grant_type_optional(req: ProxyRequest, forward: Forward, ctx: Context):
    if req.is_("POST", TOKEN) and req.param("refresh_token") and not req.param("grant_type"):
        set_form_value(req, "grant_type", "refresh_token")
    return await forward(req)


@mutation(
    "refresh-token-single-use",
    "a refresh token works once",
    breaks={"REFRESH-TOKEN-STAYS-VALID"},
    also={"REFRESH-NEW-ACCESS-TOKEN"},
)
async def refresh_token_single_use(req: ProxyRequest, forward: Forward, ctx: Context):
    used = ctx.state.setdefault("used", set())
    token = req.param("refresh_token") if grant(req) == "refresh_token" else None
    if token in used:
        return json_response(400, {"error": "invalid_grant"})
    resp = await forward(req)
    if token and resp.status == 200:
        used.add(token)
    return resp
